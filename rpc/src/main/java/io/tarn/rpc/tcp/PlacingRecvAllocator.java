package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * The receive-buffer allocator of one connection that places payloads: while its
 * {@link FrameDecoder} is placing one, each read goes straight into the placement's memory (at
 * most the payload's remaining bytes, so a read never takes bytes of the next frame); otherwise
 * it is the channel's usual allocator. Everything else (how much to read, when to stop) is the
 * usual allocator's.
 */
final class PlacingRecvAllocator implements RecvByteBufAllocator {
    private final RecvByteBufAllocator usual;
    private final FrameDecoder decoder;

    PlacingRecvAllocator(RecvByteBufAllocator usual, FrameDecoder decoder) {
        this.usual = usual;
        this.decoder = decoder;
    }

    @Override
    public Handle newHandle() {
        return new PlacingHandle((ExtendedHandle) usual.newHandle(), decoder);
    }

    @SuppressWarnings("deprecation") // Handle's methods are what the transports call
    private static final class PlacingHandle implements ExtendedHandle {
        private final ExtendedHandle usual;
        private final FrameDecoder decoder;

        PlacingHandle(ExtendedHandle usual, FrameDecoder decoder) {
            this.usual = usual;
            this.decoder = decoder;
        }

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            ByteBuf target = decoder.nextReadTarget();
            return target != null ? target : usual.allocate(alloc);
        }

        @Override
        public int guess() {
            return usual.guess();
        }

        @Override
        public void reset(ChannelConfig config) {
            usual.reset(config);
        }

        @Override
        public void incMessagesRead(int numMessages) {
            usual.incMessagesRead(numMessages);
        }

        @Override
        public void lastBytesRead(int bytes) {
            usual.lastBytesRead(bytes);
        }

        @Override
        public int lastBytesRead() {
            return usual.lastBytesRead();
        }

        @Override
        public void attemptedBytesRead(int bytes) {
            usual.attemptedBytesRead(bytes);
        }

        @Override
        public int attemptedBytesRead() {
            return usual.attemptedBytesRead();
        }

        @Override
        public boolean continueReading() {
            return usual.continueReading();
        }

        @Override
        public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
            return usual.continueReading(maybeMoreDataSupplier);
        }

        @Override
        public void readComplete() {
            usual.readComplete();
        }
    }
}
