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
 * @param bytes               payload size and the bandwidth of links and journals
 */
record SimOptions(ReplicationConfig config, int nodes, int clients, int clientDepth, long chaosMicros,
                  long quiesceMicros, boolean faults, LatencyModel network, LatencyModel clientNetwork,
                  LatencyModel disk, int blocks, int maxRangeBlocks, double writeFraction, long clientTimeoutMicros,
                  long clientBackoffMicros, long tickMicros, long faultGapMicros,
                  boolean replacements, Bytes bytes) {

    /**
     * Sizes and bandwidths. A message occupies its directed link for its size over the link's
     * bandwidth (messages queue behind each other, as on a TCP connection; as between datanodes,
     * messages that {@link io.tarn.replication.Message#carriesData() carry data} have a connection
     * of their own, with the same bandwidth, so heartbeats never wait behind them), then travels for the
     * sampled latency; a journal flush takes the sampled latency plus its entries' bytes over the
     * journal's bandwidth. A bandwidth of 0 is unlimited.
     *
     * @param payload           bytes each client write claims to carry
     * @param linkBytesPerMilli bandwidth of each directed link
     * @param diskBytesPerMilli bandwidth of each journal
     */
    record Bytes(int payload, long linkBytesPerMilli, long diskBytesPerMilli) {

        /** Tiny payloads, unlimited bandwidth: only the latency models count. */
        static final Bytes NONE = new Bytes(Long.BYTES, 0, 0);

        long linkMicros(long size) {
            return linkBytesPerMilli == 0 ? 0 : size * 1_000 / linkBytesPerMilli;
        }

        long diskMicros(long size) {
            return diskBytesPerMilli == 0 ? 0 : size * 1_000 / diskBytesPerMilli;
        }
    }

    /**
     * Settings for the randomized safety runs: short timeouts, frequent checkpoints, small window,
     * and a leader that waits for a lagging voter only 60 ticks, so that both waiting for one and
     * giving up on it happen within a run.
     */
    static SimOptions chaos(ReplicationConfig base) {
        ReplicationConfig config = base.toBuilder()
                .electionTimeout(20, 40).heartbeatTicks(5).leaseTicks(15).retransmitTicks(6).retransmitMaxTicks(48)
                .window(8).checkpointInterval(16).laggardWaitTicks(60).build();
        LatencyModel network = LatencyModel.uniformWithTail(100, 800, 0.05, 6_000);
        return new SimOptions(config, 3, 3, 2, 400_000, 3_000_000, true, network, network,
                LatencyModel.uniformWithTail(50, 400, 0.02, 3_000),
                12, 3, 0.6, 12_000, 2_000, 1_000, 20_000, false, Bytes.NONE);
    }

    /**
     * Issue #20's load, without faults: one client keeping 16 writes of 1 MiB in flight, journals
     * of 100 MB/s (a 16 MiB group commit takes 170 ms, far longer than the retransmit period) and
     * links of 500 MB/s, with the core's default timing (1 ms ticks).
     */
    static SimOptions bigWritesOnSlowDisks(ReplicationConfig config) {
        LatencyModel network = LatencyModel.uniformWithTail(50, 200, 0, 0);
        return new SimOptions(config, 3, 1, 16, 2_000_000, 10_000_000, false, network, network,
                LatencyModel.uniformWithTail(200, 1_000, 0, 0), 64, 1, 1.0, 1_000_000, 2_000, 1_000, 0, false,
                new Bytes(1 << 20, 500_000, 100_000));
    }

    /**
     * The chaos settings with writes of 64 KiB, links of 50 MB/s and journals of 100 MB/s, and a
     * cap of two writes in flight per follower: the byte cap and the retransmit back-off decide
     * what is sent, and messages queue behind each other on their links.
     */
    SimOptions withBigWrites() {
        int payload = 64 << 10;
        return with(config.toBuilder().maxBytesInFlight(2L * payload).build(), new Bytes(payload, 50_000, 100_000));
    }

    /** The same settings, with member replacements among the faults. */
    SimOptions withReplacements() {
        return with(config, true, bytes);
    }

    /** The same settings with another replication config and byte model. */
    SimOptions with(ReplicationConfig newConfig, Bytes newBytes) {
        return with(newConfig, replacements, newBytes);
    }

    private SimOptions with(ReplicationConfig newConfig, boolean newReplacements, Bytes newBytes) {
        return new SimOptions(newConfig, nodes, clients, clientDepth, chaosMicros, quiesceMicros, faults, network,
                clientNetwork, disk, blocks, maxRangeBlocks, writeFraction, clientTimeoutMicros, clientBackoffMicros,
                tickMicros, faultGapMicros, newReplacements, newBytes);
    }
}
