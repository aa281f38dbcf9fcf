package io.tarn.replication;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The replicated at-most-once table: which client sequence numbers have been applied.
 *
 * <p>A write is a duplicate when its sequence is below the client's floor or already applied.
 * With out-of-order apply two replicas may apply a client's writes in different orders, so the
 * floor only advances as the applied <em>prefix</em> passes an entry; then every replica sees the
 * same floor for the same entry and makes the same duplicate decision. An earlier copy of a retried
 * write always applies first because copies write the same range and so apply in log order.
 */
final class Sessions {

    private final Map<Long, Session> byClient = new HashMap<>();

    private static final class Session {
        long floor = 1;
        final TreeSet<Long> applied = new TreeSet<>();
    }

    /** Whether the write was already applied (or can no longer be retried). */
    boolean isDuplicate(long clientId, long sequence) {
        Session s = byClient.get(clientId);
        return s != null && (sequence < s.floor || s.applied.contains(sequence));
    }

    /** Records that the write was applied. */
    void recordApplied(WriteCommand command) {
        byClient.computeIfAbsent(command.clientId(), id -> new Session()).applied.add(command.sequence());
    }

    /** The applied prefix has passed this write: its floor may be forgotten below. */
    void onPrefixPassed(WriteCommand command) {
        Session s = byClient.computeIfAbsent(command.clientId(), id -> new Session());
        if (command.firstUnacked() > s.floor) {
            s.floor = command.firstUnacked();
            s.applied.headSet(s.floor).clear();
        }
    }

    /** An immutable copy for a checkpoint. */
    Map<Long, SessionSnapshot> snapshot() {
        Map<Long, SessionSnapshot> out = new HashMap<>();
        byClient.forEach((id, s) -> out.put(id, new SessionSnapshot(s.floor, List.copyOf(s.applied))));
        return out;
    }

    /** Replaces the table with a checkpoint's. */
    void restore(Map<Long, SessionSnapshot> snapshot) {
        byClient.clear();
        snapshot.forEach((id, snap) -> {
            Session s = new Session();
            s.floor = snap.floor();
            s.applied.addAll(snap.appliedSeqs());
            byClient.put(id, s);
        });
    }
}
