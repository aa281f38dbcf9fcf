package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.common.security.KeyFile;
import io.tarn.common.security.SecretHandshake;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;

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

    /**
     * Authenticates a plain socket as a client holding {@code key} does, so a test can then send
     * what no client of ours would: the server's challenge is checked, the proof sent.
     */
    static void authenticate(Socket socket, KeyFile key, String user) throws IOException {
        SecretHandshake.Client handshake = new SecretHandshake.Client(key, user);
        ByteBuf hello = Unpooled.buffer();
        int at = Frame.begin(hello, Opcode.AUTH_HELLO, 0, 0, 0);
        SecretHandshake.writeHello(hello, handshake.hello());
        Frame.finish(hello, at);
        write(socket.getOutputStream(), hello);
        ByteBuf answer = read(new DataInputStream(socket.getInputStream()));
        try {
            if (Frame.status(answer) != ErrorCode.OK.code()) {
                throw new IOException("the server refused the handshake with status " + Frame.status(answer));
            }
            byte[] proof = handshake.answer(SecretHandshake.readChallenge(answer.skipBytes(Frame.HEADER_LENGTH)),
                    "test server");
            ByteBuf out = Unpooled.buffer();
            int start = Frame.begin(out, Opcode.AUTH_PROOF, 0, 0, 0);
            SecretHandshake.writeProof(out, proof);
            Frame.finish(out, start);
            write(socket.getOutputStream(), out);
        } finally {
            answer.release();
        }
    }

    /** Writes a request of {@code opcode} with a body of {@code bodyBytes} zeros. */
    static void request(OutputStream out, int opcode, long requestId, int bodyBytes) throws IOException {
        ByteBuf request = Unpooled.buffer();
        int at = Frame.begin(request, opcode, requestId, 0, 0);
        request.writeZero(bodyBytes);
        Frame.finish(request, at);
        write(out, request);
    }

    private static void write(OutputStream out, ByteBuf frame) throws IOException {
        try {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            out.write(bytes);
            out.flush();
        } finally {
            frame.release();
        }
    }
}
