package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.tarn.common.protocol.Frame;

/**
 * Cuts the byte stream into frames by their length field, without copying (frames are retained
 * slices of the read buffer). A frame longer than the limit, or a negative length, fails the
 * decoder; the handler then closes the connection with the reason.
 *
 * <p>Bytes that do not yet form a whole frame are kept by an adaptive cumulator: small pieces are
 * merged into one buffer (cheap to index, right for metadata frames), but once a partial frame is
 * large (block data) further reads are appended as components of a composite buffer, so a 1 MiB
 * frame arriving in 64 KiB reads is not copied, and re-copied as the merge buffer grows.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    /** Partial frames beyond this size stop being merged. */
    static final int COMPOSE_ABOVE = 64 * 1024;

    FrameDecoder(int maxFrame) {
        super(maxFrame + Frame.LENGTH_FIELD, Frame.LENGTH_OFFSET, Frame.LENGTH_FIELD, 0, 0, true);
        setCumulator(FrameDecoder::cumulate);
    }

    private static ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
        if (cumulation instanceof CompositeByteBuf
                || (long) cumulation.readableBytes() + in.readableBytes() > COMPOSE_ABOVE) {
            return COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
        }
        return MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
    }
}
