package io.tarn.namenode.blocks;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/** Registration, allocation policy, generations and datanode failures, through the namenode service. */
class BlockAllocationTest {
    private static final long C = 42;
    private final Fixture fx = new Fixture();

    private long newFile(String path) throws Exception {
        return fx.create(path, C).fileId();
    }

    @Test
    void registrationAssignsIdsAndHandsOutTheTokenKey() throws Exception {
        RegisterResponse a = fx.datanode(1, "h1", 10, 0, 2, 4, false);
        RegisterResponse b = fx.datanode(2, "h2", 10, 0, 2, 4, false);
        assertThat(a.datanodeId()).isNotEqualTo(b.datanodeId());
        assertThat(a.blockSize()).isEqualTo(Fixture.BLOCK);
        assertThat(a.keys()).as("the keys of the epochs whose tokens may be valid, and the next one's")
                .isEqualTo(AdminProtocol.BlockKeys.of(fx.nn.tokens()));
        assertThat(a.keys().keys()).hasSize(3);
        assertThat(a.resetGenerations()).isTrue();
        assertThat(fx.nn.datanodes().get(a.datanodeId()).capacityBlocks()).isEqualTo(8);
    }

    @Test
    void regionSizeMustBeAMultipleOfTheBlockSize() {
        String msg = failsWith(ErrorCode.INVALID_ARGUMENT, () -> fx.nn.register(
                new RegisterRequest(0, 1, "h", 7, 0, Fixture.BLOCK * 3L + 1, 2, 0, 1, false)));
        assertThat(msg).contains("h:7").contains("multiple of the block size");
        assertThat(fx.nn.datanodes().size()).isZero();
    }

    @Test
    void blockRefCarriesLocationGenerationAndAValidToken() throws Exception {
        int dn = fx.datanode(1, "host1", 4000, 0, 2, 2, false).datanodeId();
        long f = newFile("/f");
        BlockRef w = fx.write(f, 0, C);
        assertThat(w.datanodeId()).isEqualTo(dn);
        assertThat(w.address()).isEqualTo("host1:4000");
        assertThat(w.blockSize()).isEqualTo(Fixture.BLOCK);
        assertThat(w.writable()).isTrue();
        assertThat(w.generation()).isEqualTo(1);
        BlockTokens t = fx.nn.tokens();
        assertThat(t.check(w.token(), w.tokenStamp(), dn, w.regionId(), w.blockIndex(), w.generation(),
                BlockTokens.WRITE)).isEqualTo(BlockTokens.Verdict.VALID);
        BlockRef r = fx.read(f, 0);
        assertThat(r.writable()).isFalse();
        assertThat(t.check(r.token(), r.tokenStamp(), dn, r.regionId(), r.blockIndex(), r.generation(),
                BlockTokens.READ)).isEqualTo(BlockTokens.Verdict.VALID);
        assertThat(t.check(r.token(), r.tokenStamp(), dn, r.regionId(), r.blockIndex(), r.generation(),
                BlockTokens.WRITE)).isEqualTo(BlockTokens.Verdict.INVALID);
        // A second write of block 0 returns the same block; block 1 lands elsewhere in the regions.
        assertThat(fx.write(f, 0, C).blockIndex()).isEqualTo(w.blockIndex());
        BlockRef next = fx.write(f, 1, C);
        assertThat(List.of(next.regionId(), next.blockIndex())).isNotEqualTo(List.of(w.regionId(), w.blockIndex()));
    }

    @Test
    void writesAreSequentialAndReadsStopAtTheEnd() throws Exception {
        fx.datanode(1, "h", 1, 0, 1, 8, false);
        long f = newFile("/f");
        failsWith(ErrorCode.INVALID_ARGUMENT, () -> fx.write(f, 1, C));
        fx.write(f, 0, C);
        assertThat(failsWith(ErrorCode.BLOCK_NOT_FOUND, () -> fx.read(f, 1))).contains("/f").contains("1 block");
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> fx.read(f + 1, 0));
    }

    @Test
    void roundRobinAcrossDatanodesOfAClass() throws Exception {
        for (int i = 1; i <= 3; i++) {
            fx.datanode(i, "h" + i, 1, 0, 1, 10, false);
        }
        long f = newFile("/f");
        List<Integer> dns = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            dns.add(fx.write(f, i, C).datanodeId());
        }
        assertThat(dns.subList(0, 3)).containsExactlyInAnyOrder(1, 2, 3);
        for (int i = 3; i < 9; i++) {
            assertThat(dns.get(i)).isEqualTo(dns.get(i - 3));
        }
    }

    @Test
    void locationAffinityPrefersTheClientsHost() throws Exception {
        fx.datanode(1, "h1", 1, 0, 1, 10, false);
        int local = fx.datanode(2, "client-host", 1, 0, 1, 2, false).datanodeId();
        long f = newFile("/f");
        assertThat(fx.write(f, 0, C, "client-host").datanodeId()).isEqualTo(local);
        assertThat(fx.write(f, 1, C, "client-host").datanodeId()).isEqualTo(local);
        // The local datanode is full: fall back to the others.
        assertThat(fx.write(f, 2, C, "client-host").datanodeId()).isNotEqualTo(local);
    }

    @Test
    void spillsToTheNextClassWhenThePreferredIsFullThenNoSpace() throws Exception {
        int dram = fx.datanode(1, "h", 1, 0, 1, 2, false).datanodeId();
        int flash = fx.datanode(2, "h", 2, 1, 1, 1, false).datanodeId();
        long f = fx.create("/f", C, 0, 0).fileId();
        assertThat(fx.write(f, 0, C).datanodeId()).isEqualTo(dram);
        assertThat(fx.write(f, 1, C).datanodeId()).isEqualTo(dram);
        BlockRef spilled = fx.write(f, 2, C);
        assertThat(spilled.datanodeId()).isEqualTo(flash);
        assertThat(spilled.storageClass()).isEqualTo(1);
        assertThat(failsWith(ErrorCode.NO_SPACE, () -> fx.write(f, 3, C))).contains("no free block");
        // The namespace stays consistent: the file keeps the blocks it had.
        assertThat(fx.nn.namespace().getFile("/f").isFile()).isTrue();
        assertThat(fx.read(f, 2).datanodeId()).isEqualTo(flash);
        assertThat(fx.nn.files().close(f, C, 3L * Fixture.BLOCK).size()).isEqualTo(3L * Fixture.BLOCK);
    }

    @Test
    void flashPreferredFileSpillsDownToDram() throws Exception {
        int dram = fx.datanode(1, "h", 1, 0, 1, 2, false).datanodeId();
        long f = fx.create("/f", C, 0, 1).fileId();
        assertThat(fx.write(f, 0, C).datanodeId()).isEqualTo(dram);
    }

    @Test
    void noDatanodeAtAllIsNoSpaceWithAHint() throws Exception {
        long f = newFile("/f");
        assertThat(failsWith(ErrorCode.NO_SPACE, () -> fx.write(f, 0, C))).contains("no datanode has registered");
    }

    @Test
    void generationsIncreaseWhenABlockIsReused() throws Exception {
        fx.datanode(1, "h", 1, 0, 1, 1, false);
        long f = newFile("/f");
        BlockRef first = fx.write(f, 0, C);
        fx.nn.namespace().delete("/f", false);
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).isEqualTo(1);
        long g = newFile("/g");
        BlockRef second = fx.write(g, 0, C);
        assertThat(second.regionId()).isEqualTo(first.regionId());
        assertThat(second.blockIndex()).isEqualTo(first.blockIndex());
        assertThat(second.generation()).isGreaterThan(first.generation());
        assertThat(second.token()).isNotEqualTo(first.token());
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> fx.read(f, 0));
    }

    @Test
    void closeFreesBlocksBeyondTheFinalSize() throws Exception {
        fx.datanode(1, "h", 1, 0, 1, 4, false);
        long f = newFile("/f");
        fx.write(f, 0, C);
        fx.write(f, 1, C);
        FileStatus s = fx.nn.files().close(f, C, 100);
        assertThat(s.size()).isEqualTo(100);
        assertThat(s.underConstruction()).isFalse();
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).isEqualTo(3);
        failsWith(ErrorCode.BLOCK_NOT_FOUND, () -> fx.read(f, 1));
        failsWith(ErrorCode.INVALID_ARGUMENT, () -> {
            long g = newFile("/g");
            fx.nn.files().close(g, C, 1);
        });
    }

    @Test
    void allocateBlocksNamesKnownBlocksAndAllocatesTheRestInOrder() throws Exception {
        fx.datanode(1, "h", 1, 0, 1, 8, false);
        long f = newFile("/f");
        BlockRef first = fx.write(f, 0, C);
        List<BlockRef> page = fx.nn.files().allocateBlocks(f, 0, 4, C, "h", -1);
        assertThat(page).hasSize(4);
        assertThat(page.get(0).blockIndex()).isEqualTo(first.blockIndex()); // known: the same block
        assertThat(page).allMatch(BlockRef::writable);
        assertThat(page.stream().map(r -> List.of(r.regionId(), r.blockIndex())).distinct()).hasSize(4);
        for (int i = 0; i < 4; i++) { // the same blocks a write GET_BLOCK names, now and for readers
            assertThat(fx.write(f, i, C).blockIndex()).isEqualTo(page.get(i).blockIndex());
        }
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).isEqualTo(4);
        // Closing inside block 1 frees the two asked for ahead.
        assertThat(fx.nn.files().close(f, C, Fixture.BLOCK + 1).size()).isEqualTo(Fixture.BLOCK + 1);
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).isEqualTo(6);
        failsWith(ErrorCode.BLOCK_NOT_FOUND, () -> fx.read(f, 2));
    }

    @Test
    void allocateBlocksChecksOrderAndLeaseAndStopsWhereStorageEnds() throws Exception {
        fx.datanode(1, "h", 1, 0, 1, 3, false);
        long f = newFile("/f");
        failsWith(ErrorCode.INVALID_ARGUMENT, () -> fx.nn.files().allocateBlocks(f, 1, 2, C, "h", -1));
        failsWith(ErrorCode.LEASE_CONFLICT, () -> fx.nn.files().allocateBlocks(f, 0, 2, C + 1, "h", -1));
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).isEqualTo(3);
        List<BlockRef> page = fx.nn.files().allocateBlocks(f, 0, 5, C, "h", -1);
        assertThat(page).hasSize(3); // what there was room for, not a failure
        assertThat(failsWith(ErrorCode.NO_SPACE, () -> fx.nn.files().allocateBlocks(f, 3, 2, C, "h", -1)))
                .contains("no free block");
        assertThat(fx.nn.files().close(f, C, 3L * Fixture.BLOCK).size()).isEqualTo(3L * Fixture.BLOCK);
    }

    @Test
    void deadDatanodeIsSkippedAndReadsOfItsBlocksFailNamingIt() throws Exception {
        int a = fx.datanode(1, "ha", 11, 0, 1, 10, false).datanodeId();
        int b = fx.datanode(2, "hb", 22, 0, 1, 10, false).datanodeId();
        long f = newFile("/f");
        fx.write(f, 0, C);
        fx.write(f, 1, C);
        int onA = fx.read(f, 0).datanodeId() == a ? 0 : 1;
        fx.clock.advance(Fixture.DATANODE_TIMEOUT / 2);
        fx.nn.datanodes().heartbeat(b, new StorageId(0, 2));
        fx.clock.advance(Fixture.DATANODE_TIMEOUT / 2 + 1);
        fx.nn.runMaintenance();
        assertThat(fx.nn.datanodes().get(a).alive()).isFalse();
        assertThat(fx.nn.datanodes().get(b).alive()).isTrue();
        String msg = failsWith(ErrorCode.DATANODE_DEAD, () -> fx.read(f, onA));
        assertThat(msg).contains("datanode " + a).contains("ha:11").contains("silent for");
        for (int i = 2; i < 6; i++) {
            assertThat(fx.write(f, i, C).datanodeId()).isEqualTo(b);
        }
        // A heartbeat revives it.
        fx.nn.datanodes().heartbeat(a, new StorageId(0, 1));
        assertThat(fx.read(f, onA).datanodeId()).isEqualTo(a);
        assertThat(fx.nn.clusterStatus().datanodes()).allMatch(d -> d.alive());
    }

    @Test
    void heartbeatFromAnUnknownDatanodeAsksItToRegister() throws Exception {
        int a = fx.datanode(1, "h", 1, 0, 1, 1, false).datanodeId();
        failsWith(ErrorCode.UNKNOWN_DATANODE, () -> fx.nn.datanodes().heartbeat(a + 5, new StorageId(0, 1)));
        failsWith(ErrorCode.UNKNOWN_DATANODE, () -> fx.nn.datanodes().heartbeat(a, new StorageId(0, 99)));
    }

    @Test
    void reRegistrationIntactKeepsIdAndBlocks() throws Exception {
        int a = fx.datanode(1, "old-host", 1, 0, 1, 4, false).datanodeId();
        long f = newFile("/f");
        BlockRef before = fx.write(f, 0, C);
        RegisterResponse again = fx.datanode(1, "new-host", 2, 0, 1, 4, true);
        assertThat(again.datanodeId()).isEqualTo(a);
        assertThat(again.resetGenerations()).isFalse();
        BlockRef after = fx.read(f, 0);
        assertThat(after.address()).isEqualTo("new-host:2");
        assertThat(after.generation()).isEqualTo(before.generation());
        assertThat(fx.nn.datanodes().get(a).freeBlocks()).isEqualTo(3);
    }

    @Test
    void reRegistrationWithoutDataLosesItsBlocksWithoutDoubleFree() throws Exception {
        int a = fx.datanode(1, "h", 1, 0, 1, 2, false).datanodeId();
        long f = newFile("/f");
        BlockRef lost = fx.write(f, 0, C);
        RegisterResponse again = fx.datanode(1, "h", 1, 0, 1, 2, false);
        assertThat(again.datanodeId()).isEqualTo(a);
        assertThat(again.resetGenerations()).as("namenode generations stay valid").isFalse();
        DatanodeInfo dn = fx.nn.datanodes().get(a);
        assertThat(dn.freeBlocks()).isEqualTo(2);
        assertThat(failsWith(ErrorCode.DATA_LOST, () -> fx.read(f, 0))).contains("datanode " + a).contains("h:1");
        // New allocations get higher generations than anything handed out before.
        long g = newFile("/g");
        BlockRef fresh = fx.write(g, 0, C);
        BlockRef fresh2 = fx.write(g, 1, C);
        assertThat(dn.freeBlocks()).isZero();
        assertThat(List.of(fresh, fresh2)).anyMatch(r -> r.regionId() == lost.regionId()
                && r.blockIndex() == lost.blockIndex() && r.generation() > lost.generation());
        // Deleting the file with the lost block must not free a block that /g now uses.
        fx.nn.namespace().delete("/f", false);
        assertThat(dn.freeBlocks()).isZero();
        fx.nn.namespace().delete("/g", false);
        assertThat(dn.freeBlocks()).isEqualTo(2);
    }

    @Test
    void clusterStatusReportsCountsAndDatanodes() throws Exception {
        fx.datanode(1, "h", 9, 1, 2, 3, false);
        long f = newFile("/d/f");
        fx.write(f, 0, C);
        fx.clock.advance(250);
        var s = fx.nn.clusterStatus();
        assertThat(s.files()).isEqualTo(1);
        assertThat(s.directories()).isEqualTo(2);
        assertThat(s.blockSize()).isEqualTo(Fixture.BLOCK);
        assertThat(s.uptimeMs()).isEqualTo(250);
        assertThat(s.datanodes()).singleElement().satisfies(d -> {
            assertThat(d.host()).isEqualTo("h");
            assertThat(d.port()).isEqualTo(9);
            assertThat(d.storageClass()).isEqualTo(1);
            assertThat(d.capacityBlocks()).isEqualTo(6);
            assertThat(d.freeBlocks()).isEqualTo(5);
            assertThat(d.silenceMs()).isEqualTo(250);
            assertThat(d.alive()).isTrue();
        });
    }
}
