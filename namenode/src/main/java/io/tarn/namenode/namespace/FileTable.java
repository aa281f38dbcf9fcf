package io.tarn.namenode.namespace;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileIds;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The files of one partition by id: O(1), lock-free lookup for getBlock and close.
 *
 * <p>A two-level table of slots (chunks of 16384, allocated on first use with a CAS). Each slot has
 * a reuse counter that goes into the file id (see {@link FileIds}), so a lookup with a stale id finds
 * nothing instead of a later file. Freed slots are recycled through a lock-free queue.
 */
public final class FileTable {
    private static final int CHUNK_BITS = 14;
    private static final int CHUNK_SIZE = 1 << CHUNK_BITS;
    private static final int CHUNK_MASK = CHUNK_SIZE - 1;
    private static final int CHUNKS = (FileIds.MAX_SLOT >>> CHUNK_BITS) + 1;

    private final int partition;
    private final AtomicReferenceArray<Chunk> chunks = new AtomicReferenceArray<>(CHUNKS);
    private final AtomicInteger nextSlot = new AtomicInteger();
    private final Queue<Integer> freeSlots = new ConcurrentLinkedQueue<>();

    private static final class Chunk {
        final AtomicReferenceArray<FileInode> files = new AtomicReferenceArray<>(CHUNK_SIZE);
        final AtomicIntegerArray counters = new AtomicIntegerArray(CHUNK_SIZE);
    }

    public FileTable(int partition) {
        if (partition < 0 || partition >= FileIds.MAX_PARTITIONS) {
            throw new IllegalArgumentException("partition " + partition + " outside 0.."
                    + (FileIds.MAX_PARTITIONS - 1));
        }
        this.partition = partition;
    }

    /** Reserves a slot and returns the id a new file in it gets; {@link #publish} or {@link #release} it. */
    public long reserve() throws TarnException {
        Integer recycled = freeSlots.poll();
        int slot;
        if (recycled != null) {
            slot = recycled;
        } else {
            slot = nextSlot.getAndIncrement();
            if (slot < 0 || slot > FileIds.MAX_SLOT) {
                nextSlot.set(FileIds.MAX_SLOT + 1);
                throw new TarnException(ErrorCode.NO_SPACE, "the namenode's file table is full ("
                        + FileIds.MAX_SLOT + " files); delete files");
            }
        }
        return FileIds.file(partition, chunk(slot).counters.get(slot & CHUNK_MASK), slot);
    }

    /** Makes a file with a reserved id visible to {@link #get}. */
    public void publish(FileInode file) {
        int slot = FileIds.slot(file.id());
        chunk(slot).files.set(slot & CHUNK_MASK, file);
    }

    /** Gives back a reserved id that was never published, or removes a published file; the slot is recycled. */
    public void release(long id) {
        int slot = FileIds.slot(id);
        Chunk c = chunk(slot);
        int i = slot & CHUNK_MASK;
        FileInode f = c.files.get(i);
        if (f != null && f.id() == id) {
            c.files.compareAndSet(i, f, null);
        }
        // Bump before recycling, so the next file in this slot gets a different id.
        c.counters.set(i, (FileIds.counter(id) + 1) & FileIds.COUNTER_MASK);
        freeSlots.offer(slot);
    }

    /**
     * Puts a file back at exactly its id, as a journal's replay does: its slot takes the id's reuse
     * counter. Call {@link #replayed} once every record is in.
     */
    void restore(FileInode file) {
        long id = file.id();
        int slot = FileIds.slot(id);
        Chunk c = chunk(slot);
        c.counters.set(slot & CHUNK_MASK, FileIds.counter(id));
        c.files.set(slot & CHUNK_MASK, file);
        nextSlot.accumulateAndGet(slot + 1, Math::max);
    }

    /**
     * A file that replay does not restore (it was swept before its record): its id was handed out,
     * so the slot's counter moves past it, as the file's removal did in memory.
     */
    void retireId(long id) {
        int slot = FileIds.slot(id);
        Chunk c = chunk(slot);
        int i = slot & CHUNK_MASK;
        int next = (FileIds.counter(id) + 1) & FileIds.COUNTER_MASK;
        if (c.files.get(i) == null) {
            c.counters.set(i, next);
        }
        nextSlot.accumulateAndGet(slot + 1, Math::max);
    }

    /**
     * One past the highest slot ever used ({@link FileIds#MAX_SLOT} once the table is full: the
     * next slot counter runs negative then, and the last slot is left out of scans).
     */
    int slotHighWater() {
        int next = nextSlot.get();
        return next < 0 ? FileIds.MAX_SLOT : next;
    }

    /** Calls {@code action} with every empty slot below the high-water whose reuse counter is not 0. */
    void forEachRetiredSlot(IntBinaryConsumer action) {
        int slots = slotHighWater();
        for (int slot = 0; slot < slots; slot++) {
            Chunk c = chunks.get(slot >>> CHUNK_BITS);
            if (c == null) {
                slot |= CHUNK_MASK;
                continue;
            }
            int i = slot & CHUNK_MASK;
            int counter = c.counters.get(i);
            if (c.files.get(i) == null && counter != 0) {
                action.accept(slot, counter);
            }
        }
    }

    /** (slot, counter) pairs. */
    @FunctionalInterface
    interface IntBinaryConsumer {
        void accept(int a, int b);
    }

    /** Replay of a checkpoint: an empty slot's reuse counter, and the slots used up to {@code highWater}. */
    void restoreSlot(int slot, int counter, int highWater) {
        if (slot < 0 || slot > FileIds.MAX_SLOT) {
            throw new IllegalStateException("slot " + slot);
        }
        Chunk c = chunk(slot);
        if (c.files.get(slot & CHUNK_MASK) == null) {
            c.counters.set(slot & CHUNK_MASK, counter & FileIds.COUNTER_MASK);
        }
        restoreHighWater(highWater);
    }

    /** Replay of a checkpoint: the slots used up to {@code highWater}. */
    void restoreHighWater(int highWater) {
        nextSlot.accumulateAndGet(highWater, Math::max);
    }

    /** After a replay: the free slots are the empty ones below the highest slot used. */
    void replayed() {
        freeSlots.clear();
        int slots = slotHighWater();
        for (int slot = 0; slot < slots; slot++) {
            if (chunk(slot).files.get(slot & CHUNK_MASK) == null) {
                freeSlots.offer(slot);
            }
        }
    }

    /** The live file with this id, or null (deleted, stale id, directory id or another partition's id). */
    public FileInode get(long id) {
        if (id < 0 || FileIds.isDirectory(id) || FileIds.partition(id) != partition) {
            return null;
        }
        int slot = FileIds.slot(id);
        Chunk c = chunks.get(slot >>> CHUNK_BITS);
        if (c == null) {
            return null;
        }
        FileInode f = c.files.get(slot & CHUNK_MASK);
        return f != null && f.id() == id ? f : null;
    }

    /**
     * Calls {@code action} with every live file, in slot order; files published or removed meanwhile
     * may or may not be seen. Lock-free: for scans on a background thread.
     */
    public void forEach(Consumer<FileInode> action) {
        int slots = slotHighWater();
        int lastChunk = slots == 0 ? -1 : (slots - 1) >>> CHUNK_BITS;
        for (int ci = 0; ci <= lastChunk; ci++) {
            Chunk c = chunks.get(ci);
            if (c == null) {
                continue;
            }
            for (int i = 0; i < CHUNK_SIZE; i++) {
                FileInode f = c.files.get(i);
                if (f != null) {
                    action.accept(f);
                }
            }
        }
    }

    private Chunk chunk(int slot) {
        int ci = slot >>> CHUNK_BITS;
        Chunk c = chunks.get(ci);
        if (c == null) {
            Chunk fresh = new Chunk();
            c = chunks.compareAndExchange(ci, null, fresh);
            if (c == null) {
                c = fresh;
            }
        }
        return c;
    }
}
