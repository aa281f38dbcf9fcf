package io.tarn.tools.chaos;

import io.tarn.client.TarnClient;
import io.tarn.client.TarnInputStream;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.fs.FileStatus;
import io.tarn.tools.chaos.check.Operation;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Client threads writing and reading registers, one file per key, each with a TarnClient of its
 * own: a write creates {@code /chaos/k<n>} (a key no one used), writes a unique value and closes it;
 * a read looks the file up and reads it whole. The register model fits Tarn's files: a file is
 * written once by one writer and becomes complete when closed, so a read of a missing file, or of
 * one still being written, returns "absent", and the write takes effect at its close.
 *
 * <p>Reads pick among the most recent keys, those being written included, so that reads and writes
 * of one key overlap. Outcomes: a write the namenode refused before creating anything failed, and
 * so did one refused a block for space whose file it then deleted (never closed, it never became
 * readable); any other write error leaves it indeterminate (it may have been closed). Read errors return no value;
 * the checker ignores such reads.
 */
final class Workload {
    static final String DIRECTORY = "/chaos";
    private static final int RECENT_KEYS = 16;
    /**
     * Pause of a client after a failed operation: while a datanode is down and not yet counted dead,
     * writes to it fail at once, and a client going straight on would record thousands of them.
     */
    private static final long BACKOFF_MS = 50;
    /** Errors that prove a create did nothing. */
    private static final Set<ErrorCode> REFUSED = EnumSet.of(ErrorCode.NO_SPACE, ErrorCode.INVALID_ARGUMENT,
            ErrorCode.INVALID_PATH, ErrorCode.FILE_EXISTS, ErrorCode.PARENT_NOT_FOUND, ErrorCode.LEASE_CONFLICT);

    private final TarnConfig config;
    private final History history;
    private final int clients;
    private final long seed;
    private final int valueSize;
    private final AtomicLong nextKey = new AtomicLong();
    private final Map<String, String> acknowledged = new ConcurrentSkipListMap<>();
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
    private final AtomicReferenceArray<History.Pending> pending;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;

    Workload(TarnConfig config, History history, int clients, long seed, int valueSize) {
        this.config = config;
        this.history = history;
        this.clients = clients;
        this.seed = seed;
        this.valueSize = valueSize;
        this.pending = new AtomicReferenceArray<>(clients);
    }

    static String path(String key) {
        return DIRECTORY + "/" + key;
    }

    void start() throws IOException {
        try (TarnClient client = TarnClient.connect(config)) {
            client.mkdirs(DIRECTORY);
        }
        for (int c = 0; c < clients; c++) {
            int id = c;
            Thread t = new Thread(() -> runClient(id), "tarn-chaos-client-" + c);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /**
     * Stops the clients after their current operation; an operation still running after
     * {@code waitMs} is recorded as indeterminate.
     */
    void stop(long waitMs) throws InterruptedException {
        stopping = true;
        long deadline = System.nanoTime() + waitMs * 1_000_000;
        for (Thread t : threads) {
            t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        }
        for (int c = 0; c < clients; c++) {
            History.Pending op = pending.getAndSet(c, null);
            if (op != null) {
                history.complete(op, Operation.Outcome.INDETERMINATE, null, "still running when the workload stopped");
            }
        }
    }

    /** Acknowledged writes: key to value. */
    Map<String, String> acknowledged() {
        return acknowledged;
    }

    /** Operations by kind and outcome, e.g. "write ok" = 120. */
    Map<String, AtomicLong> counts() {
        return counts;
    }

    private void runClient(int id) {
        Random random = new Random(seed * 1_000_003 + id);
        try (TarnClient client = TarnClient.connect(config)) {
            while (!stopping) {
                boolean ok;
                if (random.nextInt(10) < 4) {
                    ok = write(client, id, random);
                } else {
                    long next = nextKey.get();
                    long key = Math.max(0, next - RECENT_KEYS) + random.nextInt((int) Math.min(next, RECENT_KEYS) + 2);
                    ok = tryRead(client, id, "k" + key);
                }
                if (!ok) {
                    Thread.sleep(BACKOFF_MS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes a fresh key; true when acknowledged. */
    private boolean write(TarnClient client, int id, Random random) {
        String key = "k" + nextKey.getAndIncrement();
        String value = "c" + id + "-" + key + "-" + Integer.toHexString(random.nextInt());
        History.Pending op = begin(id, Operation.Kind.WRITE, key, value);
        TarnOutputStream out;
        try {
            out = client.create(path(key));
        } catch (IOException | RuntimeException e) {
            boolean refused = e instanceof TarnError err && REFUSED.contains(err.code());
            end(op, refused ? Operation.Outcome.FAILED : Operation.Outcome.INDETERMINATE, null, e);
            return false;
        }
        try {
            out.write(Values.encode(value, valueSize));
            out.close();
            end(op, Operation.Outcome.OK, null, null);
            acknowledged.put(key, value);
            return true;
        } catch (IOException | RuntimeException e) {
            try {
                out.close(); // fails again, with the same error: only releases the stream
            } catch (IOException | RuntimeException ignored) {
                // The write's error is the one recorded.
            }
            end(op, refusedForSpace(e) && deleted(client, key) ? Operation.Outcome.FAILED
                    : Operation.Outcome.INDETERMINATE, null, e);
            return false;
        }
    }

    /**
     * Whether {@code e} is the namenode refusing a block for lack of space: the file was never
     * closed (its close fails with the same error), so once deleted it never becomes readable.
     */
    private static boolean refusedForSpace(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TarnError err && err.code() == ErrorCode.NO_SPACE) {
                return true;
            }
        }
        return false;
    }

    /** Deletes the file of a write that failed; true when it is gone for good. */
    private static boolean deleted(TarnClient client, String key) {
        try {
            return client.delete(path(key), false);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Reads {@code key} as client {@code id}, recording it; returns the value (null: absent). */
    String read(TarnClient client, int id, String key) {
        History.Pending op = begin(id, Operation.Kind.READ, key, null);
        try {
            String value = readValue(client, key);
            end(op, Operation.Outcome.OK, value, null);
            return value;
        } catch (IOException | RuntimeException e) {
            end(op, Operation.Outcome.INDETERMINATE, null, e);
            throw new ReadFailed(key, e);
        }
    }

    private boolean tryRead(TarnClient client, int id, String key) {
        try {
            read(client, id, key);
            return true;
        } catch (ReadFailed e) {
            return false;
        }
    }

    /** A read that failed; its cause says why. */
    static final class ReadFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ReadFailed(String key, Throwable cause) {
            super("read of " + key + " failed: " + describe(cause), cause);
        }
    }

    private String readValue(TarnClient client, String key) throws IOException {
        FileStatus status;
        try {
            status = client.getStatus(path(key));
        } catch (FileNotFoundException e) {
            return null;
        }
        if (status.underConstruction()) {
            return null; // not written yet: a write takes effect when its file is closed
        }
        byte[] bytes = new byte[(int) status.size()];
        try (TarnInputStream in = client.open(path(key))) {
            in.readFully(0, bytes, 0, bytes.length);
        }
        return Values.decode(bytes, valueSize);
    }

    private History.Pending begin(int id, Operation.Kind kind, String key, String value) {
        History.Pending op = history.invoke(id, kind, key, value);
        if (id < clients) {
            pending.set(id, op);
        }
        return op;
    }

    private void end(History.Pending op, Operation.Outcome outcome, String value, Throwable error) {
        int id = op.client();
        if (id < clients && !pending.compareAndSet(id, op, null)) {
            return; // already recorded as indeterminate by stop()
        }
        history.complete(op, outcome, value, error == null ? null : describe(error));
        String name = op.kind().name().toLowerCase() + " " + outcome.name().toLowerCase();
        counts.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
    }

    static String describe(Throwable e) {
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
