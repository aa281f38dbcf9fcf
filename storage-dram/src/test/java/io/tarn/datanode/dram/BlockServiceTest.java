package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.BlockService;
import io.tarn.datanode.GenerationTable;
import io.tarn.datanode.Registration;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static io.tarn.datanode.dram.TestStamp.STAMP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every validation rule of the block service, driven through its RpcHandler entry with real buffers. */
class BlockServiceTest extends RegisteredBlockServiceFixture {
    private static final int BLOCK = 64 << 10;

    BlockServiceTest() {
        super(BLOCK);
    }

    private long writeToken(int region, int block, int generation) {
        return token(region, block, generation, BlockTokens.WRITE);
    }

    private long readToken(int region, int block, int generation) {
        return token(region, block, generation, BlockTokens.READ);
    }

    private CapturedRequest write(int region, int block, int generation, long token, int offset, byte[] data) {
        return write(region, block, generation, token, offset, data.length, data);
    }

    private CapturedRequest write(int region, int block, int generation, long token, int offset, int length,
                                  byte[] data) {
        ByteBuf body = Unpooled.directBuffer();
        DatanodeProtocol.writeAccess(body, region, block, generation, token, STAMP, offset, length);
        body.writeBytes(data);
        return handle(Opcode.WRITE_BLOCK, body);
    }

    private CapturedRequest read(int region, int block, int generation, long token, int offset, int length) {
        ByteBuf body = Unpooled.directBuffer();
        DatanodeProtocol.writeAccess(body, region, block, generation, token, STAMP, offset, length);
        return handle(Opcode.READ_BLOCK, body);
    }

    private CapturedRequest handle(int opcode, ByteBuf body) {
        CapturedRequest r = new CapturedRequest(opcode, body);
        service.handle(r);
        assertThat(r.status()).as("every request is answered").isNotNull();
        return r;
    }

    private static void assertFailed(CapturedRequest r, ErrorCode code, String fragment, String... more) {
        assertThat(r.status()).as(r.toString()).isEqualTo(code);
        assertThat(r.message()).contains(fragment);
        for (String m : more) {
            assertThat(r.message()).contains(m);
        }
    }

    @Test
    void writeThenReadReturnsTheBytes() {
        byte[] d = TestBytes.random(BLOCK, 1);
        assertThat(write(1, 15, 3, writeToken(1, 15, 3), 0, d).status()).isEqualTo(ErrorCode.OK);
        CapturedRequest r = read(1, 15, 3, readToken(1, 15, 3), 0, BLOCK);
        assertThat(r.status()).isEqualTo(ErrorCode.OK);
        assertThat(r.payload()).isEqualTo(d);
        assertThat(TestBytes.stored(regions, 1, 15L * BLOCK, BLOCK))
                .as("stored at the block's place in its region").isEqualTo(d);

        assertThat(metrics.writeRequests()).isEqualTo(1);
        assertThat(metrics.readRequests()).isEqualTo(1);
        assertThat(metrics.bytesWritten()).isEqualTo(BLOCK);
        assertThat(metrics.bytesRead()).isEqualTo(BLOCK);
        assertThat(metrics.errors()).isZero();
    }

    @Test
    void partialWritesAndReadsAddressBytesInsideTheBlock() {
        assertThat(write(0, 2, 1, writeToken(0, 2, 1), 100, new byte[] {1, 2, 3}).status()).isEqualTo(ErrorCode.OK);
        assertThat(write(0, 2, 1, writeToken(0, 2, 1), BLOCK - 2, new byte[] {8, 9}).status())
                .isEqualTo(ErrorCode.OK);
        assertThat(read(0, 2, 1, readToken(0, 2, 1), 99, 5).payload()).containsExactly(0, 1, 2, 3, 0);
        assertThat(read(0, 2, 1, readToken(0, 2, 1), BLOCK - 2, 2).payload()).containsExactly(8, 9);
        assertThat(read(0, 2, 1, readToken(0, 2, 1), 7, 0).payload()).isEmpty();
        assertThat(TestBytes.stored(regions, 0, 3L * BLOCK, 4)).as("next block untouched").containsExactly(0, 0, 0, 0);
    }

    @Test
    void aWriteTokenAlsoGrantsReading() {
        write(0, 0, 1, writeToken(0, 0, 1), 0, new byte[] {5});
        assertThat(read(0, 0, 1, writeToken(0, 0, 1), 0, 1).payload()).containsExactly(5);
    }

    @Test
    void everythingIsRefusedBeforeRegistration() {
        service = new BlockService(regions, metrics, List.of("nn:9060"));
        assertFailed(write(0, 0, 1, 0, 0, new byte[1]), ErrorCode.UNKNOWN_DATANODE, "not registered yet");
        assertFailed(read(0, 0, 1, 0, 0, 1), ErrorCode.UNKNOWN_DATANODE, "not registered yet");
        assertThat(metrics.errors(ErrorCode.UNKNOWN_DATANODE)).isEqualTo(2);
    }

    @Test
    void regionsOutsideTheDatanodeAreOutOfRange() {
        assertFailed(write(REGIONS, 0, 1, writeToken(REGIONS, 0, 1), 0, new byte[1]), ErrorCode.OUT_OF_RANGE,
                "region 2 block 0 generation 1", "no such region");
        assertFailed(read(-1, 0, 1, readToken(-1, 0, 1), 0, 1), ErrorCode.OUT_OF_RANGE, "region -1", "no such region");
    }

    @Test
    void blocksOutsideTheRegionAreOutOfRange() {
        int blocks = REGION / BLOCK;
        assertFailed(write(0, blocks, 1, writeToken(0, blocks, 1), 0, new byte[1]), ErrorCode.OUT_OF_RANGE,
                "block " + blocks, "no such block");
        assertFailed(read(0, -1, 1, readToken(0, -1, 1), 0, 1), ErrorCode.OUT_OF_RANGE, "block -1", "no such block");
    }

    @Test
    void offsetsAndLengthsOutsideTheBlockAreOutOfRange() {
        long t = writeToken(0, 1, 1);
        assertFailed(write(0, 1, 1, t, -1, new byte[1]), ErrorCode.OUT_OF_RANGE, "offset -1");
        assertFailed(write(0, 1, 1, t, BLOCK - 1, new byte[2]), ErrorCode.OUT_OF_RANGE, "leave the block of 65536");
        assertFailed(read(0, 1, 1, t, 0, -5), ErrorCode.OUT_OF_RANGE, "length -5");
        assertFailed(read(0, 1, 1, t, 0, BLOCK + 1), ErrorCode.OUT_OF_RANGE, "length 65537");
        assertFailed(read(0, 1, 1, t, Integer.MAX_VALUE, Integer.MAX_VALUE), ErrorCode.OUT_OF_RANGE,
                "offset 2147483647");
        assertThat(TestBytes.stored(regions, 0, BLOCK, BLOCK)).as("nothing written").isEqualTo(new byte[BLOCK]);
        assertThat(metrics.errors(ErrorCode.OUT_OF_RANGE)).isEqualTo(5);
    }

    @Test
    void aWriteMustCarryExactlyTheAnnouncedBytes() {
        long t = writeToken(0, 1, 1);
        assertFailed(write(0, 1, 1, t, 0, 10, new byte[9]), ErrorCode.MALFORMED_REQUEST,
                "announces 10 data bytes but carries 9");
        assertFailed(write(0, 1, 1, t, 0, 10, new byte[11]), ErrorCode.MALFORMED_REQUEST, "carries 11");
        assertThat(read(0, 1, 1, t, 0, 1).status()).as("generation not taken by a refused write")
                .isEqualTo(ErrorCode.BLOCK_NOT_WRITTEN);
    }

    @Test
    void aReadBodyWithTrailingBytesIsRefused() {
        ByteBuf body = Unpooled.buffer();
        DatanodeProtocol.writeAccess(body, 0, 0, 0, readToken(0, 0, 0), STAMP, 0, 1);
        body.writeInt(42);
        assertFailed(handle(Opcode.READ_BLOCK, body), ErrorCode.MALFORMED_REQUEST, "4 unexpected trailing bytes");
    }

    @Test
    void aBodyShorterThanTheAccessPartIsMalformed() {
        ByteBuf body = Unpooled.buffer().writeInt(0).writeInt(0);
        CapturedRequest request = new CapturedRequest(Opcode.WRITE_BLOCK, body);
        assertThatThrownBy(() -> service.handle(request))
                .isInstanceOf(MalformedMessageException.class).hasMessageContaining("truncated");
        assertThat(request.status()).as("left to the transport to answer").isNull();
        body.release();
        assertThatThrownBy(() -> service.handle(new CapturedRequest(Opcode.READ_BLOCK, Unpooled.EMPTY_BUFFER)))
                .isInstanceOf(MalformedMessageException.class);
    }

    @Test
    void tokensMustMatchDatanodeBlockGenerationAndMode() {
        byte[] d = {1, 2, 3};
        assertFailed(write(0, 1, 1, writeToken(0, 2, 1), 0, d), ErrorCode.INVALID_TOKEN,
                "WRITE_BLOCK region 0 block 1 generation 1", "does not grant writing");
        assertFailed(write(0, 1, 1, writeToken(1, 1, 1), 0, d), ErrorCode.INVALID_TOKEN, "does not grant writing");
        assertFailed(write(0, 1, 2, writeToken(0, 1, 1), 0, d), ErrorCode.INVALID_TOKEN, "does not grant writing");
        assertFailed(write(0, 1, 1, tokens.issue(DN + 1, 0, 1, 1, BlockTokens.WRITE, STAMP), 0, d),
                ErrorCode.INVALID_TOKEN,
                "does not grant writing");
        assertFailed(write(0, 1, 1, readToken(0, 1, 1), 0, d), ErrorCode.INVALID_TOKEN, "does not grant writing");
        assertFailed(write(0, 1, 1, new BlockTokens(1, 2).issue(DN, 0, 1, 1, BlockTokens.WRITE, STAMP), 0, d),
                ErrorCode.INVALID_TOKEN, "does not grant writing");
        assertThat(TestBytes.stored(regions, 0, BLOCK, 3)).as("nothing written").containsExactly(0, 0, 0);

        write(0, 1, 1, writeToken(0, 1, 1), 0, d);
        assertFailed(read(0, 1, 1, readToken(0, 0, 1), 0, 3), ErrorCode.INVALID_TOKEN, "does not grant reading");
        assertThat(metrics.errors(ErrorCode.INVALID_TOKEN)).isEqualTo(7);
    }

    @Test
    void anOlderGenerationCannotWriteOrRead() {
        byte[] newer = TestBytes.random(1000, 2);
        write(1, 4, 5, writeToken(1, 4, 5), 0, newer);
        assertFailed(write(1, 4, 4, writeToken(1, 4, 4), 0, TestBytes.random(1000, 3)), ErrorCode.STALE_GENERATION,
                "region 1 block 4 generation 4", "already holds generation 5");
        assertFailed(read(1, 4, 4, readToken(1, 4, 4), 0, 1000), ErrorCode.STALE_GENERATION,
                "generation 4", "now holds generation 5");
        assertThat(read(1, 4, 5, readToken(1, 4, 5), 0, 1000).payload()).as("data of generation 5 kept")
                .isEqualTo(newer);
    }

    @Test
    void aNewerGenerationTakesOverTheBlock() {
        write(0, 3, 1, writeToken(0, 3, 1), 0, new byte[] {1});
        assertThat(write(0, 3, 2, writeToken(0, 3, 2), 0, new byte[] {2}).status()).isEqualTo(ErrorCode.OK);
        assertThat(read(0, 3, 2, readToken(0, 3, 2), 0, 1).payload()).containsExactly(2);
        assertThat(read(0, 3, 1, readToken(0, 3, 1), 0, 1).status()).isEqualTo(ErrorCode.STALE_GENERATION);
    }

    @Test
    void readingAGenerationNotWrittenYetIsRefused() {
        assertFailed(read(0, 9, 1, readToken(0, 9, 1), 0, 10), ErrorCode.BLOCK_NOT_WRITTEN,
                "region 0 block 9 generation 1", "holds generation 0");
        write(0, 9, 1, writeToken(0, 9, 1), 0, new byte[] {1});
        assertFailed(read(0, 9, 2, readToken(0, 9, 2), 0, 1), ErrorCode.BLOCK_NOT_WRITTEN, "holds generation 1");
    }

    @Test
    void aNewRegistrationReplacesTheTokenKey() {
        BlockTokens next = new BlockTokens(99, 100);
        write(0, 0, 1, writeToken(0, 0, 1), 0, new byte[] {4});
        service.register(0, new Registration(DN, BLOCK, next, service.registration(0).generations()));
        assertThat(read(0, 0, 1, readToken(0, 0, 1), 0, 1).status()).isEqualTo(ErrorCode.INVALID_TOKEN);
        assertThat(read(0, 0, 1, next.issue(DN, 0, 0, 1, BlockTokens.READ, STAMP), 0, 1).payload()).containsExactly(4);
    }

    @Test
    void aRetiredNamenodesTokensAreRefusedNamingTheRestartUntilItRegistersAgain() {
        write(0, 0, 1, writeToken(0, 0, 1), 0, new byte[] {4});
        Registration before = service.registration(0);
        service.retire(0); // it registers again after a restart without its journal
        assertFailed(read(0, 0, 1, readToken(0, 0, 1), 0, 1), ErrorCode.INVALID_TOKEN,
                "restarted without its journal");
        assertFailed(write(0, 0, 2, writeToken(0, 0, 2), 0, new byte[] {5}), ErrorCode.INVALID_TOKEN,
                "restarted without its journal");
        BlockTokens next = new BlockTokens(99, 100);
        service.register(0, new Registration(DN, BLOCK, next, before.generations()));
        assertFailed(read(0, 0, 1, readToken(0, 0, 1), 0, 1), ErrorCode.INVALID_TOKEN,
                "restarted without its journal");
        assertThat(read(0, 0, 1, next.issue(DN, 0, 0, 1, BlockTokens.READ, STAMP), 0, 1).payload()).containsExactly(4);
    }

    @Test
    void aRegistrationNotMatchingTheRegionsIsRejected() {
        assertThatThrownBy(() -> service.register(0, new Registration(DN, BLOCK, tokens,
                GenerationTable.inMemory(REGION, REGIONS + 1, BLOCK)))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Registration(DN, 2 * BLOCK, tokens, GenerationTable.inMemory(REGION, 2, BLOCK)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void pingIsAnsweredAndUnknownOperationsRefused() {
        CapturedRequest ping = handle(Opcode.PING, Unpooled.EMPTY_BUFFER);
        assertThat(ping.status()).isEqualTo(ErrorCode.OK);
        assertThat(ping.payload()).isEmpty();
        assertThat(metrics.pings()).isEqualTo(1);
        assertFailed(handle(Opcode.CREATE, Unpooled.EMPTY_BUFFER), ErrorCode.UNKNOWN_OPCODE, "CREATE");
    }

    @Test
    void manyBlocksKeepTheirOwnData() {
        int blocks = REGION / BLOCK;
        for (int r = 0; r < REGIONS; r++) {
            for (int b = 0; b < blocks; b++) {
                byte[] d = new byte[BLOCK];
                Arrays.fill(d, (byte) (r * blocks + b));
                assertThat(write(r, b, 1, writeToken(r, b, 1), 0, d).status()).isEqualTo(ErrorCode.OK);
            }
        }
        for (int r = 0; r < REGIONS; r++) {
            for (int b = 0; b < blocks; b++) {
                byte[] got = read(r, b, 1, readToken(r, b, 1), 0, BLOCK).payload();
                assertThat(got[0]).isEqualTo((byte) (r * blocks + b));
                assertThat(got[BLOCK - 1]).isEqualTo((byte) (r * blocks + b));
            }
        }
    }
}
