package io.tarn.namenode;

import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Partitions;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.PeerProtocol.AdoptionRequest;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.namenode.PeerProtocol.DirMkdirRequest;
import io.tarn.namenode.PeerProtocol.FreeBlocksRequest;
import io.tarn.namenode.PeerProtocol.MovedBlock;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.namespace.FileInode;
import io.tarn.namenode.namespace.FileMove;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The namespace side of a file renamed to a name another namenode owns (docs/partitioning.md),
 * with two partitions driven directly, without a transport, so every step and race can be placed
 * exactly: what the moving file answers, what the adopting namenode checks, who frees the blocks,
 * and which tokens open them. The wire path is covered by the client's tests.
 */
class FileMoveTest {
    private static final List<HostPort> TWO = List.of(new HostPort("nn0", 9060), new HostPort("nn1", 9061));
    private static final long WRITER = 7;
    private static final int REGIONS = 4;
    private static final int BLOCKS_PER_REGION = 8;

    private final NamenodeService[] nn = new NamenodeService[2];

    @BeforeEach
    void start() throws Exception {
        for (int p = 0; p < 2; p++) {
            nn[p] = new NamenodeService(new ManualClock(), Fixture.BLOCK, Fixture.LEASE_TIMEOUT,
                    Fixture.DATANODE_TIMEOUT, BlockTokens.random(), new Partitioning(p, TWO));
            // One datanode, its regions shared out as a real one does: r mod 2.
            nn[p].register(new RegisterRequest(0, 42, "dn", 7000, 0, (long) BLOCKS_PER_REGION * Fixture.BLOCK,
                    REGIONS / 2, p, 2, false));
        }
        mkdir("/out");
    }

    /** The coordinator's part of a mkdir, applied to both as it would be. */
    private void mkdir(String path) throws Exception {
        String parent = path.substring(0, path.lastIndexOf('/'));
        DirMkdirRequest r = new DirMkdirRequest(parent.isEmpty() ? "/" : parent,
                path.substring(path.lastIndexOf('/') + 1), nn[0].namespace().newDirectoryId(),
                new Ownership("u", "g", 0755), 1);
        for (NamenodeService s : nn) {
            s.namespace().applyMkdir(r.parent(), r.name(), r.dirId(), r.ownership(), r.time());
        }
    }

    private static String nameOf(int p, String prefix) {
        for (int i = 0; ; i++) {
            if (Partitions.ofName(prefix + i, 2) == p) {
                return prefix + i;
            }
        }
    }

    /** A closed file at namenode 0 with {@code blocks} blocks of data. */
    private FileStatus writeAt0(String path, int blocks) throws Exception {
        FileStatus s = nn[0].create(new CreateRequest(path, FileType.FILE, 0, 0, WRITER, "",
                new Ownership("alice", "staff", 0640)));
        for (int i = 0; i < blocks; i++) {
            nn[0].files().getBlock(s.fileId(), i, true, WRITER, "");
        }
        nn[0].files().close(s.fileId(), WRITER, (long) blocks * Fixture.BLOCK - 10);
        return nn[0].namespace().getFile(path);
    }

    /** The FILE_ADOPT request FileMover sends for {@code move}, through its wire encoding. */
    private AdoptRequest adoptRequest(FileMove move) throws Exception {
        FileInode f = move.file();
        AdoptRequest r = move.adoptRequest(nn[0].files().movedBlocks(f, 0));
        ByteBuf buf = Unpooled.buffer();
        try {
            r.encode(buf);
            return AdoptRequest.decode(buf);
        } finally {
            buf.release();
        }
    }

    private FileStatus adoptAt1(FileMove move) throws Exception {
        AdoptRequest r = adoptRequest(move);
        return nn[1].namespace().adopt(r, nn[1].files().adoptedBlocks(r.blocks(), 1));
    }

    private long free(int p) {
        long free = 0;
        for (DatanodeInfo dn : nn[p].datanodes().all()) {
            free += dn.freeBlocks();
        }
        return free;
    }

    @Test
    void aMovedFileKeepsItsAttributesAndBlocksAndItsTokensStillOpenThem() throws Exception {
        String src = "/out/" + nameOf(0, "part-");
        String dst = "/out/" + nameOf(1, "final-");
        FileStatus before = writeAt0(src, 3);
        List<BlockRef> refsBefore = nn[0].files().getBlocks(before.fileId(), 0, 10);
        long free0 = free(0);

        FileMove move = nn[0].namespace().rename(src, dst).move();
        assertThat(move).isNotNull();
        assertThat(move.to()).isEqualTo(1);
        assertThat(failsWith(ErrorCode.RETRY, () -> nn[0].namespace().getFile(src))).contains("being renamed");
        failsWith(ErrorCode.RETRY, () -> nn[0].namespace().delete(src, false));
        assertThat(nn[0].files().getBlocks(before.fileId(), 0, 10)).as("still readable by id").hasSize(3);

        FileStatus adopted = adoptAt1(move);
        nn[0].files().forward(before.fileId(), adopted.fileId(), dst); // as FileMover does
        nn[0].namespace().commitMove(move, 0L);

        failsWith(ErrorCode.FILE_NOT_FOUND, () -> nn[0].namespace().getFile(src));
        assertThat(failsWith(ErrorCode.MOVED, () -> nn[0].files().getBlocks(before.fileId(), 0, 1)))
                .contains("renamed to '" + dst + "', a name another namenode owns");
        assertThat(nn[0].files().whereMoved(before.fileId())).isEqualTo(adopted.fileId());
        assertThat(nn[0].namespace().fileCount()).isZero();
        assertThat(nn[1].namespace().fileCount()).isEqualTo(1);
        assertThat(free(0)).as("the blocks stay allocated: the moved file holds them").isEqualTo(free0);

        FileStatus now = nn[1].namespace().getFile(dst);
        assertThat(now).isEqualTo(adopted);
        assertThat(FileIds.partition(now.fileId())).isEqualTo(1);
        assertThat(now.size()).isEqualTo(before.size());
        assertThat(now.modificationTime()).isEqualTo(before.modificationTime());
        assertThat(now.creationTime()).isEqualTo(before.creationTime());
        assertThat(now.owner()).isEqualTo("alice");
        assertThat(now.group()).isEqualTo("staff");
        assertThat(now.permission()).isEqualTo(0640);
        assertThat(now.underConstruction()).isFalse();

        // Namenode 1 hands out the same places with tokens it issues itself (the stamp names it), which
        // the datanode checks with namenode 1's keys and its id for the datanode.
        List<BlockRef> refs = nn[1].files().getBlocks(now.fileId(), 0, 10);
        assertThat(refs).hasSize(3);
        for (int i = 0; i < 3; i++) {
            BlockRef a = refsBefore.get(i);
            BlockRef b = refs.get(i);
            assertThat(b.regionId() % 2).as("a region of namenode 0").isZero();
            assertThat(List.of(b.regionId(), b.blockIndex(), b.generation(), b.datanodeId(), b.port()))
                    .isEqualTo(List.of(a.regionId(), a.blockIndex(), a.generation(), a.datanodeId(), a.port()));
            assertThat(BlockTokens.issuer(b.tokenStamp())).isEqualTo(1);
            assertThat(b.datanodeId()).isEqualTo(nn[1].datanodes().byAddress(b.host(), b.port()).id());
            assertThat(nn[1].tokens().check(b.token(), b.tokenStamp(), b.datanodeId(), b.regionId(), b.blockIndex(),
                    b.generation(), BlockTokens.READ)).isEqualTo(BlockTokens.Verdict.VALID);
            assertThat(nn[0].tokens().check(b.token(), b.tokenStamp(), b.datanodeId(), b.regionId(), b.blockIndex(),
                    b.generation(), BlockTokens.READ)).as("not under namenode 0's keys")
                    .isEqualTo(BlockTokens.Verdict.INVALID);
        }
    }

    @Test
    void deletingTheMovedFileGivesItsBlocksBackToTheirHomeOnce() throws Exception {
        List<List<io.tarn.namenode.blocks.Block>> sent = new ArrayList<>();
        long free0 = free(0);
        String src = "/out/" + nameOf(0, "a");
        String dst = "/out/" + nameOf(1, "b");
        writeAt0(src, 3);
        assertThat(free(0)).isEqualTo(free0 - 3);
        FileMove move = nn[0].namespace().rename(src, dst).move();
        adoptAt1(move);
        nn[0].namespace().commitMove(move, 0L);

        // Namenode 1's allocator sends foreign blocks home; capture and deliver them like FREE_BLOCKS.
        nn[1].allocator().returnForeignBlocksTo((home, blocks) -> {
            assertThat(home).isZero();
            sent.add(blocks);
        });
        nn[1].namespace().delete(dst, false);
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0)).hasSize(3);
        List<MovedBlock> returned = sent.get(0).stream().map(io.tarn.namenode.namespace.FileService::returned).toList();
        FreeBlocksRequest wire = roundTrip(new FreeBlocksRequest(returned));
        List<MovedBlock> ofAnEarlierRun = wire.blocks().stream().map(m -> new MovedBlock(m.host(), m.port(),
                m.homePartition(), m.homeEpoch() + 1, m.homeDatanodeId(), m.homeIncarnation(), m.regionId(),
                m.regionBlock(), m.generation(), 0, 0)).toList();
        assertThat(nn[0].files().freeReturned(ofAnEarlierRun)).as("blocks of another run of namenode 0").isEmpty();
        assertThat(free(0)).isEqualTo(free0 - 3);
        assertThat(nn[0].files().freeReturned(wire.blocks())).hasSize(3);
        assertThat(free(0)).isEqualTo(free0);
        assertThat(nn[0].files().freeReturned(wire.blocks())).as("a repeated request frees nothing twice").isEmpty();
        assertThat(free(0)).isEqualTo(free0);
        assertThat(nn[1].namespace().fileCount()).isZero();
    }

    @Test
    void theAdoptingNamenodeRefusesATakenNameOrAMissingDirectoryAndTheFileStays() throws Exception {
        String src = "/out/" + nameOf(0, "s");
        String taken = nameOf(1, "t");
        writeAt0(src, 1);
        nn[1].create(new CreateRequest("/out/" + taken, FileType.FILE, 0, 0, WRITER, "", Ownership.UNSPECIFIED));

        FileMove move = nn[0].namespace().rename(src, "/out/" + taken).move();
        assertThat(failsWith(ErrorCode.FILE_EXISTS, () -> adoptAt1(move))).contains("/out/" + taken);
        nn[0].namespace().abortMove(move);
        assertThat(nn[0].namespace().getFile(src).isFile()).isTrue();
        assertThat(nn[1].namespace().fileCount()).as("only the file that held the name").isEqualTo(1);

        // The target directory disappears between the start of the move and the adoption.
        mkdir("/gone");
        FileMove move2 = nn[0].namespace().rename(src, "/gone/" + nameOf(1, "t")).move();
        nn[1].namespace().applyDeleteTree("/gone");
        failsWith(ErrorCode.PARENT_NOT_FOUND, () -> adoptAt1(move2));
        nn[0].namespace().abortMove(move2);
        assertThat(nn[0].namespace().getFile(src).isFile()).isTrue();

        failsWith(ErrorCode.PARENT_NOT_FOUND, () -> nn[0].namespace().rename(src, "/nowhere/" + nameOf(1, "x")));
    }

    @Test
    void aRecursiveDeleteRacingTheMoveFreesTheFileOnlyIfTheMoveFails() throws Exception {
        mkdir("/tmp");
        String a = "/tmp/" + nameOf(0, "a");
        String b = "/tmp/" + nameOf(0, "b");
        long free0 = free(0);
        writeAt0(a, 2);
        writeAt0(b, 2);

        // The move of a fails after the sweep: a is deleted then, and its blocks freed.
        FileMove failing = nn[0].namespace().rename(a, "/out/" + nameOf(1, "x")).move();
        FileMove winning = nn[0].namespace().rename(b, "/out/" + nameOf(1, "y")).move();
        nn[0].namespace().applyDeleteTree("/tmp");
        assertThat(nn[0].namespace().find("/tmp")).isNull();
        assertThat(free(0)).as("moving files are not freed by the sweep").isEqualTo(free0 - 4);
        nn[0].namespace().abortMove(failing);
        assertThat(free(0)).isEqualTo(free0 - 2);

        // The move of b succeeds: it escaped the delete (the rename came first), its blocks held at 1.
        adoptAt1(winning);
        nn[0].namespace().commitMove(winning, 0L);
        assertThat(nn[0].namespace().fileCount()).isZero();
        assertThat(free(0)).isEqualTo(free0 - 2);
        assertThat(nn[1].namespace().getFile("/out/" + nameOf(1, "y")).size()).isEqualTo(2L * Fixture.BLOCK - 10);
    }

    @Test
    void theReceiverTellsHowAMoveEndedAndRefusesAnAdoptionItSaidWouldNotHappen() throws Exception {
        String src = "/out/" + nameOf(0, "u");
        writeAt0(src, 2);
        FileMove move = nn[0].namespace().rename(src, "/out/" + nameOf(1, "v")).move();
        FileStatus adopted = adoptAt1(move);
        // The answer to FILE_ADOPT was lost: the sender asks how it ended.
        assertThat(nn[1].namespace().adoption(move.ticket())).isEqualTo(adopted.fileId());
        // FILE_ADOPT asked again: the same file, not a second one.
        assertThat(adoptAt1(move).fileId()).isEqualTo(adopted.fileId());
        assertThat(nn[1].namespace().fileCount()).isEqualTo(1);
        nn[0].namespace().commitMove(move, adopted.fileId());
        assertThat(nn[0].namespace().lentBlockCount()).as("its blocks, lent to namenode 1").isEqualTo(2);
        assertThat(nn[1].namespace().ledgerSize()).isEqualTo(1);
        nn[1].namespace().settleAdoption(move.ticket());
        assertThat(nn[1].namespace().ledgerSize()).isZero();

        // A FILE_ADOPT that had not arrived when the sender asked: never adopted, even when it comes late.
        String src2 = "/out/" + nameOf(0, "w");
        FileStatus s2 = writeAt0(src2, 1);
        long free0 = free(0);
        FileMove late = nn[0].namespace().rename(src2, "/out/" + nameOf(1, "z")).move();
        assertThat(nn[1].namespace().adoption(late.ticket())).isEqualTo(AdoptionRequest.NOT_ADOPTED);
        assertThat(failsWith(ErrorCode.RENAME_INVALID, () -> adoptAt1(late))).contains("would not happen");
        nn[0].namespace().abortMove(late);
        assertThat(nn[0].namespace().getFile(src2).size()).isEqualTo(s2.size());
        assertThat(nn[1].namespace().fileCount()).isEqualTo(1);
        assertThat(free(0)).isEqualTo(free0);
        // Moved again, the file is a new attempt with a ticket of its own.
        FileMove again = nn[0].namespace().rename(src2, "/out/" + nameOf(1, "z")).move();
        assertThat(again.ticket()).isNotEqualTo(late.ticket());
        assertThat(adoptAt1(again).size()).isEqualTo(s2.size());
        nn[0].namespace().commitMove(again, 0L);
        assertThat(nn[1].namespace().fileCount()).isEqualTo(2);
    }

    @Test
    void aFileMovedBackBecomesNativeAgainAndAppendsUseTheRightTokens() throws Exception {
        String a = "/out/" + nameOf(0, "a");
        String b = "/out/" + nameOf(1, "b");
        String c = "/out/" + nameOf(0, "c");
        writeAt0(a, 1);
        FileMove there = nn[0].namespace().rename(a, b).move();
        adoptAt1(there);
        nn[0].namespace().commitMove(there, 0L);

        // Append at 1: the partly filled foreign block is written with namenode 0's write token,
        // the next block comes from namenode 1's own regions.
        FileStatus status = nn[1].namespace().getFile(b);
        FileInode f = nn[1].namespace().file(b);
        nn[1].files().reopen(f, WRITER);
        BlockRef last = nn[1].files().getBlock(status.fileId(), 0, true, WRITER, "");
        // A block in namenode 0's region, of a file namenode 1 adopted: namenode 1 issues its tokens.
        assertThat(last.regionId() % 2).as("a region of namenode 0").isZero();
        assertThat(BlockTokens.issuer(last.tokenStamp())).isEqualTo(1);
        assertThat(nn[1].tokens().check(last.token(), last.tokenStamp(), last.datanodeId(), last.regionId(),
                last.blockIndex(), last.generation(), BlockTokens.WRITE)).isEqualTo(BlockTokens.Verdict.VALID);
        BlockRef next = nn[1].files().getBlock(status.fileId(), 1, true, WRITER, "");
        assertThat(next.regionId() % 2).as("a region of namenode 1").isEqualTo(1);
        assertThat(nn[1].tokens().check(next.token(), next.tokenStamp(), next.datanodeId(), next.regionId(),
                next.blockIndex(), next.generation(), BlockTokens.WRITE)).isEqualTo(BlockTokens.Verdict.VALID);
        nn[1].files().close(status.fileId(), WRITER, Fixture.BLOCK + 5);

        // Back to a name of namenode 0: its own block is native there again, namenode 1's is foreign.
        FileMove back = nn[1].namespace().rename(b, c).move();
        AdoptRequest r = back.adoptRequest(nn[1].files().movedBlocks(back.file(), 1));
        FileStatus home = nn[0].namespace().adopt(r, nn[0].files().adoptedBlocks(r.blocks(), 0));
        nn[1].namespace().commitMove(back, 0L);
        List<BlockRef> refs = nn[0].files().getBlocks(home.fileId(), 0, 10);
        assertThat(refs).hasSize(2);
        for (BlockRef ref : refs) { // namenode 0 issues both, the one in namenode 1's region too
            assertThat(BlockTokens.issuer(ref.tokenStamp())).isZero();
            assertThat(nn[0].tokens().check(ref.token(), ref.tokenStamp(), ref.datanodeId(), ref.regionId(),
                    ref.blockIndex(), ref.generation(), BlockTokens.READ)).isEqualTo(BlockTokens.Verdict.VALID);
        }
        assertThat(refs.get(1).regionId() % 2).as("a region of namenode 1").isEqualTo(1);
        assertThat(home.size()).isEqualTo(Fixture.BLOCK + 5);
    }

    @Test
    void aFileBeingWrittenMovesWithItsWriterWhoFollowsItToTheNewId() throws Exception {
        String src = "/out/" + nameOf(0, "open");
        String dst = "/out/" + nameOf(1, "renamed");
        FileStatus s = nn[0].create(new CreateRequest(src, FileType.FILE, 0, 0, WRITER, "", Ownership.UNSPECIFIED));
        BlockRef first = nn[0].files().getBlock(s.fileId(), 0, true, WRITER, "");

        FileMove move = nn[0].namespace().rename(src, dst).move();
        assertThat(failsWith(ErrorCode.RETRY, () -> nn[0].files().getBlock(s.fileId(), 1, true, WRITER, "", 100)))
                .as("the writer waits while the file moves").contains("being renamed");
        failsWith(ErrorCode.RETRY, () -> nn[0].files().close(s.fileId(), WRITER, 10));
        FileStatus adopted = adoptAt1(move);
        nn[0].files().forward(s.fileId(), adopted.fileId(), dst);
        nn[0].namespace().commitMove(move, 0L);
        assertThat(adopted.underConstruction()).isTrue();
        assertThat(nn[0].leases().fileCount()).as("the lease left with the file").isZero();
        assertThat(nn[1].leases().fileCount()).isEqualTo(1);

        // The writer's old id says where the file went; the writer goes on there.
        assertThat(failsWith(ErrorCode.MOVED, () -> nn[0].files().getBlock(s.fileId(), 1, true, WRITER, "", 100)))
                .contains(dst);
        assertThat(nn[0].files().whereMoved(s.fileId())).isEqualTo(adopted.fileId());
        BlockRef again = nn[1].files().getBlock(adopted.fileId(), 0, true, WRITER, "", 100);
        assertThat(List.of(again.regionId(), again.blockIndex(), again.generation()))
                .as("its first block").isEqualTo(List.of(first.regionId(), first.blockIndex(), first.generation()));
        assertThat(nn[1].tokens().check(again.token(), again.tokenStamp(), again.datanodeId(), again.regionId(),
                again.blockIndex(), again.generation(), BlockTokens.WRITE)).as("a write token namenode 1 issued")
                .isEqualTo(BlockTokens.Verdict.VALID);
        nn[1].files().getBlock(adopted.fileId(), 1, true, WRITER, "", Fixture.BLOCK);
        FileStatus closed = nn[1].files().close(adopted.fileId(), WRITER, Fixture.BLOCK + 20);
        assertThat(closed.size()).isEqualTo(Fixture.BLOCK + 20);
        assertThat(nn[1].leases().fileCount()).isZero();
        assertThat(nn[1].files().reopen(nn[1].namespace().file(dst), 9).underConstruction())
                .as("an ordinary file there: it can be appended to").isTrue();
    }

    private static FreeBlocksRequest roundTrip(FreeBlocksRequest r) {
        ByteBuf buf = Unpooled.buffer();
        try {
            r.encode(buf);
            return FreeBlocksRequest.decode(buf);
        } finally {
            buf.release();
        }
    }
}
