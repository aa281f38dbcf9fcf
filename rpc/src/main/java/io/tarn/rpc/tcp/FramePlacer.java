package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.tarn.common.protocol.Frame;
import io.tarn.rpc.PayloadPlacement;

/**
 * The part of {@link FrameDecoder} that knows which frames of a connection have their payload
 * placed, and where: a server's requests ({@link #requests}, asking the handler's
 * {@link PayloadPlacement}) or a client's responses ({@link TcpClient}, asking the call's
 * {@link io.tarn.rpc.RpcClient.ResponseTarget}). Runs on the connection's I/O thread.
 */
interface FramePlacer {

    /**
     * Bytes of body between the header and the payload of the frame at {@code frame}'s reader
     * index (whose header has arrived, version checked), or -1 when its payload is never placed.
     */
    int headLength(ByteBuf frame);

    /**
     * Where the payload of the frame at {@code frame}'s reader index goes, or null to receive the
     * frame as usual. Its header and {@code headLength} bytes of head are readable.
     */
    PayloadPlacement.Target place(ByteBuf frame, int headLength, int payloadLength);

    /** Places requests whose handler asks for it, once {@code server}'s connection has authenticated. */
    static FramePlacer requests(PayloadPlacement placement, ServerHandler server) {
        return new FramePlacer() {
            @Override
            public int headLength(ByteBuf frame) {
                return (Frame.flags(frame) & Frame.FLAG_RESPONSE) != 0 || !server.authenticated() ? -1
                        : placement.headLength(Frame.opcode(frame));
            }

            @Override
            public PayloadPlacement.Target place(ByteBuf frame, int headLength, int payloadLength) {
                ByteBuf head = frame.slice(frame.readerIndex() + Frame.HEADER_LENGTH, headLength);
                return placement.place(Frame.opcode(frame), head, payloadLength);
            }
        };
    }
}
