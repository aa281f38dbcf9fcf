package io.tarn.rpc.tcp;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.tarn.common.protocol.Frame;

/**
 * Cuts the byte stream into frames by their length field, without copying (frames are retained
 * slices of the read buffer). A frame longer than the limit, or a negative length, fails the
 * decoder; the handler then closes the connection with the reason.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    FrameDecoder(int maxFrame) {
        super(maxFrame + Frame.LENGTH_FIELD, Frame.LENGTH_OFFSET, Frame.LENGTH_FIELD, 0, 0, true);
    }
}
