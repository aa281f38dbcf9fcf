package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.BlockService;
import io.tarn.rpc.PayloadPlacement;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.tarn.datanode.dram.TestStamp.STAMP;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * WRITE_BLOCK data received straight into the region ({@link PayloadPlacement}): the block service
 * places only what it would store, advances the generation before any byte lands, and refuses a
 * write whose block was taken over while its data arrived.
 */
class PlacedWritesTest extends RegisteredBlockServiceFixture {
    private static final int BLOCK = 256 << 10;

    PlacedWritesTest() {
        super(BLOCK);
    }

    private static ByteBuf head(int region, int block, int generation, long token, int offset, int length) {
        ByteBuf head = Unpooled.buffer();
        DatanodeProtocol.writeAccess(head, region, block, generation, token, STAMP, offset, length);
        return head;
    }

    private PayloadPlacement.Target place(int region, int block, int generation, long token, int offset, int length,
                                          int payload) {
        ByteBuf head = head(region, block, generation, token, offset, length);
        try {
            return service.place(Opcode.WRITE_BLOCK, head, payload);
        } finally {
            head.release();
        }
    }

    @Test
    void onlyWriteBlockIsPlacedAfterItsAccessPart() {
        assertThat(service.headLength(Opcode.WRITE_BLOCK)).isEqualTo(DatanodeProtocol.ACCESS_LENGTH);
        assertThat(service.headLength(Opcode.READ_BLOCK)).isEqualTo(-1);
        assertThat(service.headLength(Opcode.SC_WRITE)).isEqualTo(-1);
    }

    @Test
    void aPlacedWriteLandsInItsBlockAndIsAnsweredLikeAnyWrite() {
        byte[] d = TestBytes.random(100_000, 100_000);
        PayloadPlacement.Target t = place(1, 2, 5, token(1, 2, 5, BlockTokens.WRITE), 4096, d.length, d.length);
        assertThat(t).isNotNull();
        assertThat(generations.get(1, 2)).as("advanced before any byte lands").isEqualTo(5);
        ByteBuf memory = t.memory();
        assertThat(memory.writerIndex()).isZero();
        assertThat(memory.capacity()).isEqualTo(d.length);
        memory.writeBytes(d);
        memory.release();
        assertThat(TestBytes.stored(regions, 1, 2L * BLOCK + 4096, d.length))
                .as("the memory is the block's").isEqualTo(d);
        assertThat(t.stillValid()).isTrue();

        CapturedRequest r = new CapturedRequest(Opcode.WRITE_BLOCK,
                head(1, 2, 5, token(1, 2, 5, BlockTokens.WRITE), 4096, d.length), d.length);
        service.handle(r);
        assertThat(r.status()).isEqualTo(ErrorCode.OK);
        assertThat(metrics.bytesWritten()).isEqualTo(d.length);
        assertThat(metrics.errors()).isZero();
    }

    @Test
    void nothingIsPlacedThatAWriteWouldRefuse() {
        int n = 70_000;
        long good = token(0, 1, 3, BlockTokens.WRITE);
        assertThat(place(2, 1, 3, good, 0, n, n)).as("no such region").isNull();
        assertThat(place(0, REGION / BLOCK, 3, token(0, REGION / BLOCK, 3, BlockTokens.WRITE), 0, n, n))
                .as("no such block").isNull();
        assertThat(place(0, 1, 3, good, BLOCK - n + 1, n, n)).as("leaves the block").isNull();
        assertThat(place(0, 1, 3, good, 0, n, n + 1)).as("carries more than it announces").isNull();
        assertThat(place(0, 1, 3, good + 1, 0, n, n)).as("forged token").isNull();
        assertThat(place(0, 1, 3, token(0, 1, 3, BlockTokens.READ), 0, n, n)).as("read token").isNull();
        assertThat(generations.get(0, 1)).as("refusals leave the generation alone").isZero();

        generations.advance(0, 1, 4);
        assertThat(place(0, 1, 3, good, 0, n, n)).as("older generation").isNull();
        assertThat(generations.get(0, 1)).isEqualTo(4);

        BlockService unregistered = new BlockService(regions, metrics, List.of("nn:9060"));
        ByteBuf head = head(0, 1, 4, token(0, 1, 4, BlockTokens.WRITE), 0, n);
        assertThat(unregistered.place(Opcode.WRITE_BLOCK, head, n)).as("not registered yet").isNull();
        head.release();
    }

    @Test
    void aBlockTakenOverWhileTheDataArrivesStopsThePlacementAndTheWriteIsRefused() {
        int n = 200_000;
        long token = token(0, 3, 2, BlockTokens.WRITE);
        PayloadPlacement.Target t = place(0, 3, 2, token, 0, n, n);
        assertThat(t).isNotNull();
        t.memory().writeBytes(TestBytes.random(1000, 1000));
        // The block is freed and given to a newer writer meanwhile.
        generations.advance(0, 3, 3);
        assertThat(t.stillValid()).isFalse();
        t.memory().release();

        CapturedRequest r = new CapturedRequest(Opcode.WRITE_BLOCK, head(0, 3, 2, token, 0, n), 1000);
        service.handle(r);
        assertThat(r.status()).isEqualTo(ErrorCode.STALE_GENERATION);
        assertThat(r.message()).contains("region 0 block 3 generation 2", "was given generation 3");
        assertThat(metrics.bytesWritten()).isZero();
    }
}
