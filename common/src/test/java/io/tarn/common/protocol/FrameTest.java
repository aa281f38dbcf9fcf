package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FrameTest {

    @Test
    void headerLayoutConstants() {
        assertThat(Frame.VERSION).isEqualTo((byte) 1);
        assertThat(Frame.LENGTH_OFFSET).isZero();
        assertThat(Frame.VERSION_OFFSET).isEqualTo(4);
        assertThat(Frame.FLAGS_OFFSET).isEqualTo(5);
        assertThat(Frame.OPCODE_OFFSET).isEqualTo(6);
        assertThat(Frame.REQUEST_ID_OFFSET).isEqualTo(8);
        assertThat(Frame.STATUS_OFFSET).isEqualTo(16);
        assertThat(Frame.HEADER_LENGTH).isEqualTo(20);
        assertThat(Frame.LENGTH_FIELD).isEqualTo(4);
        assertThat(Frame.FLAG_RESPONSE).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void beginWritesTheHeaderAndFinishFillsTheLength(Bufs.Kind kind) {
        ByteBuf b = kind.allocate();
        try {
            int start = Frame.begin(b, Opcode.CREATE, 0x0102030405060708L, Frame.FLAG_RESPONSE, 53);
            assertThat(start).isZero();
            assertThat(b.writerIndex()).isEqualTo(Frame.HEADER_LENGTH);
            assertThat(b.getInt(0)).as("placeholder length").isZero();
            Wire.writeString(b, "/dätä/文件");
            Frame.finish(b, start);

            assertThat(b.getInt(Frame.LENGTH_OFFSET)).isEqualTo(b.readableBytes() - Frame.LENGTH_FIELD);
            assertThat(Frame.version(b)).isEqualTo(Frame.VERSION);
            assertThat(Frame.flags(b)).isEqualTo(Frame.FLAG_RESPONSE);
            assertThat(Frame.opcode(b)).isEqualTo(Opcode.CREATE);
            assertThat(Frame.requestId(b)).isEqualTo(0x0102030405060708L);
            assertThat(Frame.status(b)).isEqualTo(53);

            // big-endian on the wire
            assertThat(b.getByte(Frame.REQUEST_ID_OFFSET)).isEqualTo((byte) 1);
            assertThat(b.getByte(Frame.REQUEST_ID_OFFSET + 7)).isEqualTo((byte) 8);
            assertThat(b.getByte(Frame.STATUS_OFFSET + 3)).isEqualTo((byte) 53);
            assertThat(b.getByte(Frame.OPCODE_OFFSET + 1)).isEqualTo((byte) Opcode.CREATE);

            b.skipBytes(Frame.HEADER_LENGTH);
            assertThat(Wire.readString(b)).isEqualTo("/dätä/文件");
            Wire.end(b);
        } finally {
            b.release();
        }
    }

    @Test
    void emptyBodyFrameHasLength16() {
        ByteBuf b = Unpooled.buffer();
        Frame.finish(b, Frame.begin(b, Opcode.PING, 1, 0, 0));
        assertThat(b.readableBytes()).isEqualTo(Frame.HEADER_LENGTH);
        assertThat(b.getInt(0)).isEqualTo(Frame.HEADER_LENGTH - Frame.LENGTH_FIELD);
        assertThat(Frame.flags(b) & Frame.FLAG_RESPONSE).isZero();
        assertThat(Frame.status(b)).isZero();
    }

    @Test
    void extremeHeaderValues() {
        ByteBuf b = Unpooled.buffer();
        Frame.finish(b, Frame.begin(b, 0xffff, Long.MIN_VALUE, 0xff, Integer.MIN_VALUE));
        assertThat(Frame.opcode(b)).isEqualTo(0xffff);
        assertThat(Frame.flags(b)).isEqualTo(0xff);
        assertThat(Frame.requestId(b)).isEqualTo(Long.MIN_VALUE);
        assertThat(Frame.status(b)).isEqualTo(Integer.MIN_VALUE);
        assertThat(Frame.version(b)).isEqualTo(1);
    }

    @Test
    void framesBackToBackInOneBuffer() {
        ByteBuf b = Unpooled.buffer();
        int first = Frame.begin(b, Opcode.GET_FILE, 1, 0, 0);
        Wire.writeString(b, "/a");
        Frame.finish(b, first);
        int second = Frame.begin(b, Opcode.DELETE, 2, Frame.FLAG_RESPONSE, 20);
        b.writeBytes(new byte[] {1, 2, 3});
        Frame.finish(b, second);

        assertThat(first).isZero();
        assertThat(second).isEqualTo(Frame.HEADER_LENGTH + 4);
        assertThat(b.getInt(first)).isEqualTo(16 + 4);
        assertThat(b.getInt(second)).isEqualTo(16 + 3);

        // accessors read relative to the reader index
        assertThat(Frame.opcode(b)).isEqualTo(Opcode.GET_FILE);
        assertThat(Frame.requestId(b)).isEqualTo(1);
        b.skipBytes(Frame.LENGTH_FIELD + b.getInt(first));
        assertThat(b.readerIndex()).isEqualTo(second);
        assertThat(Frame.opcode(b)).isEqualTo(Opcode.DELETE);
        assertThat(Frame.requestId(b)).isEqualTo(2);
        assertThat(Frame.flags(b)).isEqualTo(Frame.FLAG_RESPONSE);
        assertThat(Frame.status(b)).isEqualTo(20);
    }

    @Test
    void opcodesAreStable() {
        Map<Integer, String> expected = new LinkedHashMap<>();
        expected.put(1, "GET_FILE");
        expected.put(2, "CREATE");
        expected.put(3, "MKDIRS");
        expected.put(4, "GET_BLOCK");
        expected.put(5, "CLOSE");
        expected.put(6, "LIST");
        expected.put(7, "DELETE");
        expected.put(8, "RENAME");
        expected.put(9, "RENEW_LEASE");
        expected.put(10, "SYNC");
        expected.put(20, "REGISTER_DATANODE");
        expected.put(21, "HEARTBEAT");
        expected.put(22, "CLUSTER_STATUS");
        expected.put(23, "DEREGISTER_DATANODE");
        expected.put(100, "WRITE_BLOCK");
        expected.put(101, "READ_BLOCK");
        expected.put(104, "GROUP_WRITE");
        expected.put(105, "GROUP_READ");
        expected.put(200, "PING");
        expected.forEach((op, name) -> assertThat(Opcode.name(op)).isEqualTo(name));
        assertThat(Opcode.GET_FILE).isEqualTo(1);
        assertThat(Opcode.REGISTER_DATANODE).isEqualTo(20);
        assertThat(Opcode.DEREGISTER_DATANODE).isEqualTo(23);
        assertThat(Opcode.WRITE_BLOCK).isEqualTo(100);
        assertThat(Opcode.READ_BLOCK).isEqualTo(101);
        assertThat(Opcode.PING).isEqualTo(200);
    }

    @Test
    void unknownOpcodeNames() {
        assertThat(Opcode.name(0)).isEqualTo("OP_0");
        assertThat(Opcode.name(29)).isEqualTo("OP_29");
        assertThat(Opcode.name(65535)).isEqualTo("OP_65535");
        assertThat(Opcode.name(-1)).isEqualTo("OP_-1");
    }
}
