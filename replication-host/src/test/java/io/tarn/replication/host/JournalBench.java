package io.tarn.replication.host;

import io.tarn.replication.BlockRange;
import io.tarn.replication.DiskOp;
import io.tarn.replication.LogEntry;
import io.tarn.replication.PersistentState;
import io.tarn.replication.WriteCommand;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Group-commit figures of {@link GroupJournal} on a real disk: closed-loop appenders, each waiting for
 * its 4 KiB entry to be durable before appending the next, either all into one group or one group
 * each. Run: {@code java -cp <test classpath> io.tarn.replication.host.JournalBench <dir> [seconds]}.
 */
public final class JournalBench {
    private JournalBench() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        System.out.printf("%-10s %9s %10s %10s %10s %12s%n", "groups", "appenders", "ops/s", "forces/s", "ops/force",
                "MiB/s");
        for (boolean shared : new boolean[] {true, false}) {
            for (int appenders : new int[] {1, 8, 32}) {
                run(Files.createTempDirectory(root, "bench"), appenders, shared, seconds);
            }
        }
    }

    private static void run(Path dir, int appenders, boolean oneGroup, int seconds) throws Exception {
        Map<Long, Thread> waiting = new ConcurrentHashMap<>();
        JournalListener listener = new JournalListener() {
            @Override
            public void durable(long groupId, long opId) {
                Thread t = waiting.remove(opId);
                if (t != null) {
                    LockSupport.unpark(t);
                }
            }

            @Override
            public void failed(long groupId, String reason) {
                System.err.println(reason);
            }
        };
        byte[] data = new byte[4096];
        BytesPayload payload = BytesPayload.copyOf(data);
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong ops = new AtomicLong();
        try (JournalWriter writer = new JournalWriter(JournalWriter.DEFAULT_CAPACITY, listener)) {
            List<GroupJournal> journals = new ArrayList<>();
            int groups = oneGroup ? 1 : appenders;
            for (int g = 0; g < groups; g++) {
                Path d = dir.resolve("group-" + g);
                Files.createDirectories(d);
                journals.add(GroupJournal.open(g, d, PersistentState.initialVoter(), writer, new FileImageStore(d),
                        GroupJournal.DEFAULT_SEGMENT_BYTES));
            }
            List<Thread> threads = new ArrayList<>();
            for (int a = 0; a < appenders; a++) {
                GroupJournal j = journals.get(oneGroup ? 0 : a);
                long base = (a + 1) * 1_000_000_000L;
                threads.add(new Thread(() -> {
                    for (long k = 1; !stop.get(); k++) {
                        long id = base + k;
                        BlockRange range = new BlockRange((k % 1024) * 4096, 4096);
                        LogEntry e = new LogEntry(1, id, range, List.of(), new WriteCommand(1, k, k, range, payload));
                        waiting.put(id, Thread.currentThread());
                        while (j.append(new DiskOp.PersistEntries(id, List.of(e))) == Admission.BUSY) {
                            Thread.onSpinWait();
                        }
                        while (waiting.containsKey(id)) {
                            LockSupport.park();
                        }
                        if (measuring.get()) {
                            ops.incrementAndGet();
                        }
                    }
                }));
            }
            threads.forEach(Thread::start);
            Thread.sleep(500);
            long forces0 = writer.forces();
            measuring.set(true);
            long t0 = System.nanoTime();
            Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
            measuring.set(false);
            double secs = (System.nanoTime() - t0) / 1e9;
            long forces = writer.forces() - forces0;
            long n = ops.get();
            stop.set(true);
            for (Thread t : threads) {
                t.join();
            }
            for (GroupJournal j : journals) {
                j.close();
            }
            System.out.printf("%-10s %9d %10.0f %10.0f %10.2f %12.1f%n", oneGroup ? "1" : appenders + "", appenders,
                    n / secs, forces / secs, (double) n / Math.max(1, forces), n * 4096 / secs / (1 << 20));
        }
    }
}
