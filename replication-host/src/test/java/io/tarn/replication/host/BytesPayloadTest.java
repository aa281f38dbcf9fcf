package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BytesPayloadTest {

    @Property(tries = 200)
    void equalityFollowsContent(@ForAll @Size(max = 64) byte[] a, @ForAll @Size(max = 64) byte[] b) {
        BytesPayload pa = BytesPayload.copyOf(a);
        BytesPayload pb = BytesPayload.copyOf(b);
        assertThat(pa.equals(pb)).isEqualTo(Arrays.equals(a, b));
        assertThat(pa).isEqualTo(BytesPayload.copyOf(a.clone())).hasSameHashCodeAs(BytesPayload.copyOf(a));
        assertThat(pa.length()).isEqualTo(a.length);
    }

    @Test
    void crcIsCrc32cOfTheBytes() {
        byte[] data = "123456789".getBytes(StandardCharsets.US_ASCII);
        CRC32C expected = new CRC32C();
        expected.update(data);
        // 0xE3069283 is the published CRC-32C check value of "123456789".
        assertThat(BytesPayload.copyOf(data).crc32c()).isEqualTo((int) expected.getValue()).isEqualTo(0xE3069283);
    }

    @Test
    void copiesItsSourceSoLaterChangesDoNotLeakIn() {
        byte[] data = {1, 2, 3};
        BytesPayload p = BytesPayload.copyOf(data);
        data[0] = 9;
        assertThat(p.toByteArray()).containsExactly(1, 2, 3);
        p.toByteArray()[1] = 9;
        assertThat(p.toByteArray()).containsExactly(1, 2, 3);
    }

    @Test
    void viewsAreReadOnlyAndShareTheBytes() {
        BytesPayload p = BytesPayload.copyOf(new byte[] {1, 2, 3, 4, 5});
        ByteBuf all = p.asByteBuf();
        ByteBuf part = p.slice(1, 3);
        assertThat(ByteBufUtil.getBytes(all)).containsExactly(1, 2, 3, 4, 5);
        assertThat(ByteBufUtil.getBytes(part)).containsExactly(2, 3, 4);
        assertThat(all.isReadOnly()).isTrue();
        assertThatThrownBy(() -> all.setByte(0, 7)).isInstanceOf(ReadOnlyBufferException.class);
        assertThatThrownBy(() -> p.slice(3, 3)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void copiesFromByteBufWithoutMovingItsReaderIndex() {
        ByteBuf src = Unpooled.wrappedBuffer(new byte[] {7, 8, 9});
        src.readByte();
        BytesPayload p = BytesPayload.copyOf(src);
        assertThat(p.toByteArray()).containsExactly(8, 9);
        assertThat(src.readerIndex()).isEqualTo(1);
        ByteBuf out = Unpooled.buffer();
        p.writeTo(out);
        assertThat(ByteBufUtil.getBytes(out)).containsExactly(8, 9);
        assertThat(BytesPayload.copyOf(new byte[] {0, 8, 9, 0}, 1, 2)).isEqualTo(p);
    }
}
