package io.tarn.namenode.namespace;

import io.tarn.namenode.journal.EditLog;
import io.netty.buffer.ByteBuf;
import io.tarn.common.config.HostPort;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Replication;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.namenode.Clock;
import io.tarn.namenode.Partitioning;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.journal.NamespaceJournal;
import io.tarn.namenode.lease.LeaseManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

import static io.tarn.namenode.namespace.Refusals.quietly;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The namespace's records, written through a real journal and replayed into a fresh namespace,
 * rebuild exactly the namespace that wrote them: every kind of mutation, and mutations from many
 * threads racing on the same names (creates against deletes and renames, overwrites, recursive
 * deletes), where the order in which records reach the journal is what is tested.
 */
class NamespaceReplayTest {
    private static final Ownership ALICE = new Ownership("alice", "staff", 0750);

    @TempDir
    Path tmp;

    /** A clock that moves on by one millisecond at every reading, so each mutation has its own time. */
    private static final class TickingClock implements Clock {
        private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

        @Override
        public long millis() {
            return now.incrementAndGet();
        }
    }

    private static Namespace namespace(Clock clock, EditLog log) {
        DatanodeRegistry registry = new DatanodeRegistry(4096, clock, 10_000);
        return new Namespace(clock, 4096, new FileTable(0), new BlockAllocator(registry),
                new LeaseManager(clock, 60_000), Partitioning.single(new HostPort("127.0.0.1", 0)), Replication.ONE,
                log);
    }

    private static EditLog into(NamespaceJournal journal) {
        return new EditLog() {
            @Override
            public boolean enabled() {
                return true;
            }

            @Override
            public long append(int type, ByteBuf body) {
                return journal.append(type, body);
            }
        };
    }

    /** Opens the journal in {@code dir}, replays it into a new namespace, and returns that namespace. */
    private static Namespace replayed(Path dir, Clock clock) throws IOException {
        Namespace ns = namespace(clock, EditLog.NONE);
        NamespaceReplay replay = ns.replay();
        try (NamespaceJournal j = NamespaceJournal.open(dir, 0, 1, 0, replay, NamespaceJournal.Settings.DEFAULT)) {
            replay.finish();
            assertThat(j.lastSeq()).isEqualTo(replay.applied() + replay.skipped());
        }
        return ns;
    }

    /** Everything a client can see of a namespace, by path, plus the file table and the counts. */
    private static Map<String, String> dump(Namespace ns) {
        Map<String, String> out = new TreeMap<>();
        dump(ns.root(), "", out);
        List<Long> ids = new ArrayList<>();
        ns.fileTable().forEach(f -> ids.add(f.id()));
        out.put("~files", ids.toString());
        out.put("~counts", ns.fileCount() + " files, " + ns.directoryCount() + " directories");
        return out;
    }

    private static void dump(DirectoryInode dir, String path, Map<String, String> out) {
        out.put(path.isEmpty() ? "/" : path, describe(dir) + " replication " + dir.replication());
        for (Map.Entry<String, Inode> e : dir.children().entrySet()) {
            String child = path + "/" + e.getKey();
            if (e.getValue() instanceof DirectoryInode d) {
                dump(d, child, out);
            } else {
                FileInode f = (FileInode) e.getValue();
                out.put(child, describe(f) + " replication " + f.replication() + " lease " + f.leaseHolder()
                        + " block size " + f.blockSize() + " class " + f.storageClass());
            }
        }
    }

    private static String describe(Inode n) {
        return Long.toHexString(n.id()) + " " + n.ownership() + " times " + n.creationTime() + "/"
                + n.modificationTime() + "/" + n.accessTime() + " parent " + (n.parent() == null ? "-"
                : Long.toHexString(n.parent().id())) + " named " + n.name();
    }


    @Test
    void everyKindOfMutationReplaysToTheSameNamespace() throws Exception {
        Path dir = tmp.resolve("journal");
        TickingClock clock = new TickingClock();
        Map<String, String> before;
        try (NamespaceJournal j = NamespaceJournal.open(dir, 0, 1, 0, (s, t, b) -> { },
                NamespaceJournal.Settings.DEFAULT)) {
            Namespace ns = namespace(clock, into(j));
            ns.recordRoot();
            ns.mkdirs("/a/b/c", ALICE);
            ns.create("/a/b/f1", FileType.FILE, false, false, 0, 11);
            ns.create("/a/b/c/f2", FileType.FILE, false, false, 0, 12, ALICE);
            ns.create("/a/b/f1", FileType.FILE, true, false, 0, 11); // overwrite
            ns.create("/x/y/f3", FileType.FILE, false, true, 0, 13); // with parents
            ns.create("/x/e", FileType.DIRECTORY, false, false, 0, 13);
            ns.setAttributes(new SetAttributesRequest("/a/b/f1", NamenodeProtocol.SET_OWNER
                    | NamenodeProtocol.SET_PERMISSION | NamenodeProtocol.SET_MTIME | NamenodeProtocol.SET_ATIME,
                    new Ownership("bob", "", 0600), 5_000, 6_000));
            ns.setReplication("/x", 3);
            ns.setReplication("/a/b/c/f2", 1);
            ns.rename("/a/b/c/f2", "/x/f2");
            ns.rename("/a/b", "/x/y");
            ns.delete("/x/e", false);
            ns.create("/gone/g1", FileType.FILE, false, true, 0, 14);
            ns.create("/gone/sub/g2", FileType.FILE, false, true, 0, 14);
            ns.delete("/gone", true);
            ns.create("/top1", FileType.FILE, false, false, 0, 15);
            ns.mkdirs("/top2/deep");
            ns.delete("/", true); // the root stays, its entries go one by one
            ns.mkdirs("/again", ALICE);
            ns.create("/again/f", FileType.FILE, false, false, 0, 16);
            before = dump(ns);
        }
        Namespace replayed = replayed(dir, clock);
        assertThat(dump(replayed)).isEqualTo(before);
        assertThat(before.keySet()).containsExactly("/", "/again", "/again/f", "~counts", "~files");

        // Ids handed out after the replay are new ones.
        String again = replayed.mkdirs("/later").toString();
        assertThat(replayed.getFile("/later").fileId()).isNotIn(idsOf(before));
        assertThat(replayed.create("/later/f", FileType.FILE, false, false, 0, 17).fileId())
                .isNotIn(idsOf(before));
        assertThat(again).contains("later");
    }

    private static List<Long> idsOf(Map<String, String> dump) {
        List<Long> ids = new ArrayList<>();
        dump.forEach((path, d) -> {
            if (!path.startsWith("~")) {
                ids.add(Long.parseUnsignedLong(d.substring(0, d.indexOf(' ')), 16));
            }
        });
        return ids;
    }

    @Test
    void mutationsRacingOnTheSameNamesReplayToTheSameNamespace() throws Exception {
        Path dir = tmp.resolve("journal");
        TickingClock clock = new TickingClock();
        Map<String, String> before;
        int threads = 6;
        int each = 4000;
        try (NamespaceJournal j = NamespaceJournal.open(dir, 0, 1, 0, (s, t, b) -> { },
                NamespaceJournal.Settings.DEFAULT)) {
            Namespace ns = namespace(clock, into(j));
            ns.recordRoot();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                SplittableRandom r = new SplittableRandom(1000 + t);
                long client = 100 + t;
                workers.add(new Thread(() -> {
                    for (int i = 0; i < each; i++) {
                        randomMutation(ns, r, client);
                    }
                }));
            }
            workers.forEach(Thread::start);
            for (Thread w : workers) {
                w.join();
            }
            before = dump(ns);
            assertThat(j.appended()).as("records").isGreaterThan(threads * each / 4);
        }
        assertThat(dump(replayed(dir, clock))).isEqualTo(before);
    }

    private static final String[] NAMES = {"a", "b", "c"};

    private static String path(SplittableRandom r) {
        StringBuilder sb = new StringBuilder();
        int depth = 1 + r.nextInt(3);
        for (int i = 0; i < depth; i++) {
            sb.append('/').append(NAMES[r.nextInt(NAMES.length)]);
        }
        return sb.toString();
    }

    private static void randomMutation(Namespace ns, SplittableRandom r, long client) {
        String p = path(r);
        switch (r.nextInt(10)) {
            case 0, 1 -> quietly(() -> ns.mkdirs(p));
            case 2, 3 -> quietly(() -> ns.create(p, FileType.FILE, r.nextBoolean(), r.nextBoolean(), 0, client));
            case 4 -> quietly(() -> ns.delete(p, false));
            case 5 -> quietly(() -> ns.delete(p, r.nextInt(4) == 0));
            case 6, 7 -> quietly(() -> ns.rename(p, path(r)));
            case 8 -> quietly(() -> ns.setAttributes(new SetAttributesRequest(p, NamenodeProtocol.SET_PERMISSION,
                    new Ownership("", "", r.nextInt(0777)), 0, 0)));
            default -> quietly(() -> ns.setReplication(p, r.nextBoolean() ? 1 : Replication.INHERIT));
        }
    }
}
