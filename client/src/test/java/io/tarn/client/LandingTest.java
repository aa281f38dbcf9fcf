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
