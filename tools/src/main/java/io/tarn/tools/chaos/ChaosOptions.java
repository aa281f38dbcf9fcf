package io.tarn.tools.chaos;

import io.tarn.common.config.DataSize;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The parameters of one chaos run.
 *
 * @param durationMs   how long faults are injected while the clients run
 * @param seed         seed of the fault schedule (and of the clients' choices)
 * @param datanodes    DRAM datanodes, each in a namespace of its own
 * @param clients      client threads, each with a TarnClient of its own
 * @param faults       the faults the schedule draws from; empty for none
 * @param replication  copies per block
 * @param maxFaulty    most datanodes faulty at one time
 * @param keepHistory  directory to keep every run's history and logs in; null keeps only failing runs' (in a
 *                     temporary directory)
 * @param valueSize    bytes of each written value (file)
 * @param datanodeMemory bytes of memory each datanode stores blocks in ({@code tarn.datanode.dram.capacity})
 */
public record ChaosOptions(long durationMs, long seed, int datanodes, int clients, List<Fault> faults,
                           int replication, int maxFaulty, Path keepHistory, int valueSize, long datanodeMemory) {
    /** Each datanode's memory unless told otherwise: enough for about 100 s of the default workload. */
    public static final long DEFAULT_DATANODE_MEMORY = 256L << 20;
    /** The region size of a chaos run's datanodes; their memory is a whole number of regions. */
    public static final long REGION_SIZE = 16L << 20;

    /** The faults of a run unless told otherwise: everything that loses no acknowledged data. */
    public static final List<Fault> DEFAULT_FAULTS = List.of(Fault.KILL, Fault.PAUSE, Fault.ISOLATE, Fault.RESTART);

    public ChaosOptions {
        faults = List.copyOf(faults);
        if (durationMs < 1_000 || durationMs > 86_400_000L) {
            throw new IllegalArgumentException("--duration must be from 1s to 24h, got " + durationMs + " ms");
        }
        if (datanodes < 1 || datanodes > 32) {
            throw new IllegalArgumentException("--datanodes must be from 1 to 32, got " + datanodes);
        }
        if (clients < 1 || clients > 64) {
            throw new IllegalArgumentException("--clients must be from 1 to 64, got " + clients);
        }
        if (maxFaulty < 1 || maxFaulty > datanodes) {
            throw new IllegalArgumentException("--max-faulty must be from 1 to the number of datanodes (" + datanodes
                    + "), got " + maxFaulty);
        }
        if (valueSize < 64 || valueSize > 1 << 20) {
            throw new IllegalArgumentException("--value-size must be from 64 bytes to 1m, got " + valueSize);
        }
        if (datanodeMemory < 4 * REGION_SIZE || datanodeMemory > 64L << 30 || datanodeMemory % REGION_SIZE != 0) {
            throw new IllegalArgumentException("--datanode-memory must be a multiple of 16m from 64m to 64g, got "
                    + DataSize.format(datanodeMemory));
        }
        if (replication < 1) {
            throw new IllegalArgumentException("--replication must be at least 1, got " + replication);
        }
    }

    /** The command line that runs the same schedule again. */
    public String replayCommand() {
        String faultList = faults.isEmpty() ? "none" : faults.stream().map(Fault::label)
                .collect(Collectors.joining(","));
        return String.format(Locale.ROOT, "bin/tarn chaos --duration %s --seed %d --datanodes %d --clients %d "
                + "--faults %s --replication %d --max-faulty %d --value-size %d --datanode-memory %s",
                formatDuration(durationMs), seed, datanodes, clients, faultList, replication, maxFaulty, valueSize,
                DataSize.format(datanodeMemory));
    }

    static String formatDuration(long ms) {
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
