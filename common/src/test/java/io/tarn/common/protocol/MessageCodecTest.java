package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.protocol.Messages.Codec;
import io.tarn.common.protocol.Messages.Sample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Round trips, truncation and trailing bytes for every message body codec, on heap and direct buffers. */
class MessageCodecTest {

    static Stream<Arguments> samplesOnEveryBufferKind() {
        return Messages.samples().stream()
                .flatMap(s -> Arrays.stream(Bufs.Kind.values()).map(k -> Arguments.of(s, k)));
    }

    static Stream<Sample> samples() {
        return Messages.samples().stream();
    }

    @Test
    void everyCodecHasASample() {
        Set<Codec<?>> covered = Messages.samples().stream().map(Sample::codec).collect(Collectors.toSet());
        assertThat(covered).containsExactlyInAnyOrderElementsOf(Messages.ALL);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("samplesOnEveryBufferKind")
    void roundTrip(Sample sample, Bufs.Kind kind) {
        ByteBuf buf = kind.allocate();
        try {
            @SuppressWarnings("unchecked")
            Codec<Object> codec = (Codec<Object>) sample.codec();
            codec.encoder().accept(buf, sample.value());
            assertThat(buf.readableBytes()).isEqualTo(sample.bytes().length);
            Object decoded = sample.decode(buf);
            assertThat(decoded).isEqualTo(sample.value());
            assertThat(buf.isReadable()).as("decoder consumed the whole body").isFalse();
        } finally {
            buf.release();
        }
    }

    @ParameterizedTest(name = "{0} after 13 other bytes")
    @MethodSource("samples")
    void decodeStartsAtTheReaderIndexAndStopsAtTheMessageEnd(Sample sample) {
        // a message inside a larger buffer, as after a frame header: decoders must read from readerIndex
        ByteBuf buf = Unpooled.buffer();
        try {
            buf.writeZero(13);
            buf.writeBytes(sample.bytes());
            buf.skipBytes(13);
            assertThat(sample.decode(buf)).isEqualTo(sample.value());
            assertThat(buf.readerIndex()).isEqualTo(13 + sample.bytes().length);
        } finally {
            buf.release();
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("samplesOnEveryBufferKind")
    void everyTruncationIsMalformed(Sample sample, Bufs.Kind kind) {
        byte[] full = sample.bytes();
        for (int len = 0; len < full.length; len++) {
            byte[] prefix = Arrays.copyOf(full, len);
            int cut = len;
            assertThatThrownBy(() -> sample.decode(kind, prefix))
                    .as("%s truncated to %d of %d bytes", sample, cut, full.length)
                    .isExactlyInstanceOf(MalformedMessageException.class)
                    .hasMessageContaining("truncated");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void trailingBytesAreRejectedByRequestDecoders(Sample sample) {
        if (!sample.codec().rejectsTrailingBytes()) {
            return;
        }
        assertThatThrownBy(() -> sample.decode(Bufs.Kind.HEAP, Bufs.concat(sample.bytes(), (byte) 0)))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("1 unexpected trailing bytes");
        assertThatThrownBy(() -> sample.decode(Bufs.Kind.DIRECT,
                        Bufs.concat(sample.bytes(), (byte) 1, (byte) 2, (byte) 3)))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("3 unexpected trailing bytes");
    }

    @Test
    void fieldReadersLeaveFollowingBytesForTheCaller() {
        // FileStatus, BlockRef and DatanodeStatus are parts of larger messages and must not demand the end
        for (Sample s : Messages.samples()) {
            if (List.of(Messages.FILE_STATUS, Messages.BLOCK_REF, Messages.DATANODE_STATUS).contains(s.codec())) {
                ByteBuf buf = Unpooled.wrappedBuffer(Bufs.concat(s.bytes(), (byte) 9));
                assertThat(s.decode(buf)).isEqualTo(s.value());
                assertThat(buf.readableBytes()).isEqualTo(1);
            }
        }
    }

    /** Response decoders reject trailing bytes, like request decoders. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("samples")
    void responseDecodersRejectTrailingBytes(Sample sample) {
        if (!List.of(Messages.LIST_RESPONSE, Messages.REGISTER_RESPONSE, Messages.CLUSTER_STATUS)
                .contains(sample.codec())) {
            return;
        }
        assertThatThrownBy(() -> sample.decode(Bufs.Kind.HEAP, Bufs.concat(sample.bytes(), (byte) 0)))
                .isExactlyInstanceOf(MalformedMessageException.class);
    }
}
