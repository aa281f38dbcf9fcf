package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WireTest {

    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void stringsAreAUint16ByteLengthAndUtf8(Bufs.Kind kind) {
        for (String s : List.of("", "a", "/dätä/文件", "😀", "\0", "x\u0000y", "é".repeat(1000))) {
            ByteBuf b = kind.allocate();
            try {
                Wire.writeString(b, s);
                byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
                assertThat(b.readableBytes()).isEqualTo(2 + utf8.length);
                assertThat(b.getUnsignedShort(0)).isEqualTo(utf8.length);
                byte[] body = new byte[utf8.length];
                b.getBytes(2, body);
                assertThat(body).isEqualTo(utf8);
                assertThat(Wire.readString(b)).isEqualTo(s);
                assertThat(b.isReadable()).isFalse();
            } finally {
                b.release();
            }
        }
    }

    @Test
    void longestStringFitsTheUnsignedLength() {
        String max = "a".repeat(Wire.MAX_STRING_BYTES);
        ByteBuf b = Unpooled.buffer();
        Wire.writeString(b, max);
        assertThat(b.getUnsignedShort(0)).isEqualTo(0xffff);
        assertThat(Wire.readString(b)).isEqualTo(max);

        // 21845 three-byte characters = 65535 bytes
        String cjk = "文".repeat(21_845);
        ByteBuf c = Unpooled.directBuffer();
        Wire.writeString(c, cjk);
        assertThat(Wire.readString(c)).isEqualTo(cjk);
        c.release();
    }

    @Test
    void tooLongStringsAreRefused() {
        assertThatThrownBy(() -> Wire.writeString(Unpooled.buffer(), "a".repeat(Wire.MAX_STRING_BYTES + 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("string field longer than 65535 bytes");
        // the limit is in bytes, not characters: 21846 three-byte characters are 65538 bytes
        assertThatThrownBy(() -> Wire.writeString(Unpooled.buffer(), "文".repeat(21_846)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** A string refused for its length leaves the buffer as it was. */
    @Test
    void refusedStringLeavesNothingInTheBuffer() {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(42);
        assertThatThrownBy(() -> Wire.writeString(b, "a".repeat(70_000))).isInstanceOf(IllegalArgumentException.class);
        assertThat(b.writerIndex()).isEqualTo(4);
    }

    @Test
    void truncatedStrings() {
        assertThatThrownBy(() -> Wire.readString(Unpooled.buffer()))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("message truncated: needs 2 more bytes, has 0");
        assertThatThrownBy(() -> Wire.readString(Unpooled.wrappedBuffer(new byte[] {0})))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("message truncated: needs 2 more bytes, has 1");
        assertThatThrownBy(() -> Wire.readString(Unpooled.wrappedBuffer(new byte[] {(byte) 0xff, (byte) 0xff, 'a'})))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("message truncated: needs 65535 more bytes, has 1");
    }

    @Test
    void invalidUtf8DecodesWithReplacementCharacters() {
        ByteBuf b = Unpooled.wrappedBuffer(new byte[] {0, 2, (byte) 0xc3, (byte) 0x28});
        assertThat(Wire.readString(b)).contains("\ufffd");
        assertThat(b.isReadable()).isFalse();
    }

    @Test
    void booleans() {
        ByteBuf b = Unpooled.buffer();
        Wire.writeBoolean(b, true);
        Wire.writeBoolean(b, false);
        assertThat(b.getByte(0)).isEqualTo((byte) 1);
        assertThat(b.getByte(1)).isEqualTo((byte) 0);
        assertThat(Wire.readBoolean(b)).isTrue();
        assertThat(Wire.readBoolean(b)).isFalse();
        assertThatThrownBy(() -> Wire.readBoolean(b))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("truncated");
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 0x7f, 0x80, 0xfe, 0xff})
    void booleansOtherThanZeroOrOneAreMalformed(int v) {
        ByteBuf b = Unpooled.wrappedBuffer(new byte[] {(byte) v});
        assertThatThrownBy(() -> Wire.readBoolean(b))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("boolean field holds " + v);
    }

    @Test
    void unsignedReads() {
        ByteBuf b = Unpooled.wrappedBuffer(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xfe});
        assertThat(Wire.readUnsignedByte(b)).isEqualTo(255);
        assertThat(Wire.readUnsignedShort(b)).isEqualTo(0xfffe);
    }

    @Test
    void truncatedPrimitivesAreMalformedAndConsumeNothing() {
        ByteBuf b = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5, 6, 7});
        assertThatThrownBy(() -> Wire.readLong(b))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("message truncated: needs 8 more bytes, has 7");
        assertThat(b.readerIndex()).isZero();
        assertThat(Wire.readInt(b)).isEqualTo(0x01020304);
        assertThatThrownBy(() -> Wire.readInt(b))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("message truncated: needs 4 more bytes, has 3");
        assertThat(Wire.readUnsignedShort(b)).isEqualTo(0x0506);
        assertThatThrownBy(() -> Wire.readUnsignedShort(b)).isExactlyInstanceOf(MalformedMessageException.class);
        assertThat(Wire.readUnsignedByte(b)).isEqualTo(7);
        assertThatThrownBy(() -> Wire.readUnsignedByte(b)).isExactlyInstanceOf(MalformedMessageException.class);
        assertThatThrownBy(() -> Wire.readInt(b, 0, 1, "f")).isExactlyInstanceOf(MalformedMessageException.class);
    }

    @Test
    void rangedIntsAreInclusive() {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(5).writeInt(10).writeInt(4).writeInt(11);
        assertThat(Wire.readInt(b, 5, 10, "n")).isEqualTo(5);
        assertThat(Wire.readInt(b, 5, 10, "n")).isEqualTo(10);
        assertThatThrownBy(() -> Wire.readInt(b, 5, 10, "n"))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("n = 4 outside 5..10");
        assertThatThrownBy(() -> Wire.readInt(b, 5, 10, "count"))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("count = 11 outside 5..10");
    }

    @Test
    void needAndEnd() {
        ByteBuf b = Unpooled.wrappedBuffer(new byte[] {1, 2});
        Wire.need(b, 0);
        Wire.need(b, 2);
        assertThatThrownBy(() -> Wire.need(b, 3))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("message truncated: needs 3 more bytes, has 2");
        assertThatThrownBy(() -> Wire.end(b))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("2 unexpected trailing bytes");
        b.skipBytes(2);
        Wire.end(b);
        Wire.end(Unpooled.EMPTY_BUFFER);
    }

    @Test
    void malformedMessagesAreCheapRuntimeExceptions() {
        MalformedMessageException e = new MalformedMessageException("bad");
        assertThat(e).isInstanceOf(RuntimeException.class).hasMessage("bad").hasNoCause();
        assertThat(e.getStackTrace()).as("no stack trace is captured").isEmpty();
        e.addSuppressed(new RuntimeException());
        assertThat(e.getSuppressed()).as("suppression is disabled").isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "alice", "supergroup", "ünïcødé", "日本",
            "a-name-longer-than-sixty-four-bytes-which-is-never-cached-0123456789"})
    void commonStringsDecodeLikeAnyStringAndShortAsciiOnesAreReused(String value) {
        ByteBuf buf = Unpooled.buffer();
        try {
            for (int i = 0; i < 3; i++) {
                Wire.writeString(buf, value);
            }
            Wire.writeString(buf, value + "x"); // another value that may share the slot
            String first = Wire.readCommonString(buf);
            String second = Wire.readCommonString(buf);
            assertThat(first).isEqualTo(value);
            assertThat(second).isEqualTo(value);
            boolean cachable = value.length() <= 64 && value.chars().allMatch(c -> c < 128) && !value.isEmpty();
            if (cachable) {
                assertThat(second).as("the same instance").isSameAs(first);
            }
            assertThat(Wire.readCommonString(buf)).isEqualTo(value);
            assertThat(Wire.readCommonString(buf)).isEqualTo(value + "x");
            assertThat(buf.readableBytes()).isZero();
        } finally {
            buf.release();
        }
    }
}
