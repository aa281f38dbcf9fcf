package io.tarn.replication;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Linearizable reads on the leader. A read records the leader's last index when it arrives (every
 * write acknowledged before it is at or below), then waits until leadership is confirmed, by a
 * valid lease at arrival or by a quorum echoing a heartbeat sent after arrival (read index), and
 * until every entry up to that index writing an overlapping block is applied.
 */
final class ReadTracker {

    private record PendingRead(ClientRead read, long readIndex, long neededProbe) {
    }

    private final List<PendingRead> pending = new ArrayList<>();

    /** Queues a read; {@code neededProbe} 0 means leadership is already confirmed (lease). */
    void add(ClientRead read, long readIndex, long neededProbe) {
        pending.add(new PendingRead(read, readIndex, neededProbe));
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    /** Returns the reads that may now be served and forgets them. */
    List<ClientRead> release(long confirmedProbe, ReplicaLog log) {
        List<ClientRead> ready = new ArrayList<>();
        for (Iterator<PendingRead> it = pending.iterator(); it.hasNext(); ) {
            PendingRead p = it.next();
            if (p.neededProbe() <= confirmedProbe && writesApplied(log, p.read().range(), p.readIndex())) {
                ready.add(p.read());
                it.remove();
            }
        }
        return ready;
    }

    private static boolean writesApplied(ReplicaLog log, BlockRange range, long readIndex) {
        for (long i = log.appliedPrefix() + 1; i <= readIndex; i++) {
            if (log.isApplied(i)) {
                continue;
            }
            LogEntry e = log.get(i);
            if (e == null || e.range().overlaps(range)) {
                return false;
            }
        }
        return true;
    }

    /** Returns every pending read and forgets them (leadership lost). */
    List<ClientRead> drain() {
        List<ClientRead> out = new ArrayList<>();
        for (PendingRead p : pending) {
            out.add(p.read());
        }
        pending.clear();
        return out;
    }
}
