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

import java.util.List;
import java.util.UUID;

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
        DatanodeProtocol.writeAccess(body, region, block, generation, token, offset, length);
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
        DatanodeProtocol.writeAccess(body, 0, 2, 4, token(0, 2, 4, BlockTokens.WRITE), 0, data.length);
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
        DatanodeProtocol.writeAccess(trailing, 0, 0, 1, token(0, 0, 1, BlockTokens.WRITE), 0, 1);
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
