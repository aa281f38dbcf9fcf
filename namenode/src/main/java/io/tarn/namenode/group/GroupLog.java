package io.tarn.namenode.group;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.namenode.journal.SequencedLog;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Status;
import io.tarn.replication.WriteCommand;
import io.tarn.replication.host.BytesPayload;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.GroupRunner.Outcome;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The log of a namenode group's leader: its namespace records become durable once the group's
 * replicated log commits them, that is once a majority of the members wrote them to their
 * journals. The writer thread (group commit, as {@link SequencedLog} describes) encodes each
 * contiguous run of records as journal frames, at most {@value #MAX_WRITE_BYTES} bytes a write, and
 * proposes them as one write of the group ({@link GroupRunner#write}); the next run forms while it
 * commits.
 *
 * <p>The writes are one client session of the group ({@link WriteCommand}'s client id, random per
 * log, and sequence): a write the group did not answer (no quorum within the request timeout, a
 * full window, a leader still syncing) is proposed again, unchanged, every
 * {@value #RETRY_PAUSE_MS} ms, and the core applies it at most once. The log fails for good, and
 * the namenode refuses mutations, when this member is no longer the leader: its namespace may hold
 * changes the group never committed, so it must be rebuilt from the group before it serves again.
 *
 * <p>The members apply the committed records to their namespaces ({@link NamespaceStore}); the
 * leader applied its own when they took effect.
 */
public final class GroupLog extends SequencedLog {
    /** Bytes of records one write of the group carries at most (a run is split beyond). */
    static final int MAX_WRITE_BYTES = 1 << 20;
    /** Pause before a write the group did not answer is proposed again. */
    static final long RETRY_PAUSE_MS = 20;
    /** Namespace writes all conflict: one range for all, so that they apply in log order (IN_ORDER anyway). */
    private static final BlockRange NAMESPACE = new BlockRange(0, 1);

    private final GroupRunner runner;
    private final long clientId = ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    private final ByteBuf out = Unpooled.buffer(64 * 1024);
    private volatile boolean stopping;
    private volatile long writes;
    /** The session's last write; writer thread only. */
    private long sequence;

    /**
     * @param runner   the group's runner on this member, which leads
     * @param lastSeq  the last record this member's namespace holds (every committed one)
     * @param capacity records appended but not yet committed beyond which {@link #full()} holds
     * @param what     the log as messages name it
     */
    public GroupLog(GroupRunner runner, long lastSeq, int capacity, String what) {
        super(what, lastSeq, capacity);
        this.runner = runner;
        startWriter("tarn-namespace-group-log-" + runner.groupId());
    }

    /** Writes the group committed for this log. */
    public long writes() {
        return writes;
    }

    @Override
    public void close() {
        stopping = true;
        super.close();
    }

    @Override
    protected void writeRun(PriorityQueue<Pending> reorder) throws IOException {
        long n = 0;
        for (Pending p = next(reorder); p != null; p = next(reorder)) {
            encode(p, out);
            n++;
            if (out.readableBytes() >= MAX_WRITE_BYTES) {
                replicate();
                durableUpTo(n);
                n = 0;
            }
        }
        if (n > 0) {
            replicate();
            durableUpTo(n);
        }
    }

    /** Proposes what {@link #out} holds and waits until the group committed it. */
    private void replicate() throws IOException {
        long seq = ++sequence;
        WriteCommand write = new WriteCommand(clientId, seq, seq, NAMESPACE, BytesPayload.copyOf(out));
        out.clear();
        while (true) {
            Outcome o;
            try {
                o = runner.write(write).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while the group committed records up to " + written());
            } catch (ExecutionException e) {
                throw new IOException("the group's runner failed: " + e.getCause(), e.getCause());
            }
            if (o.ok()) {
                writes++;
                return;
            }
            if (o.status() == Status.NOT_LEADER || o.status() == Status.ABORTED) {
                throw new LostLeadershipException("this namenode no longer leads its group (" + o.status()
                        + (o.leaderHint() >= 0 ? ", member " + o.leaderHint() + " leads" : "") + ")");
            }
            if (stopping) {
                throw new IOException("closed while the group had not committed records up to " + written()
                        + (o.unavailable() != null ? " (" + o.unavailable() + ")" : ""));
            }
            try {
                TimeUnit.MILLISECONDS.sleep(RETRY_PAUSE_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while the group committed records up to " + written());
            }
        }
    }

    /**
     * RETRY: the namenode rebuilds its namespace from the group and another member may lead by
     * then; a client following the group sends the call again, as ONCE, so a change the group
     * committed is answered from the retry cache and one it lost is applied then.
     */
    @Override
    public ErrorCode failureCode() {
        return ErrorCode.RETRY;
    }

    @Override
    protected void writerStopped() {
        out.release();
    }

    @Override
    protected String failureReason(Throwable e) {
        if (e instanceof LostLeadershipException) {
            return what() + ": " + e.getMessage() + "; it refuses mutations until it has rebuilt its namespace "
                    + "from the group (clients go to the leader)";
        }
        return what() + " failed: " + e.getMessage() + "; the namenode refuses mutations until it has rebuilt its "
                + "namespace from the group";
    }

    /** This member lost the leadership of its group with records not known to be committed. */
    static final class LostLeadershipException extends IOException {
        LostLeadershipException(String message) {
            super(message);
        }
    }
}
