package io.tarn.namenode.namespace;

import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Replication;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.ManualClock;
import io.tarn.namenode.NamenodeService;
import io.tarn.namenode.Partitioning;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.journal.JournalEditLog;
import io.tarn.namenode.journal.NamespaceJournal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import static io.tarn.namenode.namespace.Refusals.quietly;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A namenode's files, blocks and datanodes, journaled and replayed into a new namenode, come back
 * exactly: every file's blocks (datanode, incarnation, place, generation), size, lease holder, last
 * writer and recovery, and every datanode's id, incarnation and free blocks; and no block
 * allocated after the replay reuses a generation one was allocated with before. The workload runs
 * every content mutation at random: creates, block allocations, hsync, closes (below the blocks
 * asked ahead too), appends, replaced blocks, deletes, overwrites, expired leases, and datanodes
 * that come back without their data.
 */
class FileContentReplayTest {
    private static final int BLOCK = 4096;
    private static final int BLOCKS_PER_REGION = 8;
    private static final int REGIONS = 40;

    @TempDir
    Path tmp;

    /** A namenode whose mutations go to the journal in {@code dir}, replayed first. */
    private static final class Journaled implements AutoCloseable {
        final ManualClock clock;
        final NamenodeService nn;
        final NamespaceJournal journal;

        Journaled(Path dir, ManualClock clock) throws IOException {
            this.clock = clock;
            JournalEditLog log = new JournalEditLog();
            nn = new NamenodeService(clock, BLOCK, 60_000, 10_000, new BlockTokens(1, 2),
                    Partitioning.single(new HostPort("127.0.0.1", 0)), Replication.ONE, log);
            NamespaceReplay replay = nn.namespace().replay();
            journal = NamespaceJournal.open(dir, 0, 1, 0, replay, NamespaceJournal.Settings.DEFAULT);
            replay.finish();
            log.attach(journal);
            if (journal.lastSeq() == 0) {
                nn.namespace().recordRoot();
            }
        }

        void register(long storage, boolean intact) throws TarnException {
            nn.register(new RegisterRequest(0, storage, "dn" + storage, 9000 + (int) storage, 0,
                    (long) BLOCKS_PER_REGION * BLOCK, REGIONS, 0, 1, intact));
        }

        @Override
        public void close() {
            journal.close();
        }
    }

    /** Every file (by path) and datanode, as far as the journal must keep them. */
    private static Map<String, String> dump(NamenodeService nn) {
        Map<String, String> out = new TreeMap<>();
        nn.namespace().fileTable().forEach(f -> {
            StringBuilder b = new StringBuilder();
            b.append(Long.toHexString(f.id())).append(" size ").append(f.size()).append(f.underConstruction()
                    ? " open by " + f.leaseHolder() : " closed").append(" last writer ").append(f.lastWriter())
                    .append(" recovered from ").append(f.recoveredFrom()).append(" mtime ")
                    .append(f.modificationTime()).append(" blocks");
            for (Block block : f.blocks()) {
                b.append(' ').append(block.datanode().id()).append('/').append(block.incarnation()).append('/')
                        .append(block.regionId()).append('.').append(block.regionBlock()).append('g')
                        .append(block.generation());
            }
            out.put(f.path(), b.toString());
        });
        for (DatanodeInfo dn : nn.datanodes().all()) {
            out.put("~datanode " + dn.id(), dn.storageId() + " incarnation " + dn.incarnation() + " free "
                    + dn.freeBlocks() + " of " + dn.capacityBlocks());
        }
        out.put("~leased files", String.valueOf(nn.leases().fileCount()));
        return out;
    }


    @Test
    void filesBlocksAndDatanodesComeBackExactly() throws Exception {
        Path dir = tmp.resolve("journal");
        ManualClock clock = new ManualClock();
        Map<String, String> before;
        Map<String, Integer> highestGeneration = new HashMap<>();
        long[] clients = {11, 12, 13};
        try (Journaled a = new Journaled(dir, clock)) {
            a.register(1, false);
            a.register(2, false);
            SplittableRandom r = new SplittableRandom(2026);
            for (int step = 0; step < 3_000; step++) {
                String path = "/d" + r.nextInt(3) + "/f" + r.nextInt(12);
                // Mostly the file's own writer; now and then another client, which is refused.
                long client = r.nextInt(20) == 0 ? clients[r.nextInt(clients.length)]
                        : clients[Math.floorMod(path.hashCode(), clients.length)];
                int op = r.nextInt(1000);
                quietly(() -> {
                    if (op < 120) {
                        a.nn.create(new CreateRequest(path, FileType.FILE, NamenodeProtocol.CREATE_PARENTS
                                | (r.nextBoolean() ? NamenodeProtocol.CREATE_OVERWRITE : 0), 0, client, "",
                                Ownership.UNSPECIFIED));
                    } else if (op < 420) {
                        FileInode f = a.nn.namespace().file(path);
                        int index = f.blocks().length;
                        long durable = (long) index * BLOCK - r.nextInt(BLOCK);
                        BlockRef ref = r.nextBoolean()
                                ? a.nn.files().getBlock(f.id(), index, true, client, "", Math.max(-1, durable))
                                : a.nn.files().allocateBlocks(f.id(), index, 1 + r.nextInt(3), client, "",
                                Math.max(-1, durable)).get(0);
                        highestGeneration.merge(ref.datanodeId() + "/" + ref.regionId() + "." + ref.blockIndex(),
                                ref.generation(), Math::max);
                    } else if (op < 520) {
                        FileInode f = a.nn.namespace().file(path);
                        long size = Math.max(0, (long) f.blocks().length * BLOCK - r.nextInt(99));
                        a.nn.files().sync(f.id(), client, size);
                    } else if (op < 620) {
                        FileInode f = a.nn.namespace().file(path);
                        long size = Math.max(0, (long) f.blocks().length * BLOCK - r.nextInt(2 * BLOCK));
                        a.nn.files().close(f.id(), client, size);
                    } else if (op < 660) {
                        a.nn.files().reopen(a.nn.namespace().file(path), client);
                    } else if (op < 700) {
                        FileInode f = a.nn.namespace().file(path);
                        Block[] blocks = f.blocks();
                        if (blocks.length > 0) {
                            int index = blocks.length - 1;
                            BlockRef ref = a.nn.files().replaceBlock(f.id(), index, blocks[index].datanode().id(),
                                    client, "").ref();
                            highestGeneration.merge(ref.datanodeId() + "/" + ref.regionId() + "." + ref.blockIndex(),
                                    ref.generation(), Math::max);
                            for (DatanodeInfo dn : a.nn.datanodes().all()) { // clear the unreachable report
                                a.nn.datanodes().heartbeat(dn.id(), dn.storageId());
                                a.nn.datanodes().heartbeat(dn.id(), dn.storageId());
                            }
                        }
                    } else if (op < 760) {
                        a.nn.namespace().delete(path, false);
                    } else if (op < 763) {
                        clock.advance(70_000); // every lease expires: open files are recovered
                        for (DatanodeInfo dn : a.nn.datanodes().all()) {
                            a.nn.datanodes().heartbeat(dn.id(), dn.storageId());
                        }
                        a.nn.runMaintenance();
                    } else if (op < 765) {
                        // A datanode comes back without its data: its blocks are lost.
                        long storage = 1 + r.nextInt(2);
                        DatanodeInfo dn = a.nn.datanodes().all().get((int) storage - 1);
                        if (r.nextBoolean()) {
                            a.register(storage, false);
                        } else {
                            a.nn.deregister(new DeregisterRequest(dn.id(), 0, storage, false));
                            a.register(storage, true);
                        }
                    } else {
                        clock.advance(1);
                    }
                });
            }
            before = dump(a.nn);
        }
        String all = before.toString();
        assertThat(before.keySet().stream().filter(k -> !k.startsWith("~")).count()).as("files left").isGreaterThan(10);
        assertThat(all).as("open files with blocks, closed ones, recovered ones, lost blocks")
                .contains(" open by ").contains(" closed ").containsPattern("recovered from 1[123]")
                .containsPattern("blocks \\d").containsPattern("incarnation [2-9]");

        try (Journaled b = new Journaled(dir, clock)) {
            Map<String, String> after = dump(b.nn);
            assertThat(after).isEqualTo(before);
            for (DatanodeInfo dn : b.nn.datanodes().all()) {
                assertThat(dn.awaitingRegistration()).isTrue();
                assertThat(catchThrowable(() -> b.nn.datanodes().heartbeat(dn.id(), dn.storageId())))
                        .as("a heartbeat before registering again").isInstanceOf(TarnException.class)
                        .hasMessageContaining("restarted");
            }
            b.register(1, true);
            b.register(2, true);
            assertThat(dump(b.nn)).as("registered again, intact: nothing changes").isEqualTo(before);

            // Fill every free block: none reuses a generation handed out before the restart.
            b.nn.create(new CreateRequest("/fill", FileType.FILE, NamenodeProtocol.CREATE_PARENTS, 0, 99, "",
                    Ownership.UNSPECIFIED));
            long fill = b.nn.namespace().file("/fill").id();
            int allocated = 0;
            while (true) {
                BlockRef ref;
                try {
                    ref = b.nn.files().getBlock(fill, allocated, true, 99, "");
                } catch (TarnException e) {
                    assertThat(e.code()).isEqualTo(ErrorCode.NO_SPACE);
                    break;
                }
                allocated++;
                Integer old = highestGeneration.get(ref.datanodeId() + "/" + ref.regionId() + "." + ref.blockIndex());
                if (old != null) {
                    assertThat(ref.generation()).as("generation of a place used before").isGreaterThan(old);
                }
            }
            long freeBefore = 0;
            for (DatanodeInfo dn : b.nn.datanodes().all()) {
                String was = before.get("~datanode " + dn.id());
                freeBefore += Long.parseLong(was.replaceAll(".* free (\\d+) of.*", "$1"));
            }
            assertThat(allocated).as("every block free before the restart, and only those").isEqualTo(freeBefore);
        }
    }

    /** A journal's namenode refuses files of replication 3, whose block groups it does not journal yet. */
    @Test
    void filesOfReplicationThreeAreRefusedWhileGroupsAreNotJournaled() throws Exception {
        try (Journaled a = new Journaled(tmp.resolve("j3"), new ManualClock())) {
            for (long s = 1; s <= 3; s++) {
                a.register(s, false);
            }
            Throwable t = catchThrowable(() -> a.nn.create(new CreateRequest("/r3", FileType.FILE,
                    NamenodeProtocol.CREATE_PARENTS, 0, 5, "", Ownership.UNSPECIFIED, 3)));
            assertThat(t).isInstanceOf(TarnException.class).hasMessageContaining("tarn.namenode.journal");
            assertThat(((TarnException) t).code()).isEqualTo(ErrorCode.REPLICATION_UNAVAILABLE);
            assertThat(a.nn.namespace().fileCount()).isZero();
        }
    }
}
