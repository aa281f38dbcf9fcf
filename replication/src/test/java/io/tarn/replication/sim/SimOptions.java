package io.tarn.replication.sim;

import io.tarn.replication.ReplicationConfig;

/**
 * Settings of one simulated run.
 *
 * @param config              the replication settings under test
 * @param nodes               replicas in the group
 * @param clients             concurrent clients
 * @param clientDepth         operations each client keeps in flight
 * @param chaosMicros         length of the phase with client load and (if enabled) faults
 * @param quiesceMicros       budget for the fault-free phase in which everything must converge
 * @param faults              whether to inject crashes, wipes, partitions, drops, duplicates, transfers
 * @param network             one-way latency between replicas
 * @param clientNetwork       one-way latency between a client and a replica
 * @param disk                latency of one group-commit flush
 * @param blocks              blocks in the group (small, so writes conflict)
 * @param maxRangeBlocks      largest range a client operation touches
 * @param writeFraction       share of client operations that are writes
 * @param clientTimeoutMicros a client resends after this long without an answer
 * @param clientBackoffMicros a client waits this long after a redirect or refusal
 * @param tickMicros          simulated length of one replica tick
 * @param faultGapMicros      faults come every 2 ms plus a uniform gap up to this
 * @param replacements        whether faults include replacing a member by a new, empty one
 */
record SimOptions(ReplicationConfig config, int nodes, int clients, int clientDepth, long chaosMicros,
                  long quiesceMicros, boolean faults, LatencyModel network, LatencyModel clientNetwork,
                  LatencyModel disk, int blocks, int maxRangeBlocks, double writeFraction, long clientTimeoutMicros,
                  long clientBackoffMicros, long tickMicros, long faultGapMicros,
                  boolean replacements) {

    /** Settings for the randomized safety runs: short timeouts, frequent checkpoints, small window. */
    static SimOptions chaos(ReplicationConfig base) {
        ReplicationConfig config = base.toBuilder()
                .electionTimeout(20, 40).heartbeatTicks(5).leaseTicks(15).retransmitTicks(6)
                .window(8).checkpointInterval(16).build();
        LatencyModel network = LatencyModel.uniformWithTail(100, 800, 0.05, 6_000);
        return new SimOptions(config, 3, 3, 2, 400_000, 3_000_000, true, network, network,
                LatencyModel.uniformWithTail(50, 400, 0.02, 3_000),
                12, 3, 0.6, 12_000, 2_000, 1_000, 20_000, false);
    }

    /** The same settings, with member replacements among the faults. */
    SimOptions withReplacements() {
        return new SimOptions(config, nodes, clients, clientDepth, chaosMicros, quiesceMicros, faults, network,
                clientNetwork, disk, blocks, maxRangeBlocks, writeFraction, clientTimeoutMicros, clientBackoffMicros,
                tickMicros, faultGapMicros, true);
    }
}
