package io.tarn.replication.host;

import io.tarn.replication.BlockRange;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.DiskOp;
import io.tarn.replication.LogEntry;
import io.tarn.replication.Message;
import io.tarn.replication.Payload;
import io.tarn.replication.PersistentState;
import io.tarn.replication.Replica;
import io.tarn.replication.ReplicationConfig;
import io.tarn.replication.StateImage;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * Three {@link GroupRunner}s of one group on real {@link ReplicationLoops} threads, wired to each
 * other in memory: messages are handed straight to the target runner (unless it is cut off), the
 * journal completes each write after a short delay on its own thread, and the block state is a
 * byte array. Tests the host's threading, timing and effect handling without sockets or disks.
 */
final class LocalGroup implements AutoCloseable {

    static final long GROUP = 42;
    static final int SIZE = 4096;
    static final ReplicationConfig CONFIG = ReplicationConfig.builder().checkpointInterval(64).build();
    static final long TICK = TimeUnit.MILLISECONDS.toNanos(1);

    /** A test payload: the bytes of a string, compared by content. */
    record Bytes(String text) implements Payload {
        byte[] bytes() {
            return text.getBytes(StandardCharsets.ISO_8859_1);
        }

        @Override
        public int length() {
            return text.length();
        }
    }

    /** An image: a copy of the whole array. */
    record Image(byte[] bytes) implements StateImage {
        @Override
        public long sizeBytes() {
            return bytes.length;
        }
    }

    /** The state of one member: an array of bytes. */
    static final class ArrayStore implements GroupStore {
        final byte[] bytes = new byte[SIZE];
        int applied;

        @Override
        public void apply(LogEntry entry) {
            byte[] data = ((Bytes) entry.command().payload()).bytes();
            System.arraycopy(data, 0, bytes, (int) entry.range().first(), entry.range().count());
            applied++;
        }

        @Override
        public byte[] read(BlockRange range) {
            return Arrays.copyOfRange(bytes, (int) range.first(), (int) range.end());
        }

        @Override
        public StateImage capture(CheckpointMeta meta) {
            return new Image(bytes.clone());
        }

        @Override
        public void restore(Checkpoint checkpoint) {
            byte[] image = ((Image) checkpoint.image()).bytes();
            System.arraycopy(image, 0, bytes, 0, SIZE);
        }
    }

    /** One set of loops per member, as each member runs on its own datanode. */
    final Map<Integer, ReplicationLoops> loops = new HashMap<>();
    final ScheduledExecutorService disk = Executors.newSingleThreadScheduledExecutor();
    final Map<Integer, GroupRunner> runners = new ConcurrentHashMap<>();
    final Map<Integer, ArrayStore> stores = new HashMap<>();
    final Map<Integer, List<DiskOp>> journals = new ConcurrentHashMap<>();
    /** Members whose messages, in and out, are dropped. */
    final Set<Integer> cut = ConcurrentHashMap.newKeySet();
    /** Members whose journal completes nothing until {@link #resumeDisk}: a disk that stalled. */
    private final Map<Integer, List<Long>> stalledDisks = new HashMap<>();
    final List<Integer> members = List.of(0, 1, 2);

    LocalGroup() {
        this(64L << 20);
    }

    /** A group whose members may each hold {@code heldBytes} of writes while their window is full. */
    LocalGroup(long heldBytes) {
        this(m -> new HeldWrites.Budget(heldBytes));
    }

    /** A group whose member {@code m} holds writes within {@code budgets.apply(m)}. */
    LocalGroup(IntFunction<HeldWrites.Budget> budgets) {
        this(budgets, TICK);
    }

    /** A group whose loops' timers fire every {@code timerNanos} (several ticks at once beyond one tick). */
    static LocalGroup withTimer(long timerNanos) {
        return new LocalGroup(m -> new HeldWrites.Budget(64L << 20), timerNanos);
    }

    private LocalGroup(IntFunction<HeldWrites.Budget> budgets, long timerNanos) {
        Map<Integer, String> names = new HashMap<>();
        for (int m : members) {
            names.put(m, "member " + m);
        }
        for (int m : members) {
            ArrayStore store = new ArrayStore();
            stores.put(m, store);
            journals.put(m, new ArrayList<>());
            Replica replica = new Replica(CONFIG, m, members, PersistentState.initialVoter(), m + 1);
            ReplicationLoops own = new ReplicationLoops(1, timerNanos, "test-replication-" + m);
            loops.put(m, own);
            GroupRunner runner = new GroupRunner(GROUP, replica, names, own.loopFor(GROUP), outputs(m), store,
                    CONFIG, TICK, TimeUnit.SECONDS.toNanos(2), budgets.apply(m), "datanode");
            runners.put(m, runner);
            own.add(runner);
        }
    }

    private GroupOutputs outputs(int member) {
        return new GroupOutputs() {
            @Override
            public void send(long groupId, Message message) {
                if (!cut.contains(message.from()) && !cut.contains(message.to())) {
                    runners.get(message.to()).deliver(message);
                }
            }

            @Override
            public void persist(long groupId, DiskOp op) {
                synchronized (journals.get(member)) {
                    journals.get(member).add(op);
                    List<Long> stalled = stalledDisks.get(member);
                    if (stalled != null) {
                        stalled.add(op.id());
                        return;
                    }
                }
                disk.schedule(() -> runners.get(member).durable(op.id()), 200, TimeUnit.MICROSECONDS);
            }
        };
    }

    /** From now on {@code member}'s journal completes nothing (its writes are kept). */
    void stallDisk(int member) {
        synchronized (journals.get(member)) {
            stalledDisks.put(member, new ArrayList<>());
        }
    }

    /** Completes what {@code member}'s stalled journal kept, and every later write as usual. */
    void resumeDisk(int member) {
        List<Long> stalled;
        synchronized (journals.get(member)) {
            stalled = stalledDisks.remove(member);
        }
        if (stalled != null && !stalled.isEmpty()) {
            long last = stalled.get(stalled.size() - 1);
            disk.execute(() -> runners.get(member).durable(last));
        }
    }

    GroupRunner runner(int member) {
        return runners.get(member);
    }

    /** Runs {@code query} on {@code member}'s loop thread and returns its answer. */
    <T> T onLoop(int member, Supplier<T> query) throws Exception {
        return runners.get(member).loop().submit(query::get).get(5, TimeUnit.SECONDS);
    }

    /** The member that leads and serves, or -1. */
    int activeLeader() throws Exception {
        for (int m : members) {
            if (!cut.contains(m) && onLoop(m, () -> runners.get(m).replica().isActiveLeader())) {
                return m;
            }
        }
        return -1;
    }

    @Override
    public void close() {
        loops.values().forEach(ReplicationLoops::close);
        disk.shutdownNow();
    }
}
