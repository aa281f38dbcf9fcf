package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.protocol.DatanodeProtocol.Access;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DatanodeProtocolTest {

    @Test
    void layoutConstants() {
        assertThat(DatanodeProtocol.REGION_OFFSET).isZero();
        assertThat(DatanodeProtocol.BLOCK_INDEX_OFFSET).isEqualTo(4);
        assertThat(DatanodeProtocol.GENERATION_OFFSET).isEqualTo(8);
        assertThat(DatanodeProtocol.TOKEN_OFFSET).isEqualTo(12);
        assertThat(DatanodeProtocol.STAMP_OFFSET).isEqualTo(20);
        assertThat(DatanodeProtocol.BLOCK_OFFSET_OFFSET).isEqualTo(28);
        assertThat(DatanodeProtocol.LENGTH_OFFSET).isEqualTo(32);
        assertThat(DatanodeProtocol.ACCESS_LENGTH).isEqualTo(36);
    }

    @Test
    void writeAccessWritesTheDocumentedBigEndianLayout() {
        ByteBuf b = Unpooled.buffer();
        DatanodeProtocol.writeAccess(b, 0x01020304, 0x05060708, 0x090a0b0c, 0x0d0e0f1011121314L,
                0x15161718191a1b1cL, 0x1d1e1f20, 0x21222324);
        assertThat(b.readableBytes()).isEqualTo(DatanodeProtocol.ACCESS_LENGTH);
        byte[] bytes = new byte[36];
        b.getBytes(0, bytes);
        for (int i = 0; i < 36; i++) {
            assertThat(bytes[i]).as("byte %d", i).isEqualTo((byte) (i + 1));
        }
    }

    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void accessReadsTheFieldsInPlaceAfterAFrameHeader(Bufs.Kind kind) {
        ByteBuf b = kind.allocate();
        try {
            int start = Frame.begin(b, Opcode.WRITE_BLOCK, 99, 0, 0);
            DatanodeProtocol.writeAccess(b, -1, Integer.MAX_VALUE, 7, Long.MIN_VALUE, Long.MAX_VALUE, 4096, 3);
            b.writeBytes(new byte[] {'a', 'b', 'c'});
            Frame.finish(b, start);
            b.skipBytes(Frame.HEADER_LENGTH);

            Access a = new Access().wrap(b);
            assertThat(a.regionId()).isEqualTo(-1);
            assertThat(a.blockIndex()).isEqualTo(Integer.MAX_VALUE);
            assertThat(a.generation()).isEqualTo(7);
            assertThat(a.token()).isEqualTo(Long.MIN_VALUE);
            assertThat(a.tokenStamp()).isEqualTo(Long.MAX_VALUE);
            assertThat(a.offset()).isEqualTo(4096);
            assertThat(a.length()).isEqualTo(3);
            assertThat(a.dataIndex()).isEqualTo(Frame.HEADER_LENGTH + DatanodeProtocol.ACCESS_LENGTH);
            assertThat(b.getByte(a.dataIndex())).isEqualTo((byte) 'a');
            assertThat(b.readerIndex()).as("wrap does not consume").isEqualTo(Frame.HEADER_LENGTH);
        } finally {
            b.release();
        }
    }

    @Test
    void oneAccessInstanceIsReusedAcrossBodies() {
        ByteBuf first = Unpooled.buffer();
        DatanodeProtocol.writeAccess(first, 1, 2, 3, 4, 45, 5, 6);
        ByteBuf second = Unpooled.buffer();
        second.writeZero(5);
        DatanodeProtocol.writeAccess(second, 10, 20, 30, 40, 45, 50, 60);
        second.skipBytes(5);

        Access a = new Access();
        assertThat(a.wrap(first)).isSameAs(a);
        assertThat(a.regionId()).isEqualTo(1);
        a.wrap(second);
        assertThat(a.regionId()).isEqualTo(10);
        assertThat(a.token()).isEqualTo(40);
        assertThat(a.length()).isEqualTo(60);
        assertThat(a.dataIndex()).isEqualTo(5 + 36);
    }

    @Test
    void shortBodyIsMalformed() {
        for (int len = 0; len < DatanodeProtocol.ACCESS_LENGTH; len++) {
            ByteBuf b = Unpooled.buffer();
            b.writeZero(len);
            int n = len;
            assertThatThrownBy(() -> new Access().wrap(b))
                    .as("%d bytes", n)
                    .isExactlyInstanceOf(MalformedMessageException.class)
                    .hasMessage("message truncated: needs 36 more bytes, has " + len);
        }
        ByteBuf exact = Unpooled.buffer();
        exact.writeZero(36);
        assertThat(new Access().wrap(exact).dataIndex()).isEqualTo(36);
    }

    @Property
    void accessRoundTrips(@ForAll int region, @ForAll int block, @ForAll int gen, @ForAll long token,
                          @ForAll long stamp, @ForAll int offset, @ForAll int length) {
        ByteBuf b = Unpooled.directBuffer(36);
        try {
            DatanodeProtocol.writeAccess(b, region, block, gen, token, stamp, offset, length);
            Access a = new Access().wrap(b);
            assertThat(new long[] {a.regionId(), a.blockIndex(), a.generation(), a.token(), a.tokenStamp(),
                a.offset(), a.length()}).containsExactly(region, block, gen, token, stamp, offset, length);
        } finally {
            b.release();
        }
    }
}
