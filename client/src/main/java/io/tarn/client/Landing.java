package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.tarn.rpc.RpcClient;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the data of one block read lands: straight in the reader's buffer when the reader offered
 * it before the data started to arrive, so nothing is copied after the socket read; otherwise in a
 * buffer of its own, copied to the reader later.
 *
 * <p>A sequential reader offers its buffer only once it waits for this read and has room for all of
 * it; a positional read into a direct buffer offers it at once. The transport's I/O thread claims
 * (asks {@link #claim}) when the answer's header arrives. States: open, offered, claimed (the data
 * goes to the offered memory) or closed (it goes elsewhere). The offered memory belongs to the
 * transport from the claim until the read's future completes: a reader that stops waiting earlier
 * (interrupted) must {@link #settle} first.
 *
 * <p>A short-circuit read has nothing in flight once the datanode granted it, only a copy out of the
 * mapped region left to make. When the landing may {@linkplain #Landing(boolean) wait for its
 * reader}, that copy is {@linkplain #park parked} (state parked) instead of made into a buffer of
 * its own on the I/O thread: the reader makes it on its own thread, straight into the buffer it
 * {@linkplain #offer offers} (one copy instead of two), or, when it {@linkplain #takeView takes}
 * the data without offering (reads into arrays, say), gets a view of the region instead and copies
 * out of it itself, piece by piece, checking after each piece that the block is still the one the
 * grant was for.
 */
final class Landing implements RpcClient.ResponseTarget {
    private static final int OPEN = 0;
    private static final int OFFERED = 1;
    private static final int CLAIMED = 2;
    private static final int CLOSED = 3;
    private static final int PARKED = 4;

    private final AtomicInteger state = new AtomicInteger(OPEN);
    /** True when a short-circuit copy may wait for the reader (see the class comment). */
    private final boolean waitsForReader;
    private volatile ByteBuf offered;
    /** The copy waiting for the reader while parked. */
    private volatile DeferredCopy parked;
    /**
     * Set once a short-circuit grant arrived here, parked or copied at once: the read held no
     * memory while it waited, whether for its grant or for its reader.
     */
    private volatile boolean granted;
    /** Where the offered memory starts, or 0 when nothing was offered or it has no known address. */
    private long address;

    /** A landing whose short-circuit copy is made at once, wherever the read completes. */
    Landing() {
        this(false);
    }

    /** @param waitsForReader whether a short-circuit copy may wait for the reader ({@link #park}) */
    Landing(boolean waitsForReader) {
        this.waitsForReader = waitsForReader;
    }

    /**
     * A short-circuit read's copy out of the mapped region, made later: into the memory a target
     * names, completing the read itself.
     */
    interface DeferredCopy {
        /** Makes the copy into the memory {@code target} names and completes the read with it. */
        void copyInto(RpcClient.ResponseTarget target);

        /** The read was given up before the copy was made: completes it without data. */
        void abandon();

        /**
         * Instead of the copy: completes the read with a read-only view of the region range (no
         * copy) and returns the check its reader runs after each copy out of it; or, when no view
         * can be had here, completes the read another way and returns null.
         */
        Check view();
    }

    /** What a reader copying out of a {@linkplain DeferredCopy#view view} of a region runs after each copy. */
    interface Check {
        /**
         * After {@code bytes} were copied out of the view: fails (STALE_GENERATION) when the block
         * moved on since the grant, so the copy may hold another file's bytes and must not be
         * returned; otherwise counts them.
         */
        void copied(int bytes) throws IOException;
    }

    /**
     * Called where the read's grant arrived (an I/O thread): leaves {@code copy} to the reader when
     * this landing waits for it and nothing was offered yet; otherwise makes it now, into the
     * offered memory or a buffer of its own.
     */
    void park(DeferredCopy copy) {
        granted = true;
        if (waitsForReader) {
            parked = copy;
            if (state.compareAndSet(OPEN, PARKED)) {
                return;
            }
            parked = null;
        }
        copy.copyInto(this);
    }

    /**
     * Offers {@code memory} (empty, room for the whole read) for the data; false, with the memory
     * left to the caller, when the data already goes elsewhere. A parked copy is made here, on the
     * caller's thread, straight into {@code memory}.
     */
    boolean offer(ByteBuf memory) {
        address = memory.hasMemoryAddress() ? memory.memoryAddress() + memory.writerIndex() : 0;
        offered = memory;
        if (state.compareAndSet(OPEN, OFFERED)) {
            return true;
        }
        offered = null;
        DeferredCopy copy = unpark(CLAIMED);
        if (copy != null) {
            copy.copyInto(bodyLength -> memory);
            return true;
        }
        return false;
    }

    /** The parked copy, now the caller's to make or drop, moving to {@code next}; null when none is parked. */
    private DeferredCopy unpark(int next) {
        if (!state.compareAndSet(PARKED, next)) {
            return null;
        }
        DeferredCopy copy = parked;
        parked = null;
        return copy;
    }

    /**
     * For a reader about to wait for the data without offering memory: a parked copy becomes a
     * view of the region ({@link DeferredCopy#view}); returns the check to run after each copy out
     * of it, or null when nothing was parked (the data comes as a buffer of its own, a copy made
     * where the grant arrives if it has not yet).
     */
    Check takeView() {
        if (state.compareAndSet(OPEN, CLOSED)) {
            // Not parked yet: the reader waits from now on, so the copy must not park for it (it would
            // wait for a reader that waits for it); it is made where the grant arrives.
            return null;
        }
        DeferredCopy copy = unpark(CLOSED);
        return copy != null ? copy.view() : null;
    }

    /**
     * True when the read was granted short-circuit (its data a copy out of a mapped region, not
     * bytes over TCP), whether the copy was parked for the reader or made at once.
     */
    boolean wasGranted() {
        return granted;
    }

    /** True while a short-circuit copy waits for the reader (for tests). */
    boolean isParked() {
        return state.get() == PARKED;
    }

    /** The read is given up: a parked copy is never made. */
    void dropParked() {
        DeferredCopy copy = unpark(CLOSED);
        if (copy != null) {
            copy.abandon();
        }
    }

    /**
     * True when the memory was claimed: from then until the read completes, data may be written
     * into it.
     */
    boolean claimed() {
        return state.get() == CLAIMED;
    }

    /**
     * True when {@code data}, the read's result, is the offered memory: its bytes are already where
     * the reader wants them. Decided by address, not by {@link #claimed()}: a claimed read may still
     * deliver its data elsewhere (a short-circuit copy that failed and went over TCP, an answer
     * sent again on a new connection after the first one broke mid-data), and must then be copied.
     */
    boolean holds(ByteBuf data) {
        return address != 0 && data.hasMemoryAddress() && data.memoryAddress() + data.readerIndex() == address;
    }

    /**
     * Takes back an offer nobody claimed and releases its memory (the data then came, or comes,
     * another way); false when it was claimed.
     */
    boolean withdraw() {
        ByteBuf memory = offered;
        if (state.compareAndSet(OFFERED, CLOSED)) {
            offered = null;
            memory.release();
            return true;
        }
        return state.get() != CLAIMED;
    }

    @Override
    public ByteBuf claim(int bodyLength) {
        ByteBuf memory = offered;
        if (memory != null && memory.writableBytes() >= bodyLength && state.compareAndSet(OFFERED, CLAIMED)) {
            offered = null;
            return memory;
        }
        state.compareAndSet(OPEN, CLOSED);
        return DataClient.RECEIVE.claim(bodyLength);
    }

    /**
     * Waits, ignoring interrupts (and keeping the thread's interrupt status), until {@code read}
     * completes in any way: then no byte is written to memory offered for it any more. Bounded by
     * the RPC timeout.
     */
    static void settle(CompletableFuture<?> read) {
        boolean interrupted = false;
        while (true) {
            try {
                read.get();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (ExecutionException | CancellationException e) {
                break;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
