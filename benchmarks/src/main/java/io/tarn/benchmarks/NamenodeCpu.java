package io.tarn.benchmarks;

import com.sun.management.OperatingSystemMXBean;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * CPU time of the threads of an in-process namenode, and of the whole JVM process.
 *
 * <p>Which threads serve the namenode is found by name: {@link #snapshot()} before the cluster
 * starts, {@link #namenodeThreadsSince} after. The TCP transport names its event-loop threads
 * {@code tarn-tcp-<transport>-...}, numbering transports in creation order, and a
 * {@code MiniCluster} creates the namenode's transport before any datanode's; so the new
 * {@code tarn-tcp} threads with the lowest transport number, plus the namenode's maintenance
 * thread, are the namenode's. With {@code tarn.rpc.io.threads = 1} (the MiniCluster default) that
 * is one event-loop thread, which runs every namenode request.
 */
public final class NamenodeCpu {
    private static final Pattern TCP_THREAD = Pattern.compile("tarn-tcp-(\\d+)-.*");
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final long[] threadIds;
    private final List<String> threadNames;

    private NamenodeCpu(long[] threadIds, List<String> threadNames) {
        this.threadIds = threadIds;
        this.threadNames = threadNames;
    }

    /** Ids of the threads alive now. */
    public static Set<Long> snapshot() {
        Set<Long> ids = new HashSet<>();
        for (long id : THREADS.getAllThreadIds()) {
            ids.add(id);
        }
        return ids;
    }

    /** The namenode's threads among those started since {@code before} (see the class comment). */
    public static NamenodeCpu namenodeThreadsSince(Set<Long> before) {
        if (!THREADS.isThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM cannot measure per-thread CPU time");
        }
        if (!THREADS.isThreadCpuTimeEnabled()) {
            THREADS.setThreadCpuTimeEnabled(true);
        }
        int lowest = Integer.MAX_VALUE;
        List<ThreadInfo> fresh = new ArrayList<>();
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (t == null || before.contains(t.getThreadId())) {
                continue;
            }
            fresh.add(t);
            Matcher m = TCP_THREAD.matcher(t.getThreadName());
            if (m.matches()) {
                lowest = Math.min(lowest, Integer.parseInt(m.group(1)));
            }
        }
        List<Long> ids = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (ThreadInfo t : fresh) {
            String name = t.getThreadName();
            Matcher m = TCP_THREAD.matcher(name);
            boolean loop = m.matches() && Integer.parseInt(m.group(1)) == lowest;
            if (loop || name.startsWith("tarn-namenode-")) {
                ids.add(t.getThreadId());
                names.add(name);
            }
        }
        if (lowest == Integer.MAX_VALUE) {
            throw new IllegalStateException("no namenode event-loop thread (tarn-tcp-*) started since the snapshot");
        }
        return new NamenodeCpu(ids.stream().mapToLong(Long::longValue).toArray(), List.copyOf(names));
    }

    /** Names of the threads counted, for the record. */
    public List<String> threadNames() {
        return threadNames;
    }

    /** Total CPU time of the namenode's threads so far, in nanoseconds (ended threads count 0). */
    public long namenodeNanos() {
        long sum = 0;
        for (long id : threadIds) {
            long t = THREADS.getThreadCpuTime(id);
            if (t > 0) {
                sum += t;
            }
        }
        return sum;
    }

    /** CPU time of the whole JVM process so far, in nanoseconds; -1 where unsupported. */
    public static long processNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime();
        }
        return -1;
    }
}
