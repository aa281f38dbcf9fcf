package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hand-over of a reader's buffer ({@link Landing}): who gets which memory, and when the reader
 * may skip its copy. Real buffers, no transport: the transport's side is the {@code claim} call.
 */
class LandingTest {
    private static ByteBuf offerable(ByteBuffer dst, int at, int length) {
        return Unpooled.wrappedBuffer(dst.slice(at, length)).clear();
    }

    @Test
    void anOfferClaimedInTimeIsWhereTheDataLands() {
        ByteBuffer dst = ByteBuffer.allocateDirect(100);
        Landing landing = new Landing();
        assertThat(landing.offer(offerable(dst, 10, 50))).isTrue();
        ByteBuf memory = landing.claim(50);
        assertThat(landing.claimed()).isTrue();
        memory.writeBytes(new byte[50]);
        // What the transport hands back is that memory (or a slice of it): the reader skips its copy.
        assertThat(landing.holds(memory.retainedSlice())).isTrue();
        assertThat(landing.withdraw()).isFalse();
    }

    @Test
    void aClaimBeforeTheOfferGoesElsewhereAndTheOfferIsRefused() {
        Landing landing = new Landing();
        ByteBuf own = landing.claim(50);
        assertThat(own.writableBytes()).isGreaterThanOrEqualTo(50);
        ByteBuf memory = offerable(ByteBuffer.allocateDirect(50), 0, 50);
        assertThat(landing.offer(memory)).isFalse();
        assertThat(landing.claimed()).isFalse();
        assertThat(landing.holds(own.writeZero(50))).isFalse();
        own.release();
    }

    @Test
    void dataDeliveredElsewhereAfterAClaimIsNotTakenForLanded() {
        // A claimed read whose data came another way after all (a short-circuit copy that failed
        // over to TCP, an answer sent again on a new connection): the reader must copy it.
        ByteBuffer dst = ByteBuffer.allocateDirect(64);
        Landing landing = new Landing();
        landing.offer(offerable(dst, 0, 64));
        landing.claim(64);
        ByteBuf second = landing.claim(64); // asked again: its own buffer this time
        second.writeZero(64);
        assertThat(landing.claimed()).isTrue();
        assertThat(landing.holds(second)).isFalse();
        assertThat(landing.holds(Unpooled.wrappedBuffer(new byte[64]))).isFalse();
        second.release();
    }

    @Test
    void tooSmallOfferIsNotClaimedAndCanBeWithdrawn() {
        Landing landing = new Landing();
        landing.offer(offerable(ByteBuffer.allocateDirect(10), 0, 10));
        ByteBuf own = landing.claim(20);
        assertThat(landing.claimed()).isFalse();
        assertThat(landing.withdraw()).isTrue();
        own.release();
    }

    /** A deferred copy that records where it was made and on which thread. */
    private static final class RecordingCopy implements Landing.DeferredCopy {
        final CompletableFuture<ByteBuf> result = new CompletableFuture<>();
        Thread madeOn;
        boolean abandoned;

        @Override
        public void copyInto(io.tarn.rpc.RpcClient.ResponseTarget target) {
            madeOn = Thread.currentThread();
            ByteBuf memory = target.claim(32);
            result.complete(memory.writeBytes(new byte[32]));
        }

        @Override
        public void abandon() {
            abandoned = true;
            result.cancel(false);
        }

        int checked;

        @Override
        public Landing.Check view() {
            madeOn = Thread.currentThread();
            result.complete(io.netty.buffer.Unpooled.wrappedBuffer(new byte[32]));
            return bytes -> checked += bytes;
        }
    }

    @Test
    void aParkedCopyIsMadeByTheOfferingReaderStraightIntoItsBuffer() throws Exception {
        Landing landing = new Landing(true);
        RecordingCopy copy = new RecordingCopy();
        Thread io = new Thread(() -> landing.park(copy));
        io.start();
        io.join();
        assertThat(landing.isParked()).isTrue();
        assertThat(copy.result).isNotDone(); // nothing copied on the granting thread

        ByteBuffer dst = ByteBuffer.allocateDirect(32);
        assertThat(landing.offer(offerable(dst, 0, 32))).isTrue();
        assertThat(copy.madeOn).isSameAs(Thread.currentThread());
        assertThat(landing.holds(copy.result.get())).isTrue();
        assertThat(landing.withdraw()).isFalse(); // claimed: the memory is the data
    }

    @Test
    void aParkedCopyTakenWithoutAnOfferBecomesAViewWithItsCheck() throws Exception {
        Landing landing = new Landing(true);
        RecordingCopy copy = new RecordingCopy();
        landing.park(copy);
        Landing.Check check = landing.takeView();
        assertThat(check).isNotNull();
        assertThat(copy.madeOn).isSameAs(Thread.currentThread());
        ByteBuf view = copy.result.get();
        assertThat(view.readableBytes()).isEqualTo(32);
        check.copied(32);
        assertThat(copy.checked).isEqualTo(32);
        assertThat(landing.holds(view)).isFalse();
        assertThat(landing.offer(offerable(ByteBuffer.allocateDirect(32), 0, 32))).isFalse(); // too late
        assertThat(landing.takeView()).as("taken once only").isNull();
        view.release();
    }

    @Test
    void aCopyIsMadeAtOnceWhenTheReaderOfferedFirstOrDoesNotWait() throws Exception {
        ByteBuffer dst = ByteBuffer.allocateDirect(32);
        Landing offeredFirst = new Landing(true);
        assertThat(offeredFirst.offer(offerable(dst, 0, 32))).isTrue();
        RecordingCopy intoOffer = new RecordingCopy();
        offeredFirst.park(intoOffer);
        assertThat(offeredFirst.holds(intoOffer.result.get())).isTrue();

        Landing eager = new Landing(); // a reader of arrays: the copy overlaps with its own
        RecordingCopy now = new RecordingCopy();
        eager.park(now);
        assertThat(eager.isParked()).isFalse();
        assertThat(now.result).isDone();
        now.result.get().release();
    }

    /** A reader that waits before the grant came must not leave the copy parked for it: nobody would make it. */
    @Test
    void aCopyArrivingAfterTheReaderStartedWaitingIsMadeAtOnce() throws Exception {
        Landing landing = new Landing(true);
        assertThat(landing.takeView()).isNull(); // the reader waits now
        RecordingCopy copy = new RecordingCopy();
        Thread io = new Thread(() -> landing.park(copy));
        io.start();
        io.join();
        assertThat(landing.isParked()).isFalse();
        assertThat(copy.madeOn).isSameAs(io);
        assertThat(copy.result.get(5, java.util.concurrent.TimeUnit.SECONDS).readableBytes()).isEqualTo(32);
        copy.result.get().release();
    }

    @Test
    void aParkedCopyOfAnAbandonedReadIsNeverMade() {
        Landing landing = new Landing(true);
        RecordingCopy copy = new RecordingCopy();
        landing.park(copy);
        landing.dropParked();
        assertThat(copy.abandoned).isTrue();
        assertThat(copy.madeOn).isNull();
        assertThat(copy.result).isCancelled();
        assertThat(landing.takeView()).isNull();
        assertThat(copy.madeOn).isNull();
    }

    @Test
    void settleWaitsThroughInterruptsAndKeepsTheFlag() throws Exception {
        CompletableFuture<Void> read = new CompletableFuture<>();
        Thread.currentThread().interrupt();
        CompletableFuture.delayedExecutor(50, java.util.concurrent.TimeUnit.MILLISECONDS)
                .execute(() -> read.complete(null));
        Landing.settle(read);
        assertThat(read).isDone();
        assertThat(Thread.interrupted()).isTrue();
    }
}
