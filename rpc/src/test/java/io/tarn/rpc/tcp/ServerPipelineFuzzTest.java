package io.tarn.rpc.tcp;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Frame;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.rpc.PayloadPlacement;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Coverage-guided fuzzing (Jazzer) of a server connection's inbound pipeline, the frame decoder
 * (with payload placement) and the server handler, fed arbitrary bytes in arbitrary pieces as a
 * hostile client would send them: nothing escapes the pipeline (a malformed stream closes the
 * connection with its reason), and everything the server writes back is a well-formed response
 * frame. The handler echoes bodies, places the payloads of one opcode, refuses some bodies as
 * malformed and fails others, so each path of the server is reached.
 *
 * <p>{@code mvn verify} replays the checked-in inputs
 * ({@code src/test/resources/io/tarn/rpc/tcp/ServerPipelineFuzzTestInputs/}) and fuzzes for
 * {@code maxDuration} (docs/security.md).
 */
class ServerPipelineFuzzTest {
    private static final int MAX_FRAME = 1 << 16;
    private static final int PLACED = 2000;
    private static final int MALFORMED = 2001;
    private static final int FAILS = 2002;

    /** Echoes bodies; places PLACED's payload after an 8-byte head into memory of its own. */
    private static final class Handler implements RpcHandler, PayloadPlacement {
        @Override
        public int headLength(int opcode) {
            return opcode == PLACED ? 8 : -1;
        }

        @Override
        public Target place(int opcode, ByteBuf head, int payloadLength) {
            if (head.getInt(head.readerIndex()) == 0) {
                return null; // declined: the payload arrives as part of the frame
            }
            ByteBuf memory = Unpooled.buffer(payloadLength, payloadLength);
            boolean valid = head.getInt(head.readerIndex() + 4) != 0;
            return new Target() {
                @Override
                public ByteBuf memory() {
                    return memory;
                }

                @Override
                public boolean stillValid() {
                    return valid;
                }
            };
        }

        @Override
        public void handle(RpcRequest request) {
            switch (request.opcode()) {
                case MALFORMED -> throw new MalformedMessageException("refused by the test handler");
                case FAILS -> request.fail(ErrorCode.INVALID_ARGUMENT, "failed by the test handler");
                default -> {
                    ByteBuf response = request.response();
                    response.writeInt(request.placedBytes());
                    response.writeBytes(request.body(), request.body().readerIndex(),
                            Math.min(64, request.body().readableBytes()));
                    request.send(response);
                }
            }
        }
    }

    /** Sizes of the reads the stream arrives in, in turn: single bytes up to several frames at once. */
    private static final int[] READS = {1, 7, 64, 3, 256, 20, 1000, 2};

    /** The input is the byte stream a client sends (seeds are real frames), cut into reads of {@link #READS}. */
    @FuzzTest(maxDuration = "30s")
    void aServerConnectionAnswersOrClosesWhateverArrives(byte[] stream) {
        serve(stream);
    }

    /** The harness reaches the handler: a request frame sent in the harness's pieces is answered. */
    @Test
    void aRequestCutIntoTheHarnessReadsIsAnswered() {
        ByteBuf request = Unpooled.buffer();
        int start = Frame.begin(request, PLACED, 9, 0, 0);
        request.writeInt(1).writeInt(1).writeBytes(new byte[300]);
        Frame.finish(request, start);
        byte[] bytes = new byte[request.readableBytes()];
        request.readBytes(bytes).release();
        assertThat(serve(bytes)).as("answers").isEqualTo(1);
    }

    /** Feeds {@code stream} to a server connection; returns how many response frames it wrote. */
    private static int serve(byte[] stream) {
        int answers = 0;
        Handler handler = new Handler();
        ServerHandler server = new ServerHandler(null, handler, new LogLimiter(), TransportSecurity.NONE, 4096);
        EmbeddedChannel channel = new EmbeddedChannel(
                new FrameDecoder(MAX_FRAME, FramePlacer.requests(handler, server)), server);
        try {
            for (int at = 0, read = 0; at < stream.length && channel.isActive(); read++) {
                int n = Math.min(READS[read % READS.length], stream.length - at);
                // Rethrows anything that escaped the pipeline's own handling.
                channel.writeInbound(Unpooled.wrappedBuffer(stream, at, n));
                channel.runPendingTasks();
                at += n;
            }
            channel.checkException();
            for (Object out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
                ByteBuf frame = (ByteBuf) out;
                try {
                    if (frame.isReadable()) {
                        assertThat(frame.readableBytes()).as("a whole response frame").isGreaterThanOrEqualTo(
                                Frame.HEADER_LENGTH);
                        assertThat((long) frame.getInt(frame.readerIndex() + Frame.LENGTH_OFFSET))
                                .as("its length field").isEqualTo(frame.readableBytes() - Frame.LENGTH_FIELD);
                        assertThat(Frame.flags(frame) & Frame.FLAG_RESPONSE).isEqualTo(Frame.FLAG_RESPONSE);
                        answers++;
                    }
                } finally {
                    frame.release();
                }
            }
        } finally {
            channel.finishAndReleaseAll();
        }
        return answers;
    }
}
