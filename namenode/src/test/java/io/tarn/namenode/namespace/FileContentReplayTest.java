package io.tarn.namenode.namespace;

import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Replication;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.LeaderReport;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.ManualClock;
import io.tarn.namenode.NamenodeService;
import io.tarn.namenode.Partitioning;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.GroupInfo;
import io.tarn.namenode.journal.JournalCheckpoint;
import io.tarn.namenode.journal.JournalCorruptException;
import io.tarn.namenode.journal.JournalEditLog;
import io.tarn.namenode.journal.NamespaceJournal;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Files;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;

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

    /**
     * {@link #dump} plus the directory tree with every entry's attributes, the file table's reuse
     * counters and high-waters, and every datanode's generations: all a checkpoint must keep.
     */
    private static Map<String, String> dumpAll(NamenodeService nn) {
        Map<String, String> out = dump(nn);
        Namespace ns = nn.namespace();
        ArrayDeque<DirectoryInode> pending = new ArrayDeque<>();
        pending.add(ns.root());
        while (!pending.isEmpty()) {
            DirectoryInode d = pending.poll();
            out.put("~dir " + d.path(), Long.toHexString(d.id()) + " " + d.ownership() + " " + d.creationTime() + "/"
                    + d.modificationTime() + "/" + d.accessTime() + " replication " + d.replication());
            for (Inode child : d.children().values()) {
                if (child instanceof DirectoryInode sub) {
                    pending.add(sub);
                } else {
                    FileInode f = (FileInode) child;
                    out.put("~attr " + f.path(), f.ownership() + " " + f.creationTime() + "/" + f.modificationTime()
                            + "/" + f.accessTime() + " replication " + f.replication() + " block size "
                            + f.blockSize() + " class " + f.storageClass());
                }
            }
        }
        StringBuilder slots = new StringBuilder();
        ns.fileTable().forEachRetiredSlot((slot, counter) -> slots.append(slot).append(':').append(counter)
                .append(' '));
        out.put("~slots", ns.fileTable().slotHighWater() + " " + slots);
        out.put("~directory ids", String.valueOf(ns.creator().directoryHighWater()));
        out.put("~counts", ns.fileCount() + " files, " + ns.directoryCount() + " directories");
        for (DatanodeInfo dn : nn.datanodes().all()) {
            out.put("~generations " + dn.id(), Arrays.toString(dn.generationsCopy()));
        }
        return out;
    }

    /**
     * {@code steps} random content mutations of a dozen files in three directories by three
     * clients (now and then another client, refused), with leases expiring and datanodes coming
     * back without their data; records in {@code highestGeneration} each place's highest generation.
     */
    private static void storm(Journaled a, ManualClock clock, SplittableRandom r, int steps,
                              Map<String, Integer> highestGeneration) {
        long[] clients = {11, 12, 13};
        for (int step = 0; step < steps; step++) {
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
    }

    @Test
    void filesBlocksAndDatanodesComeBackExactly() throws Exception {
        Path dir = tmp.resolve("journal");
        ManualClock clock = new ManualClock();
        Map<String, String> before;
        Map<String, Integer> highestGeneration = new HashMap<>();
        try (Journaled a = new Journaled(dir, clock)) {
            a.register(1, false);
            a.register(2, false);
            storm(a, clock, new SplittableRandom(2026), 3_000, highestGeneration);
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

    /**
     * A checkpoint image of a namespace (files with their contents, directories with their
     * attributes, datanodes with every generation, the file table's counters) loads into an empty
     * namespace as exactly the same namespace; and a namespace rebuilt from a checkpoint plus the
     * journal after it equals the one that wrote them.
     */
    @Test
    void aCheckpointImageLoadsAsTheSameNamespace() throws Exception {
        Path dir = tmp.resolve("journal");
        ManualClock clock = new ManualClock();
        Map<String, String> before;
        try (Journaled a = new Journaled(dir, clock)) {
            a.register(1, false);
            a.register(2, false);
            SplittableRandom r = new SplittableRandom(77);
            storm(a, clock, r, 1_500, new HashMap<>());
            a.nn.namespace().mkdirs("/d1/sub/deeper", new Ownership("carol", "staff", 0700));
            a.nn.namespace().rename("/d1/sub", "/d2/moved");
            a.nn.namespace().delete("/d0", true);
            a.nn.namespace().mkdirs("/d9");
            a.nn.namespace().setReplication("/d9", 3);
            storm(a, clock, r, 1_500, new HashMap<>());
            // Times set back on a closed file, and an access time on another.
            List<String> closed = new ArrayList<>();
            a.nn.namespace().fileTable().forEach(f -> {
                if (!f.underConstruction()) {
                    closed.add(f.path());
                }
            });
            closed.sort(null);
            assertThat(closed).hasSizeGreaterThan(2);
            a.nn.namespace().setAttributes(new SetAttributesRequest(closed.get(0), NamenodeProtocol.SET_MTIME
                    | NamenodeProtocol.SET_ATIME, Ownership.UNSPECIFIED, 5, 6));
            a.nn.namespace().setAttributes(new SetAttributesRequest(closed.get(1), NamenodeProtocol.SET_ATIME
                    | NamenodeProtocol.SET_OWNER, new Ownership("dave", "", -1), 0, clock.millis() + 99));
            before = dumpAll(a.nn);
            Path image = JournalCheckpoint.write(tmp, a.journal.meta().namespaceId(), 42,
                    out -> NamespaceImage.write(a.nn.namespace(), out));
            assertThat(image.getFileName().toString()).isEqualTo("checkpoint-00000000000000000042.image");
        }
        assertThat(before.toString()).contains("carol").contains("dave").contains("/5/6 ")
                .contains("replication 3").contains(" open by ").contains(" closed ");

        NamenodeService blank = new NamenodeService(clock, BLOCK, 60_000, 10_000, new BlockTokens(1, 2),
                Partitioning.single(new HostPort("127.0.0.1", 0)), Replication.ONE);
        NamespaceReplay replay = blank.namespace().replay();
        UUID namespaceId;
        try (NamespaceJournal j = NamespaceJournal.open(dir, 0, 1, 0, (s, t, b) -> { },
                NamespaceJournal.Settings.DEFAULT)) {
            namespaceId = j.meta().namespaceId();
        }
        assertThat(JournalCheckpoint.load(tmp, namespaceId, replay)).isEqualTo(42);
        replay.finish();
        assertThat(dumpAll(blank)).isEqualTo(before);

        // Journal replay from scratch gives the same namespace too.
        try (Journaled b = new Journaled(dir, clock)) {
            assertThat(dumpAll(b.nn)).isEqualTo(before);
        }
    }

    /** A damaged checkpoint is refused with its file and offset, never loaded in part. */
    @Test
    void aDamagedCheckpointIsRefused() throws Exception {
        ManualClock clock = new ManualClock();
        UUID namespaceId = UUID.randomUUID();
        Path image;
        try (Journaled a = new Journaled(tmp.resolve("j"), clock)) {
            a.register(1, false);
            storm(a, clock, new SplittableRandom(5), 300, new HashMap<>());
            image = JournalCheckpoint.write(tmp, namespaceId, 7, out -> NamespaceImage.write(a.nn.namespace(), out));
        }
        byte[] bytes = Files.readAllBytes(image);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(image, bytes);
        NamenodeService blank = new NamenodeService(clock, BLOCK, 60_000, 10_000, new BlockTokens(1, 2),
                Partitioning.single(new HostPort("127.0.0.1", 0)), Replication.ONE);
        assertThat(catchThrowable(() -> JournalCheckpoint.load(tmp, namespaceId, blank.namespace().replay())))
                .isInstanceOf(JournalCorruptException.class).hasMessageContaining(image.toString())
                .hasMessageContaining("damaged at byte");
        assertThat(blank.namespace().directoryCount()).as("nothing loaded in part").isEqualTo(1);
        assertThat(blank.datanodes().size()).isZero();
        Files.write(image, Arrays.copyOf(bytes, bytes.length / 3));
        assertThat(catchThrowable(() -> JournalCheckpoint.load(tmp, namespaceId, blank.namespace().replay())))
                .isInstanceOf(JournalCorruptException.class).hasMessageContaining(image.toString());
        assertThat(catchThrowable(() -> JournalCheckpoint.load(tmp, UUID.randomUUID(),
                blank.namespace().replay()))).isInstanceOf(JournalCorruptException.class)
                .hasMessageContaining("belongs to namespace");
    }

    /** The block groups as a checkpoint and a replay must keep them, by id. */
    private static Map<String, String> dumpGroups(NamenodeService nn) {
        Map<String, String> out = new TreeMap<>();
        for (DatanodeInfo dn : nn.datanodes().all()) {
            for (GroupInfo g : groupsOf(nn)) {
                if (g.memberOn(dn) != null || g.joiningOn(dn) != null) {
                    out.merge("~on datanode " + dn.id(), Long.toHexString(g.id()), (x, y) -> x + " " + y);
                }
            }
        }
        for (GroupInfo g : groupsOf(nn)) {
            StringBuilder b = new StringBuilder("version ").append(g.version()).append(" members");
            for (GroupInfo.Member m : g.members()) {
                b.append(' ').append(m.memberId()).append('@').append(m.datanode().id()).append('/')
                        .append(m.regionId()).append('/').append(m.incarnation());
            }
            GroupInfo.Change c = g.change();
            if (c != null) {
                b.append(" replacing ").append(c.removed().memberId()).append(" by ").append(c.added().memberId())
                        .append('@').append(c.added().datanode().id()).append('/').append(c.added().regionId())
                        .append(" version ").append(c.target().version());
            }
            b.append(" free ").append(g.freeSlots()).append(" of ").append(g.slots());
            out.put("~group " + Long.toHexString(g.id()), b.toString());
        }
        return out;
    }

    private static List<GroupInfo> groupsOf(NamenodeService nn) {
        List<GroupInfo> all = new ArrayList<>();
        nn.namespace().fileTable().forEach(f -> {
            for (Block b : f.blocks()) {
                if (b.replicated() && !all.contains(b.group())) {
                    all.add(b.group());
                }
            }
        });
        all.sort((x, y) -> Long.compare(x.id(), y.id()));
        return all;
    }

    /**
     * Files of replication 3 in block groups: groups created, filled, destroyed with their last
     * block, members replaced (begun, retargeted, taken effect on the leader's report) while
     * datanodes come back without their data. Replayed, and loaded from a checkpoint, every group
     * comes back with its members, change under way, slots and generations, every datanode with its
     * groups' regions reserved; and no group id is handed out twice.
     */
    @Test
    void blockGroupsComeBackExactly() throws Exception {
        Path dir = tmp.resolve("journal");
        ManualClock clock = new ManualClock();
        Map<String, String> before;
        Map<String, String> groupsBefore;
        UUID namespaceId;
        Set<Long> idsBefore = new HashSet<>();
        try (Journaled a = new Journaled(dir, clock)) {
            for (long s = 1; s <= 5; s++) {
                a.register(s, false);
            }
            a.nn.allocator().groups().replaceAfter(0);
            SplittableRandom r = new SplittableRandom(31);
            long client = 7;
            for (int step = 0; step < 2_000; step++) {
                String path = "/g" + r.nextInt(2) + "/f" + r.nextInt(10);
                int op = r.nextInt(100);
                quietly(() -> {
                    if (op < 15) {
                        a.nn.create(new CreateRequest(path, FileType.FILE, NamenodeProtocol.CREATE_PARENTS
                                | NamenodeProtocol.CREATE_OVERWRITE, 0, client, "", Ownership.UNSPECIFIED, 3));
                    } else if (op < 55) {
                        FileInode f = a.nn.namespace().file(path);
                        a.nn.files().getBlock(f.id(), f.blocks().length, true, client, "");
                    } else if (op < 65) {
                        FileInode f = a.nn.namespace().file(path);
                        a.nn.files().close(f.id(), client,
                                Math.max(0, (long) f.blocks().length * BLOCK - r.nextInt(BLOCK)));
                    } else if (op < 80) {
                        a.nn.namespace().delete(path, false);
                    } else if (op < 83) {
                        // A datanode back without its data: repair replaces its members.
                        a.register(1 + r.nextInt(5), false);
                        a.nn.allocator().groups().repair(clock.millis());
                    } else if (op < 90) {
                        // A group's leader reports the change under way applied: it takes effect.
                        for (GroupInfo g : groupsOf(a.nn)) {
                            GroupInfo.Change c = g.change();
                            if (c != null && r.nextBoolean()) {
                                GroupInfo.Member leader = c.target().members().get(0);
                                a.nn.allocator().groups().heartbeat(leader.datanode(), List.of(g.id()),
                                        List.of(new LeaderReport(g.id(), leader.memberId(), 1, c.target().ids())));
                            }
                        }
                    } else {
                        clock.advance(1);
                    }
                });
                for (GroupInfo g : groupsOf(a.nn)) {
                    idsBefore.add(g.id());
                }
            }
            // Regions of destroyed groups, and of replaced members, return once their datanodes stop
            // listing the groups (soft state, not journaled): let every datanode say it lists none.
            for (DatanodeInfo dn : a.nn.datanodes().all()) {
                a.nn.allocator().groups().heartbeat(dn, List.of(), List.of());
            }
            before = dumpAll(a.nn);
            groupsBefore = dumpGroups(a.nn);
            namespaceId = a.journal.meta().namespaceId();
            Path image = JournalCheckpoint.write(Files.createDirectories(tmp.resolve("images")),
                    namespaceId, 9, out -> NamespaceImage.write(a.nn.namespace(), out));
            assertThat(image).exists();
        }
        assertThat(groupsBefore.toString()).as("live groups, one with a replacement under way or done")
                .contains("~group").containsPattern("version [2-9]");
        try (Journaled b = new Journaled(dir, clock)) {
            assertThat(dumpAll(b.nn)).isEqualTo(before);
            assertThat(dumpGroups(b.nn)).isEqualTo(groupsBefore);
            for (long s = 1; s <= 5; s++) {
                b.register(s, true);
            }
            // New groups get new ids.
            for (int i = 0; i < 40; i++) {
                quietly(() -> {
                    FileStatus st = b.nn.create(new CreateRequest("/new/f" + idsBefore.size() + System.nanoTime(),
                            FileType.FILE, NamenodeProtocol.CREATE_PARENTS, 0, 8, "", Ownership.UNSPECIFIED, 3));
                    BlockRef ref = b.nn.files().getBlock(st.fileId(), 0, true, 8, "");
                    if (groupsOf(b.nn).stream().noneMatch(g -> g.id() == ref.group().groupId())) {
                        throw new AssertionError("block in an unknown group");
                    }
                });
            }
            for (GroupInfo g : groupsOf(b.nn)) {
                if (!before.containsKey("~group " + Long.toHexString(g.id()))
                        && !groupsBefore.containsKey("~group " + Long.toHexString(g.id()))) {
                    assertThat(idsBefore).as("a new group's id").doesNotContain(g.id());
                }
            }
        }
        NamenodeService blank = new NamenodeService(clock, BLOCK, 60_000, 10_000, new BlockTokens(1, 2),
                Partitioning.single(new HostPort("127.0.0.1", 0)), Replication.ONE);
        NamespaceReplay replay = blank.namespace().replay();
        assertThat(JournalCheckpoint.load(tmp.resolve("images"), namespaceId, replay)).isEqualTo(9);
        replay.finish();
        assertThat(dumpAll(blank)).isEqualTo(before);
        assertThat(dumpGroups(blank)).isEqualTo(groupsBefore);
    }
}
