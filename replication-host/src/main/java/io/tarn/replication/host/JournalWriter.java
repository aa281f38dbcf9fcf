package io.tarn.replication.host;

import io.tarn.replication.DiskOp;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The datanode's one journal writer thread, shared by every {@link GroupJournal}: group commit.
 *
 * <p>Appends land in one bounded queue. The thread takes everything queued at once as a batch,
 * encodes each group's records into that group's staging buffer, then per group file issues one
 * write and one force, and only then reports every op of the batch durable, in queue order. While a
 * batch is being forced, new appends queue up and form the next batch, so the number of forces
 * follows the number of batches and groups touched, not the number of operations. A full queue is
 * back-pressure, returned as {@link Admission#BUSY}.
 *
 * <p>Death: if the thread itself fails with anything its per-journal handling does not catch (an
 * {@link Error} such as a heap {@link OutOfMemoryError}, a bug), it logs one ERROR with the cause,
 * records it ({@link #death()}), fails every registered journal with a reason naming it (each
 * listener hears {@code failed} once) and ends; queued ops are never acknowledged, queued tasks run
 * on the dying thread, and every later append, and every journal opened later, fails at once. Nothing
 * restarts it: restart the datanode.
 */
public final class JournalWriter implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JournalWriter.class);
    /** Default queue bound, in operations. */
    public static final int DEFAULT_CAPACITY = 4096;
    /** Most files forced at once. */
    private static final int FORCERS = 16;

    /** A queued operation, or a task to run on the writer thread after its batch. */
    private static final class Request {
        final GroupJournal journal;
        final DiskOp op;
        final Callable<?> task;
        final CompletableFuture<Object> done;

        Request(GroupJournal journal, DiskOp op, Callable<?> task) {
            this.journal = journal;
            this.op = op;
            this.task = task;
            this.done = task == null ? null : new CompletableFuture<>();
        }
    }

    private static final Request STOP = new Request(null, null, null);

    private final ArrayBlockingQueue<Request> queue;
    private final JournalListener listener;
    private final Thread thread;
    private final Set<GroupJournal> journals = ConcurrentHashMap.newKeySet();
    /** Journals written in the current batch, to force (writer thread only). */
    private final List<GroupJournal> forcing = new ArrayList<>();
    /** Threads that force several group files at once. */
    private final ExecutorService forcers;
    /** The thread that saves the images of own-state checkpoints in the background ({@link GroupJournal#stage}). */
    private final ExecutorService imageSaver;
    private volatile boolean closed;
    /** Why the writer thread died, or null while it runs. */
    private volatile String death;
    private final AtomicLong forces = new AtomicLong();
    private volatile long batches;
    private volatile long acknowledged;

    /** Starts the writer thread with a queue of {@code capacity} operations reporting to {@code listener}. */
    public JournalWriter(int capacity, JournalListener listener) {
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.listener = listener;
        AtomicInteger forcerIds = new AtomicInteger();
        this.forcers = Executors.newFixedThreadPool(FORCERS, r -> {
            Thread t = new Thread(r, "tarn-journal-forcer-" + forcerIds.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        this.imageSaver = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tarn-journal-images");
            t.setDaemon(true);
            return t;
        });
        this.thread = new Thread(this::run, "tarn-journal-writer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Forces issued so far (one per group file per batch, plus one per segment change). */
    public long forces() {
        return forces.get();
    }

    /** Batches written so far. */
    public long batches() {
        return batches;
    }

    /** Operations reported durable so far. */
    public long acknowledged() {
        return acknowledged;
    }

    /** Why the writer thread died (its uncaught failure), or null while it runs or after a clean close. */
    public String death() {
        return death;
    }

    /** Adds a journal to those the writer serves; one opened after the writer died fails at once. */
    void register(GroupJournal j) {
        journals.add(j);
        String d = death;
        if (d != null && journals.remove(j)) {
            report(j, new IOException(d));
        }
    }

    void unregister(GroupJournal j) {
        journals.remove(j);
    }

    Admission offer(GroupJournal j, DiskOp op) {
        if (closed || death != null) {
            return Admission.FAILED;
        }
        return queue.offer(new Request(j, op, null)) ? Admission.QUEUED : Admission.BUSY;
    }

    /** Runs {@code task} on the writer thread after the operations queued before it; waits for its result. */
    <T> T call(GroupJournal j, Callable<T> task) {
        try {
            if (Thread.currentThread() == thread || !thread.isAlive()) {
                return task.call();
            }
            Request r = new Request(j, null, task);
            putUninterruptibly(r);
            while (true) {
                try {
                    @SuppressWarnings("unchecked")
                    T result = (T) r.done.get(100, TimeUnit.MILLISECONDS);
                    return result;
                } catch (TimeoutException e) {
                    // Queued after the thread drained its queue for the last time: run it here.
                    if (!thread.isAlive() && queue.remove(r)) {
                        return task.call();
                    }
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("journal task failed", e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException("journal task failed", e);
        }
    }

    /** Has the image thread save {@code j}'s deferred checkpoint image ({@link GroupJournal#saveDeferred}). */
    void saveImage(GroupJournal j) {
        try {
            imageSaver.execute(j::saveDeferred);
        } catch (RejectedExecutionException e) {
            // Closing: the checkpoint stays unrecorded, which replay does not need.
        }
    }

    /**
     * Runs {@code task} on the writer thread after the operations queued before it, without waiting
     * for it; dropped once the writer is closed or dead (what it would have written is then moot).
     */
    void submit(GroupJournal j, Runnable task) {
        Request r = new Request(j, null, () -> {
            task.run();
            return null;
        });
        try {
            while (!closed && death == null && thread.isAlive()) {
                if (queue.offer(r, 100, TimeUnit.MILLISECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void countForce() {
        forces.incrementAndGet();
    }

    private void putUninterruptibly(Request r) {
        boolean interrupted = false;
        while (true) {
            try {
                queue.put(r);
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        List<Request> batch = new ArrayList<>();
        List<GroupJournal> touched = new ArrayList<>();
        try {
            boolean stop = false;
            while (!stop) {
                try {
                    batch.add(queue.take());
                } catch (InterruptedException e) {
                    break;
                }
                queue.drainTo(batch);
                stop = process(batch, touched);
                batch.clear();
                touched.clear();
            }
        } catch (Throwable t) {
            die(t, batch);
        }
        for (GroupJournal j : journals) {
            j.closeFiles();
        }
        journals.clear();
    }

    /**
     * The thread failed outside its per-journal handling: no op will ever be acknowledged again, so
     * every journal fails now, naming the cause, instead of leaving its group waiting on a queue that
     * nobody drains (and a datanode that looks healthy from outside).
     */
    private void die(Throwable t, List<Request> batch) {
        String reason = "the journal writer thread died (" + t + "), so no journal on this datanode acknowledges "
                + "anything any more; restart the datanode";
        death = reason;
        try {
            LOG.error("{}", reason, t);
        } catch (Throwable ignored) {
            // Logging may fail too (out of memory); the reason is recorded and reported below.
        }
        IOException cause = new IOException(reason, t);
        for (GroupJournal j : journals) {
            try {
                j.inBatch = false;
                report(j, cause);
            } catch (Throwable x) {
                // Go on with the other journals.
            }
        }
        // Tasks wait for an answer (a journal closing): run them here; queued ops are never acknowledged.
        queue.drainTo(batch);
        for (Request r : batch) {
            if (r.task != null && !r.done.isDone()) {
                try {
                    r.done.complete(r.task.call());
                } catch (Throwable x) {
                    r.done.completeExceptionally(x);
                }
            }
        }
        batch.clear();
    }

    /** Writes one batch; returns true when it held the stop marker. */
    private boolean process(List<Request> batch, List<GroupJournal> touched) {
        boolean stop = false;
        int end = batch.size();
        for (int i = 0; i < batch.size(); i++) {
            Request r = batch.get(i);
            if (r == STOP) {
                stop = true;
                end = i;
                break;
            }
            if (r.op == null || r.journal.failed()) {
                continue;
            }
            try {
                r.journal.stage(r.op);
                if (!r.journal.inBatch) {
                    r.journal.inBatch = true;
                    touched.add(r.journal);
                }
            } catch (IOException | RuntimeException e) {
                report(r.journal, e);
            }
        }
        writeAndForce(touched);
        for (int i = 0; i < end; i++) {
            Request r = batch.get(i);
            if (r.op != null && r.journal.inBatch && !r.journal.failed()) {
                acknowledged++;
                try {
                    listener.durable(r.journal.groupId(), r.op.id());
                } catch (RuntimeException e) {
                    LOG.error("journal listener failed on group {} op {}", r.journal.groupId(), r.op.id(), e);
                }
            }
        }
        for (int i = 0; i < touched.size(); i++) {
            GroupJournal j = touched.get(i);
            j.inBatch = false;
            if (!j.failed()) {
                try {
                    j.afterBatch();
                } catch (IOException | RuntimeException e) {
                    report(j, e);
                }
            }
        }
        for (int i = 0; i < end; i++) {
            Request r = batch.get(i);
            if (r.task != null) {
                try {
                    r.done.complete(r.task.call());
                } catch (Exception e) {
                    r.done.completeExceptionally(e);
                }
            }
        }
        batches++;
        return stop;
    }

    /**
     * Writes each touched journal's staged records, then forces the files. Several files are forced at
     * once by the forcer threads: a file system commits concurrent fsyncs together (ext4 and xfs share
     * one journal commit among them), so a batch spanning many groups costs about one force, not one per
     * group in turn.
     */
    private void writeAndForce(List<GroupJournal> touched) {
        List<GroupJournal> toForce = forcing;
        toForce.clear();
        for (int i = 0; i < touched.size(); i++) {
            GroupJournal j = touched.get(i);
            if (j.failed()) {
                continue;
            }
            try {
                if (j.writeStaged()) {
                    toForce.add(j);
                }
            } catch (IOException | RuntimeException e) {
                report(j, e);
            }
        }
        if (toForce.size() == 1) {
            force(toForce.get(0));
        } else if (toForce.size() > 1) {
            CountDownLatch done = new CountDownLatch(toForce.size());
            for (int i = 0; i < toForce.size(); i++) {
                GroupJournal j = toForce.get(i);
                forcers.execute(() -> {
                    force(j);
                    done.countDown();
                });
            }
            awaitUninterruptibly(done);
        }
    }

    private void force(GroupJournal j) {
        try {
            j.force();
        } catch (IOException | RuntimeException e) {
            report(j, e);
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Fails {@code j} and tells the listener, once. */
    void report(GroupJournal j, Exception e) {
        IOException io = e instanceof IOException x ? x : new IOException("cannot record an operation: " + e, e);
        String reason = j.fail(io);
        if (reason != null) {
            try {
                listener.failed(j.groupId(), reason);
            } catch (RuntimeException x) {
                LOG.error("journal listener failed on group {}", j.groupId(), x);
            }
        }
    }

    /** Writes what is queued, closes every journal's files and stops the thread. */
    @Override
    public void close() {
        closed = true;
        imageSaver.shutdownNow();
        if (thread.isAlive()) {
            putUninterruptibly(STOP);
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        forcers.shutdown();
    }
}
