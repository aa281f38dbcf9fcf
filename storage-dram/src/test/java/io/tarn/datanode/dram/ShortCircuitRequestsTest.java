package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.ShortCircuitProtocol;
import io.tarn.common.protocol.ShortCircuitProtocol.Grant;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.BlockService;
import io.tarn.datanode.Registration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.UUID;

import static io.tarn.datanode.dram.TestStamp.STAMP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The datanode side of short-circuit access: SC_READ and SC_WRITE pass the checks of READ_BLOCK and
 * WRITE_BLOCK, advance generations like a write, count in the metrics, and answer a grant naming
 * the storage; a datanode that does not offer it refuses before any check.
 */
class ShortCircuitRequestsTest extends RegisteredBlockServiceFixture {
    private static final int BLOCK = 64 << 10;
    private static final UUID STORAGE = UUID.fromString("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0");
    private static final String DIR = "/dev/shm/tarn/" + STORAGE;

    ShortCircuitRequestsTest() {
        super(BLOCK);
    }

    @Override
    BlockService newService() {
        return new BlockService(regions, metrics, List.of("nn:9060"), new BlockService.LocalFiles(STORAGE, DIR),
                "unused");
    }

    @BeforeEach
    void needsABootId() {
        assumeThat(ShortCircuitProtocol.bootId()).as("this host has a boot id").isNotEmpty();
    }

    private CapturedRequest request(int opcode, int region, int block, int generation, long token, int offset,
                                    int length) {
        ByteBuf body = Unpooled.directBuffer();
        DatanodeProtocol.writeAccess(body, region, block, generation, token, STAMP, offset, length);
        return handle(opcode, body);
    }

    private CapturedRequest handle(int opcode, ByteBuf body) {
        CapturedRequest r = new CapturedRequest(opcode, body);
        service.handle(r);
        assertThat(r.status()).as("every request is answered").isNotNull();
        return r;
    }

    private static Grant grant(CapturedRequest r) {
        assertThat(r.status()).as(r.toString()).isEqualTo(ErrorCode.OK);
        return Grant.read(Unpooled.wrappedBuffer(r.payload()));
    }

    private static void assertFailed(CapturedRequest r, ErrorCode code, String fragment) {
        assertThat(r.status()).as(r.toString()).isEqualTo(code);
        assertThat(r.message()).contains(fragment);
    }

    @Test
    void writeGrantNamesTheStorageAdvancesTheGenerationAndMovesNoBytes() {
        assertThat(service.offersShortCircuit()).isTrue();
        Grant g = grant(request(Opcode.SC_WRITE, 1, 3, 5, token(1, 3, 5, BlockTokens.WRITE), 0, BLOCK));

        assertThat(g.offered()).isTrue();
        assertThat(g.storageId()).isEqualTo(STORAGE);
        assertThat(g.directory()).isEqualTo(DIR);
        assertThat(g.regionSize()).isEqualTo(REGION);
        assertThat(g.blockSize()).isEqualTo(BLOCK);
        assertThat(g.bootId()).isEqualTo(ShortCircuitProtocol.bootId());
        assertThat(generations.get(1, 3)).isEqualTo(5);

        ByteBuf stored = regions.read(1, 3L * BLOCK, BLOCK);
        try {
            assertThat(stored.forEachByte(b -> b == 0)).as("the datanode stores nothing itself").isEqualTo(-1);
        } finally {
            stored.release();
        }
        assertThat(metrics.shortCircuitRequests()).isEqualTo(1);
        assertThat(metrics.writeRequests()).isEqualTo(1);
        assertThat(metrics.bytesWritten()).isEqualTo(BLOCK);
    }

    @Test
    void readGrantChecksTheGenerationLikeATcpRead() {
        byte[] data = {1, 2, 3};
        ByteBuf body = Unpooled.directBuffer();
        DatanodeProtocol.writeAccess(body, 0, 2, 4, token(0, 2, 4, BlockTokens.WRITE), STAMP, 0, data.length);
        body.writeBytes(data);
        assertThat(handle(Opcode.WRITE_BLOCK, body).status()).isEqualTo(ErrorCode.OK);

        Grant g = grant(request(Opcode.SC_READ, 0, 2, 4, token(0, 2, 4, BlockTokens.READ), 0, 3));
        assertThat(g.offered()).isTrue();
        assertThat(metrics.readRequests()).isEqualTo(1);
        assertThat(metrics.bytesRead()).isEqualTo(3);
        assertThat(metrics.shortCircuitRequests()).isEqualTo(1);

        assertFailed(request(Opcode.SC_READ, 0, 2, 3, token(0, 2, 3, BlockTokens.READ), 0, 3),
                ErrorCode.STALE_GENERATION, "now holds generation 4");
        assertFailed(request(Opcode.SC_READ, 0, 2, 6, token(0, 2, 6, BlockTokens.READ), 0, 3),
                ErrorCode.BLOCK_NOT_WRITTEN, "never written here");
        assertFailed(request(Opcode.SC_READ, 0, 2, 4, token(0, 2, 4, BlockTokens.READ) ^ 1, 0, 3),
                ErrorCode.INVALID_TOKEN, "does not grant reading");
        assertThat(metrics.shortCircuitRequests()).as("refused requests do not count").isEqualTo(1);
    }

    @Test
    void writeGrantNeedsAWriteTokenAndACurrentGeneration() {
        assertFailed(request(Opcode.SC_WRITE, 0, 1, 2, token(0, 1, 2, BlockTokens.READ), 0, 10),
                ErrorCode.INVALID_TOKEN, "does not grant writing");
        assertThat(generations.get(0, 1)).as("a refused write advances nothing").isZero();

        assertThat(grant(request(Opcode.SC_WRITE, 0, 1, 9, token(0, 1, 9, BlockTokens.WRITE), 0, 10)).offered())
                .isTrue();
        assertFailed(request(Opcode.SC_WRITE, 0, 1, 8, token(0, 1, 8, BlockTokens.WRITE), 0, 10),
                ErrorCode.STALE_GENERATION, "already holds generation 9");
        assertThat(generations.get(0, 1)).isEqualTo(9);
        assertThat(metrics.errors(ErrorCode.STALE_GENERATION)).isEqualTo(1);
    }

    @Test
    void addressesAndBodiesAreCheckedBeforeAnyGrant() {
        assertFailed(request(Opcode.SC_READ, REGIONS, 0, 1, 0, 0, 1), ErrorCode.OUT_OF_RANGE, "no such region");
        assertFailed(request(Opcode.SC_WRITE, 0, 0, 1, token(0, 0, 1, BlockTokens.WRITE), BLOCK - 1, 2),
                ErrorCode.OUT_OF_RANGE, "leave the block");
        assertThat(generations.get(0, 0)).isZero();

        ByteBuf trailing = Unpooled.directBuffer();
        DatanodeProtocol.writeAccess(trailing, 0, 0, 1, token(0, 0, 1, BlockTokens.WRITE), STAMP, 0, 1);
        trailing.writeByte(42);
        assertFailed(handle(Opcode.SC_WRITE, trailing), ErrorCode.MALFORMED_REQUEST, "unexpected trailing bytes");
        assertThat(generations.get(0, 0)).as("a malformed write advances nothing").isZero();

        ByteBuf truncated = Unpooled.directBuffer().writeInt(0).writeInt(0);
        try {
            assertThatThrownBy(() -> service.handle(new CapturedRequest(Opcode.SC_READ, truncated)))
                    .isInstanceOf(MalformedMessageException.class);
        } finally {
            truncated.release();
        }
        assertThat(metrics.shortCircuitRequests()).isZero();
    }

    @Test
    void aDatanodeWithoutFilesRefusesEveryRequestBeforeCheckingIt() {
        service = new BlockService(regions, metrics, List.of("nn:9060"));
        service.register(0, new Registration(DN, BLOCK, tokens, generations));
        assertThat(service.offersShortCircuit()).isFalse();
        for (int opcode : new int[] {Opcode.SC_READ, Opcode.SC_WRITE}) {
            // Garbage access fields: the refusal comes first, and the client then uses TCP, which checks.
            Grant g = grant(request(opcode, 99, -1, 7, 12345L, -5, -5));
            assertThat(g.offered()).isFalse();
            assertThat(g.reason()).isNotBlank();
        }
        assertThat(generations.get(0, 0)).isZero();
        assertThat(metrics.shortCircuitRequests()).isZero();
        assertThat(metrics.errors()).isZero();
    }

    @Test
    void aRegionOutOfServiceAnswersDataLostToEveryAccessAndTheOtherServes() {
        grant(request(Opcode.SC_WRITE, 1, 0, 1, token(1, 0, 1, BlockTokens.WRITE), 0, 10));
        assertThat(regions.fail(1, "region-00001 was cut to 0 bytes")).isTrue();
        for (int opcode : new int[] {Opcode.SC_READ, Opcode.SC_WRITE, Opcode.READ_BLOCK}) {
            int mode = opcode == Opcode.SC_WRITE ? BlockTokens.WRITE : BlockTokens.READ;
            assertFailed(request(opcode, 1, 0, opcode == Opcode.SC_WRITE ? 2 : 1, token(1, 0,
                    opcode == Opcode.SC_WRITE ? 2 : 1, mode), 0, 10), ErrorCode.DATA_LOST,
                    "region 1 of this datanode is out of service and every block in it is lost (region-00001 was "
                            + "cut to 0 bytes)");
        }
        ByteBuf body = Unpooled.directBuffer();
        DatanodeProtocol.writeAccess(body, 1, 1, 1, token(1, 1, 1, BlockTokens.WRITE), STAMP, 0, 4);
        body.writeBytes(new byte[4]);
        assertFailed(handle(Opcode.WRITE_BLOCK, body), ErrorCode.DATA_LOST, "out of service");
        assertThat(generations.get(1, 1)).as("a refused write leaves the generation alone").isZero();
        grant(request(Opcode.SC_WRITE, 0, 0, 1, token(0, 0, 1, BlockTokens.WRITE), 0, 10));
    }

    @Test
    void aRegionWhoseFileWasRemovedIsNotGrantedToShortCircuitClients(@TempDir Path dir) throws Exception {
        regions = MappedRegions.map(dir, REGIONS, REGION, false);
        service = newService();
        service.register(0, new Registration(DN, BLOCK, tokens, generations));
        Files.delete(MappedRegions.file(dir, 1));
        assertThat(((MappedRegions) regions).check()).isEmpty();
        Grant refused = grant(request(Opcode.SC_READ, 1, 0, 0, token(1, 0, 0, BlockTokens.READ), 0, 10));
        assertThat(refused.offered()).isFalse();
        assertThat(refused.reason()).contains("region 1 is served over TCP only").contains("region-00001 was removed");
        assertThat(grant(request(Opcode.SC_READ, 0, 0, 0, token(0, 0, 0, BlockTokens.READ), 0, 10)).offered())
                .isTrue();
    }

    @Test
    void aWriteIntoARegionCutShortBeforeAnyCheckFaultsAndIsAnsweredDataLost(@TempDir Path dir) throws Exception {
        MappedRegions mapped = MappedRegions.map(dir, REGIONS, REGION, true);
        regions = mapped;
        service = newService();
        service.register(0, new Registration(DN, BLOCK, tokens, generations));
        int[] faults = new int[1];
        service.onRegionFault(() -> {
            faults[0]++;
            mapped.check();
        });
        try (FileChannel ch = FileChannel.open(MappedRegions.file(dir, 1), StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        ByteBuf body = Unpooled.directBuffer();
        DatanodeProtocol.writeAccess(body, 1, 2, 1, token(1, 2, 1, BlockTokens.WRITE), STAMP, 0, 4096);
        body.writeBytes(new byte[4096]);
        // The copy into the missing pages faults (SIGBUS); the JVM turns it into an InternalError.
        assertFailed(handle(Opcode.WRITE_BLOCK, body), ErrorCode.DATA_LOST, "the region's memory faulted");
        assertThat(faults[0]).isEqualTo(1);
        assertThat(mapped.failure(1)).as("the fault made the datanode look at once").contains("was cut to 0 bytes");
        assertFailed(request(Opcode.READ_BLOCK, 1, 2, 1, token(1, 2, 1, BlockTokens.READ), 0, 10),
                ErrorCode.DATA_LOST, "out of service");
    }

    @Test
    void opcodesAreNamedAndOnlyTheReadIsSafeToResend() {
        assertThat(Opcode.name(Opcode.SC_READ)).isEqualTo("SC_READ");
        assertThat(Opcode.name(Opcode.SC_WRITE)).isEqualTo("SC_WRITE");
        assertThat(Opcode.isReadOnly(Opcode.SC_READ)).isTrue();
        assertThat(Opcode.isReadOnly(Opcode.SC_WRITE)).isFalse();
    }

    @Test
    void grantsSurviveTheWireAndMalformedOnesAreRefused() {
        Grant g = new Grant(true, STORAGE, REGION, BLOCK, "boot", DIR, "");
        ByteBuf buf = Unpooled.buffer();
        g.write(buf);
        assertThat(Grant.read(buf.copy())).isEqualTo(g);
        for (int cut = 0; cut < buf.readableBytes(); cut++) {
            ByteBuf part = buf.copy(0, cut);
            assertThatThrownBy(() -> Grant.read(part)).as("cut at %d", cut)
                    .isInstanceOf(MalformedMessageException.class);
        }
        ByteBuf badSizes = Unpooled.buffer();
        new Grant(true, STORAGE, REGION, 3 * 1000, "boot", DIR, "").write(badSizes);
        assertThatThrownBy(() -> Grant.read(badSizes)).isInstanceOf(MalformedMessageException.class);
        ByteBuf refused = Unpooled.buffer();
        Grant.refused("direct memory").write(refused);
        assertThat(Grant.read(refused)).isEqualTo(Grant.refused("direct memory"));
    }
}
