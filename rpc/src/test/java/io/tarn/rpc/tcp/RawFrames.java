package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Wire;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;

/** Frames read and written on plain sockets, for tests whose server misbehaves on purpose. */
final class RawFrames {
    private RawFrames() {
    }

    /** Reads one whole frame: its header and body, in a heap buffer the caller releases. */
    static ByteBuf read(DataInputStream in) throws IOException {
        int length = in.readInt();
        byte[] rest = new byte[length];
        in.readFully(rest);
        return Unpooled.buffer(Frame.LENGTH_FIELD + length).writeInt(length).writeBytes(rest);
    }

    /** Writes an OK answer with {@code text} as its body. */
    static void answer(OutputStream out, int opcode, long requestId, String text) throws IOException {
        ByteBuf answer = Unpooled.buffer();
        try {
            int at = Frame.begin(answer, opcode, requestId, Frame.FLAG_RESPONSE, ErrorCode.OK.code());
            Wire.writeString(answer, text);
            Frame.finish(answer, at);
            byte[] bytes = new byte[answer.readableBytes()];
            answer.readBytes(bytes);
            out.write(bytes);
            out.flush();
        } finally {
            answer.release();
        }
    }
}
