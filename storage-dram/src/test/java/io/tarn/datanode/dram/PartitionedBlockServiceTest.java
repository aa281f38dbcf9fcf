package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.BlockService;
import io.tarn.datanode.DatanodeMetrics;
import io.tarn.datanode.GenerationTable;
import io.tarn.datanode.Registration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.tarn.datanode.dram.TestStamp.STAMP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A block service shared by two namenodes: region r is checked against the registration of
 * namenode r mod 2 (its datanode id and token key), whatever the other one said.
 */
class PartitionedBlockServiceTest {
    private static final int REGION = 256 << 10;
    private static final int BLOCK = 64 << 10;
    private static final int REGIONS = 4;

    private final BlockTokens keyOf0 = new BlockTokens(1, 2);
    private final BlockTokens keyOf1 = new BlockTokens(3, 4);
    private final GenerationTable generations = GenerationTable.inMemory(REGION, REGIONS, BLOCK);
    private final DatanodeMetrics metrics = new DatanodeMetrics();
    private BlockService service;

    @BeforeEach
    void setUp() {
        service = new BlockService(DirectRegions.allocate(REGIONS, REGION), metrics, List.of("nn0:1", "nn1:2"));
    }

    /** A stamp naming namenode {@code issuer}, valid for a day. */
    private static long stampOf(int issuer) {
        return BlockTokens.stampOf(issuer, BlockTokens.keyId(STAMP), BlockTokens.expiryMillis(STAMP) / 1000);
    }

    private CapturedRequest handle(int opcode, int region, long token, long stamp, byte[] data) {
        ByteBuf body = Unpooled.buffer();
        DatanodeProtocol.writeAccess(body, region, 0, 1, token, stamp, 0, data.length);
        if (opcode == Opcode.WRITE_BLOCK) {
            body.writeBytes(data);
        }
        CapturedRequest r = new CapturedRequest(opcode, body);
        service.handle(r);
        return r;
    }

    private CapturedRequest write(int region, long token, long stamp) {
        return handle(Opcode.WRITE_BLOCK, region, token, stamp, new byte[] {(byte) region});
    }

    private CapturedRequest read(int region, long token, long stamp) {
        return handle(Opcode.READ_BLOCK, region, token, stamp, new byte[1]);
    }

    @Test
    void eachTokenIsCheckedWithItsIssuersIdAndKey() {
        service.register(0, new Registration(5, BLOCK, keyOf0, generations));
        service.register(1, new Registration(9, BLOCK, keyOf1, generations));
        long s0 = stampOf(0);
        long s1 = stampOf(1);
        assertThat(write(2, keyOf0.issue(5, 2, 0, 1, BlockTokens.WRITE, s0), s0).status()).isEqualTo(ErrorCode.OK);
        assertThat(write(3, keyOf1.issue(9, 3, 0, 1, BlockTokens.WRITE, s1), s1).status()).isEqualTo(ErrorCode.OK);
        assertThat(read(3, keyOf1.issue(9, 3, 0, 1, BlockTokens.READ, s1), s1).payload()).containsExactly(3);
        // A namenode that adopted a file from another issues the tokens of its blocks in the other's regions.
        assertThat(read(3, keyOf0.issue(5, 3, 0, 1, BlockTokens.READ, s0), s0).payload())
                .as("namenode 0's token, naming it, for namenode 1's region").containsExactly(3);

        CapturedRequest crossed = read(3, keyOf0.issue(5, 3, 0, 1, BlockTokens.READ, s1), s1);
        assertThat(crossed.status()).as("namenode 0's key passed off as namenode 1's")
                .isEqualTo(ErrorCode.INVALID_TOKEN);
        assertThat(read(3, keyOf1.issue(5, 3, 0, 1, BlockTokens.READ, s1), s1).status())
                .as("namenode 0's id for the datanode under namenode 1's key").isEqualTo(ErrorCode.INVALID_TOKEN);
        assertThat(read(2, keyOf0.issue(9, 2, 0, 1, BlockTokens.READ, s0), s0).status())
                .as("nor does the other namenode's datanode id").isEqualTo(ErrorCode.INVALID_TOKEN);
        assertThat(read(2, keyOf0.issue(5, 2, 0, 1, BlockTokens.READ, s0), stampOf(7)).status())
                .as("an issuer that is no namenode of the datanode's").isEqualTo(ErrorCode.INVALID_TOKEN);
    }

    @Test
    void theRegionsOfANamenodeNotRegisteredYetAreRefusedNamingIt() {
        service.register(0, new Registration(5, BLOCK, keyOf0, generations));
        CapturedRequest r = read(1, keyOf1.issue(9, 1, 0, 1, BlockTokens.READ, stampOf(1)), stampOf(1));
        assertThat(r.status()).isEqualTo(ErrorCode.UNKNOWN_DATANODE);
        assertThat(r.message()).contains("READ_BLOCK region 1 block 0").contains("not registered yet")
                .contains("namenode 1 (nn1:2)");
        assertThat(write(0, keyOf0.issue(5, 0, 0, 1, BlockTokens.WRITE, STAMP),
                STAMP).status()).as("the other's are served")
                .isEqualTo(ErrorCode.OK);
        assertThat(read(REGIONS, 0, STAMP).status()).as("a region that does not exist is out of range")
                .isEqualTo(ErrorCode.OUT_OF_RANGE);
    }

    @Test
    void everyNamenodeMustCarveTheSameBlocks() {
        service.register(0, new Registration(5, BLOCK, keyOf0, generations));
        GenerationTable other = GenerationTable.inMemory(REGION, REGIONS, 2 * BLOCK);
        assertThatThrownBy(() -> service.register(1, new Registration(9, 2 * BLOCK, keyOf1, other)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("namenode 1 (nn1:2)").hasMessageContaining("tarn.blocksize");
        assertThat(service.registration(1)).isNull();
        service.register(0, new Registration(5, 2 * BLOCK, keyOf0, other));
        assertThat(service.registration(0).blockSize()).as("alone, a namenode may change it").isEqualTo(2 * BLOCK);
    }

    @Test
    void aServiceNeedsARegionPerNamenode() {
        assertThatThrownBy(() -> new BlockService(DirectRegions.allocate(1, REGION), metrics, List.of("a:1", "b:2")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 regions")
                .hasMessageContaining("2 namenodes");
    }
}
