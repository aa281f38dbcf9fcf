package io.tarn.it.compare;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What one side-by-side run measures and for how long.
 *
 * @param seconds       measured time of each load point (a getFile depth, a create depth, an echo depth)
 * @param warmupSeconds unmeasured time run just before each load point, same load
 * @param sizeMb        size of the sequentially written and read file, and of the TCP stream, in MiB
 * @param workDir       where the MiniDFSCluster keeps its storage
 * @param dramRoot      where Tarn's datanode keeps its region files, and the TCP stream into memory
 *                      its file (a fresh directory under it); null for {@code /dev/shm}
 * @param authentication {@code secret} (as bin/tarn start) or {@code none}
 * @param tls           every Tarn connection TLS, with certificates of a throwaway authority made in
 *                      the work directory ({@code tarn.security.tls})
 */
public record CompareSettings(double seconds, double warmupSeconds, int sizeMb, Path workDir, Path dramRoot,
                              String authentication, boolean tls) {
    /** Calls in flight for getFile and for the Netty echo baseline. */
    public static final List<Integer> GET_FILE_DEPTHS = List.of(1, 16, 64, 128);
    /** Calls in flight (threads) for create + close. */
    public static final List<Integer> CREATE_DEPTHS = List.of(1, 16);
    /** Size of each write and read call of the sequential workloads and of the TCP stream baseline. */
    public static final int IO_BUFFER = 1 << 20;
    /**
     * Measured passes of each sequential workload and of the TCP stream; each figure is their
     * median. One pass of a GiB takes well under a second here, and single passes moved by a factor
     * of two from one run to the next on a shared 2-core machine.
     */
    public static final int SEQUENTIAL_PASSES = 3;
    /**
     * Unmeasured passes before them (when warming up), on every side alike, at least. When Tarn's client and
     * datanode ran in this JVM, its JIT compiler threads spent 1.4 CPU-seconds during the first GiB
     * and 0.2-0.4 per GiB over the next four, and one warm pass left the measured ones still rising
     * (2.0, 2.4, 2.9 GB/s read in one run).
     */
    public static final int SEQUENTIAL_WARMUP_PASSES = 3;
    /**
     * Before the first create + close point, each side runs create + close and then rename unmeasured
     * at the deepest load for this many times the warm-up ({@code --warmup-seconds}) each.
     */
    public static final int MUTATION_WARMUP_FACTOR = 3;
    /**
     * Unmeasured passes at most: after {@link #SEQUENTIAL_WARMUP_PASSES}, warm-up goes on while the
     * last pass still spent more than {@link #JIT_QUIET_SHARE} of its time compiling. Code run once
     * per MiB (a stream's write, the datanode's request checks) is called about a thousand times a
     * GiB and reaches the optimizing compiler only after several GiB: with three passes of 1 GiB,
     * the C2 compiler was still compiling Tarn's per-request methods during the measured passes,
     * taking up to a fifth of the two cores (async-profiler), and a run with twelve passes measured
     * 2.7-3.1 GB/s write against 2.2-2.4 with three. A long-running executor runs that compiled
     * code; the measured passes should too.
     */
    public static final int SEQUENTIAL_WARMUP_PASSES_MAX = 16;
    /** The share of a warm-up pass's time spent compiling below which the JIT counts as settled. */
    public static final double JIT_QUIET_SHARE = 0.02;

    public CompareSettings {
        if (!(seconds > 0) || warmupSeconds < 0 || sizeMb < 1) {
            throw new IllegalArgumentException("need seconds > 0, warm-up >= 0 and size >= 1 MiB, got "
                    + seconds + ", " + warmupSeconds + ", " + sizeMb);
        }
        if (!authentication.equals("secret") && !authentication.equals("none")) {
            throw new IllegalArgumentException("--authentication must be secret or none, got " + authentication);
        }
    }

    /** Settings without TLS. */
    public CompareSettings(double seconds, double warmupSeconds, int sizeMb, Path workDir, Path dramRoot,
                           String authentication) {
        this(seconds, warmupSeconds, sizeMb, workDir, dramRoot, authentication, false);
    }

    /** Settings for a Tarn cluster that authenticates, as bin/tarn start makes one by default. */
    public CompareSettings(double seconds, double warmupSeconds, int sizeMb, Path workDir, Path dramRoot) {
        this(seconds, warmupSeconds, sizeMb, workDir, dramRoot, "secret");
    }

    /** Settings with the region files in {@code /dev/shm}. */
    public CompareSettings(double seconds, double warmupSeconds, int sizeMb, Path workDir) {
        this(seconds, warmupSeconds, sizeMb, workDir, null);
    }

    public long sizeBytes() {
        return (long) sizeMb << 20;
    }

    /** The settings as command-line options, for the record. */
    public String options() {
        return String.format(Locale.ROOT, "--seconds %s --warmup-seconds %s --size-mb %d --authentication %s",
                seconds, warmupSeconds, sizeMb, authentication) + (dramRoot == null ? "" : " --dram-root " + dramRoot)
                + (tls ? " --tls" : "");
    }
}
