package io.tarn.replication.host;

import io.tarn.replication.WriteCommand;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * The client writes one group's leader holds back while its window is full, and the line of
 * writes it had to bounce. Loop thread only, except the shared {@link Budget}.
 *
 * <p><b>Held.</b> A write the replica refuses {@code BUSY} is kept here in arrival order and
 * proposed again once the group made progress, instead of going back to its client. Each held
 * write is charged its payload plus {@value #OVERHEAD} bytes of bookkeeping against the group's
 * share (half the datanode's budget, so that one hot group leaves room for the others) and against
 * the datanode's {@link Budget}, shared by every group it hosts ({@code tarn.replication.held.bytes}).
 * A group that holds nothing and has nobody in line may always hold one write, however large.
 *
 * <p><b>The line.</b> A write that finds no room is bounced {@code BUSY}; its client tries it
 * again with the same sequence after a pause of at most 64 ms. Bounced writes used to race every
 * newer write for each place that freed up, and a write that lost every race failed after the
 * client's timeout while later ones went through (32 writers of 1 MiB with 4 MiB of write-behind
 * each offer 128 MiB). Now a bounced write takes a place in line, in the order first bounced, and
 * the room that frees up goes to the line first: a write is held only when the room left covers it
 * and every write in line ahead of it (all of the line for a write not in it). The line records a
 * write's size, not its bytes. A place is kept {@link #KEEP_NANOS} after its write's last attempt
 * (a client that gave up, or went to a new leader, loses it) and the line holds at most
 * {@value #MAX_LINE} places; a write bounced when it is full retries without one.
 */
final class HeldWrites {
    /** Bytes charged per held write on top of its payload: the command, its futures and deadlines. */
    static final int OVERHEAD = 256;
    /** How long a place in line is kept after its write's last attempt. */
    static final long KEEP_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** Most places in line. */
    static final int MAX_LINE = 4096;

    /**
     * The bytes of held writes that the groups of one datanode may hold together. The limit is
     * exceeded only by the one write a group holding nothing may always hold. Thread-safe.
     */
    static final class Budget {
        private final long limit;
        private final AtomicLong used = new AtomicLong();

        /** A budget of {@code limit} bytes (at least 1). */
        Budget(long limit) {
            if (limit < 1) {
                throw new IllegalArgumentException("limit must be positive: " + limit);
            }
            this.limit = limit;
        }

        /**
         * Takes {@code bytes} when they fit beside {@code reserved} more bytes (promised to writes
         * in line), or always when {@code force}.
         */
        boolean take(long bytes, long reserved, boolean force) {
            while (true) {
                long now = used.get();
                if (!force && now + reserved + bytes > limit) {
                    return false;
                }
                if (used.compareAndSet(now, now + bytes)) {
                    return true;
                }
            }
        }

        void give(long bytes) {
            used.addAndGet(-bytes);
        }

        long used() {
            return used.get();
        }

        long limit() {
            return limit;
        }
    }

    /** A place in line. */
    private static final class Place {
        final long bytes;
        long lastAttempt;

        Place(long bytes, long lastAttempt) {
            this.bytes = bytes;
            this.lastAttempt = lastAttempt;
        }
    }

    private final ArrayDeque<WriteCommand> queue = new ArrayDeque<>();
    private final LinkedHashMap<GroupRunner.WriteKey, Place> line = new LinkedHashMap<>();
    private final Budget budget;
    private final long groupLimit;
    /** Bytes charged for the held writes, including the one taken out to be proposed. */
    private long bytes;

    /** Held writes of one group, charged to {@code budget}; the group may take half of it. */
    HeldWrites(Budget budget) {
        this.budget = budget;
        this.groupLimit = Math.max(1, budget.limit() / 2);
    }

    static long charge(WriteCommand c) {
        return (long) c.payload().length() + OVERHEAD;
    }

    static GroupRunner.WriteKey key(WriteCommand c) {
        return new GroupRunner.WriteKey(c.clientId(), c.sequence());
    }

    /**
     * Holds {@code c} behind the held writes if the room left covers it and the writes in line
     * ahead of it (it then leaves the line); false if not, and nothing changed.
     */
    boolean tryAdd(WriteCommand c, long now) {
        long charge = charge(c);
        GroupRunner.WriteKey key = key(c);
        long ahead = line.isEmpty() ? 0 : bytesAhead(key, now);
        boolean only = queue.isEmpty() && bytes == 0 && ahead == 0;
        if (!only && bytes + ahead + charge > groupLimit || !budget.take(charge, ahead, only)) {
            return false;
        }
        if (!line.isEmpty()) {
            line.remove(key);
        }
        queue.addLast(c);
        bytes += charge;
        return true;
    }

    /** The oldest held write, taken out to be proposed (still charged): then {@link #putBack} or {@link #done}. */
    WriteCommand takeFirst() {
        return queue.pollFirst();
    }

    /** {@code c}, taken out by {@link #takeFirst}, was refused again: it stays first. */
    void putBack(WriteCommand c) {
        queue.addFirst(c);
    }

    /** {@code c}, taken out by {@link #takeFirst}, left for good (proposed or dropped): its room is free. */
    void done(WriteCommand c) {
        long charge = charge(c);
        bytes -= charge;
        budget.give(charge);
    }

    /** {@code c} was bounced {@code BUSY}: it joins the line, or keeps its place and is kept longer. */
    void bounced(WriteCommand c, long now) {
        GroupRunner.WriteKey key = key(c);
        Place place = line.get(key);
        if (place != null) {
            place.lastAttempt = now;
        } else if (line.size() < MAX_LINE) {
            line.put(key, new Place(charge(c), now));
        }
    }

    /** {@code key} went to the replica without being held (a window with room): it leaves the line. */
    void leaveLine(GroupRunner.WriteKey key) {
        if (!line.isEmpty()) {
            line.remove(key);
        }
    }

    /** Drops the held writes {@code abandoned} selects (nobody waits for them), freeing their room. */
    void dropIf(Predicate<WriteCommand> abandoned) {
        queue.removeIf(c -> {
            if (abandoned.test(c)) {
                done(c);
                return true;
            }
            return false;
        });
    }

    /** Drops every held write and place, freeing their room. */
    void clear() {
        budget.give(bytes);
        bytes = 0;
        queue.clear();
        line.clear();
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    int size() {
        return queue.size();
    }

    /** Bytes charged for the held writes. */
    long bytes() {
        return bytes;
    }

    /** Places in line. */
    int waiting() {
        return line.size();
    }

    /** Bytes of the places ahead of {@code key} (of the whole line if it holds none); drops stale places. */
    private long bytesAhead(GroupRunner.WriteKey key, long now) {
        long ahead = 0;
        for (Iterator<Map.Entry<GroupRunner.WriteKey, Place>> it = line.entrySet().iterator();
             it.hasNext(); ) {
            Map.Entry<GroupRunner.WriteKey, Place> e = it.next();
            if (now - e.getValue().lastAttempt > KEEP_NANOS) {
                it.remove();
            } else if (e.getKey().equals(key)) {
                return ahead;
            } else {
                ahead += e.getValue().bytes;
            }
        }
        return ahead;
    }
}
