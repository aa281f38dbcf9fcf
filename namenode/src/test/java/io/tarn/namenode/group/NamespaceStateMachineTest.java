package io.tarn.namenode.group;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.security.BlockTokens;
import io.tarn.common.config.HostPort;
import io.tarn.namenode.Clock;
import io.tarn.namenode.NamenodeService;
import io.tarn.namenode.Partitioning;
import io.tarn.namenode.journal.EditLog;
import io.tarn.namenode.journal.JournalEditLog;
import io.tarn.namenode.journal.SequencedLog;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.LogEntry;
import io.tarn.replication.StateImage;
import io.tarn.replication.WriteCommand;
import io.tarn.replication.host.BytesPayload;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The namespace as the replicated state machine of a namenode group ({@link NamespaceStore}),
 * driven the way the replication core drives it, without the network: a leader's mutations become
 * committed entries of namespace records; three followers apply them in order and, at random
 * points, capture checkpoints, restart from their own last checkpoint (crash and replay), install
 * another member's checkpoint over their namespace (a follower behind the log's start), and one of
 * them takes over as leader halfway, its own records then skipped when applied. Whatever the path,
 * a member's namespace at an index is the one every other member has at that index, and at the end
 * every member holds the last leader's namespace. (The replication core's own simulator checks the
 * log: election safety, log matching, commit order, under faults; this checks that what it carries
 * rebuilds one namespace.)
 */
class NamespaceStateMachineTest {
    private static final int BLOCK = 1 << 20;
    private static final long WRITER = 42;
    private static final BlockRange NAMESPACE = new BlockRange(0, 1);
    private static final Ownership OWNER = new Ownership("ann", "g", 0750);

    private static NamenodeService service(EditLog log) {
        return new NamenodeService(Clock.system(), BLOCK, 60_000, 60_000, new BlockTokens(1, 2),
                Partitioning.single(new HostPort("127.0.0.1", 0)), 1, log);
    }

    /** A leader's log whose writer hands each run of records over as one entry's payload. */
    private static final class CapturingLog extends SequencedLog {
        final List<BytesPayload> batches = new CopyOnWriteArrayList<>();
        private final ByteBuf out = Unpooled.buffer();

        CapturingLog(long lastSeq) {
            super("capturing log", lastSeq, 65_536);
            startWriter("capturing-log");
        }

        @Override
        protected void writeRun(PriorityQueue<Pending> reorder) {
            long n = 0;
            for (Pending p = next(reorder); p != null; p = next(reorder)) {
                encode(p, out);
                n++;
            }
            if (n > 0) {
                batches.add(BytesPayload.copyOf(out));
                out.clear();
                durableUpTo(n);
            }
        }

        @Override
        protected void writerStopped() {
            out.release();
        }

        @Override
        protected String failureReason(Throwable e) {
            return e.toString();
        }

        /** Waits until every record appended so far is in {@link #batches}. */
        void sync() throws Exception {
            CompletableFuture<Void> done = new CompletableFuture<>();
            whenDurable(lastSeq(), () -> done.complete(null), why -> done.completeExceptionally(new
                    AssertionError(why)));
            done.get(10, TimeUnit.SECONDS);
        }
    }

    /** A group member: its namespace and the store the replication core would feed. */
    private static final class Member {
        final JournalEditLog editLog = new JournalEditLog();
        NamenodeService service = service(editLog);
        final NamespaceStore store;
        /** The last entry applied or installed. */
        long applied;
        /** Its last checkpoint: the entry it covers and its image. */
        long checkpointIndex;
        StateImage checkpoint;

        Member() {
            store = new NamespaceStore(() -> {
                service = service(editLog);
                return service.namespace().replay();
            }, service.namespace().replay(), () -> service(EditLog.NONE));
        }

        void apply(List<LogEntry> log) {
            LogEntry e = log.get((int) applied);
            store.apply(e);
            applied = e.index();
        }

        void capture() {
            checkpoint = store.capture(new CheckpointMeta(applied, List.of(), Map.of()));
            checkpointIndex = applied;
        }

        void install(long index, StateImage image) {
            store.restore(new Checkpoint(new CheckpointMeta(index, List.of(), Map.of()), image));
            applied = index;
        }

        TreeSet<String> tree() throws Exception {
            return NamespaceGroupTest.tree(service.namespace());
        }
    }

    private static final AtomicInteger RESTARTS_FROM_CHECKPOINTS = new AtomicInteger();
    private static final AtomicInteger INSTALLS = new AtomicInteger();

    @AfterAll
    static void everyPathWasTaken() {
        System.out.println("NamespaceStateMachineTest: " + RESTARTS_FROM_CHECKPOINTS + " restarts from a checkpoint, "
                + INSTALLS + " checkpoints installed over a namespace");
        assertThat(RESTARTS_FROM_CHECKPOINTS.get()).as("restarts from a checkpoint over all seeds").isPositive();
        assertThat(INSTALLS.get()).as("checkpoints installed over a namespace, over all seeds").isPositive();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void everyPathThroughEntriesCheckpointsAndInstallsRebuildsTheSameNamespace(long seed) throws Exception {
        Random random = new Random(seed);
        List<LogEntry> log = new ArrayList<>();
        Map<Long, TreeSet<String>> reference = new HashMap<>();

        // The first leader: records its root, then mutations, each run of records one entry.
        JournalEditLog leaderEdits = new JournalEditLog();
        NamenodeService leader = service(leaderEdits);
        CapturingLog leaderLog = new CapturingLog(0);
        leaderEdits.attach(leaderLog);
        leader.namespace().recordRoot();
        List<Member> members = new ArrayList<>(List.of(new Member(), new Member(), new Member()));
        int taken = 0;
        for (int round = 0; round < 120; round++) {
            if (round == 60) {
                // Member 0 catches up and takes over: the old leader is gone, the new one's records follow.
                taken = commit(leaderLog, log, taken);
                Member next = members.get(0);
                while (next.applied < log.size()) {
                    next.apply(log);
                }
                leaderLog.close();
                leaderLog = new CapturingLog(next.store.appliedSeq());
                next.store.lead(leaderLog);
                next.editLog.attach(leaderLog);
                leader = next.service;
                taken = 0;
            }
            mutate(leader, random, round);
            taken = commit(leaderLog, log, taken);
            for (int m = 0; m < members.size(); m++) {
                step(members, m, log, random, reference);
            }
        }
        TreeSet<String> expected = NamespaceGroupTest.tree(leader.namespace());
        assertThat(log).as("entries committed").hasSizeGreaterThan(60);
        assertThat(expected).as("the workload left files behind").hasSizeGreaterThan(3);
        for (int m = 0; m < members.size(); m++) {
            Member member = members.get(m);
            while (member.applied < log.size()) {
                member.apply(log);
            }
            assertThat(member.tree()).as("member %d after every entry (seed %d)", m, seed).isEqualTo(expected);
        }
        leaderLog.close();
    }

    /** Waits for the leader's records and appends the runs not yet taken as entries; returns the runs taken. */
    private static int commit(CapturingLog leaderLog, List<LogEntry> log, int taken) throws Exception {
        leaderLog.sync();
        List<BytesPayload> batches = leaderLog.batches;
        for (; taken < batches.size(); taken++) {
            long index = log.size() + 1;
            log.add(new LogEntry(1, index, NAMESPACE, List.of(), new WriteCommand(7, index, index, NAMESPACE,
                    batches.get(taken))));
        }
        return taken;
    }

    /** One member's random step: apply, checkpoint, restart from its checkpoint, or install another's. */
    private static void step(List<Member> members, int m, List<LogEntry> log, Random random,
                             Map<Long, TreeSet<String>> reference) throws Exception {
        Member member = members.get(m);
        int dice = random.nextInt(20);
        if (dice < 14 || member.store.leading()) {
            for (int n = random.nextInt(3); n >= 0 && member.applied < log.size(); n--) {
                member.apply(log);
            }
        } else if (dice < 17) {
            member.capture();
        } else if (dice < 19) {
            // Crash and restart: a new process replays its own last checkpoint, then applies what follows.
            Member restarted = new Member();
            if (member.checkpoint != null && member.checkpointIndex > 0) {
                restarted.install(member.checkpointIndex, member.checkpoint);
                RESTARTS_FROM_CHECKPOINTS.incrementAndGet();
                restarted.checkpoint = member.checkpoint;
                restarted.checkpointIndex = member.checkpointIndex;
                assertSameAs(restarted, log, reference, "restarted from its checkpoint");
            }
            members.set(m, restarted);
        } else {
            // Behind the others' checkpoints: another member's image is installed over its namespace.
            Member ahead = null;
            for (Member other : members) {
                if (other != member && other.checkpoint != null && other.checkpointIndex > member.applied) {
                    ahead = other;
                }
            }
            if (ahead != null) {
                member.install(ahead.checkpointIndex, ahead.checkpoint);
                INSTALLS.incrementAndGet();
                assertSameAs(member, log, reference, "installed another member's checkpoint");
            }
        }
    }

    /** Checks a member's namespace against a fresh member that applied the log up to the same entry. */
    private static void assertSameAs(Member member, List<LogEntry> log, Map<Long, TreeSet<String>> reference,
                                     String how) throws Exception {
        TreeSet<String> expected = reference.get(member.applied);
        if (expected == null) {
            Member fresh = new Member();
            while (fresh.applied < member.applied) {
                fresh.apply(log);
            }
            expected = fresh.tree();
            reference.put(member.applied, expected);
        }
        assertThat(member.tree()).as("%s at entry %d", how, member.applied).isEqualTo(expected);
    }

    /** A few namespace changes of every kind the journal records; refused ones change nothing. */
    private static void mutate(NamenodeService leader, Random random, int round) throws Exception {
        var ns = leader.namespace();
        for (int i = 0; i < 1 + random.nextInt(6); i++) {
            String dir = "/d" + random.nextInt(4) + (random.nextBoolean() ? "/e" + random.nextInt(3) : "");
            String file = dir + "/f" + random.nextInt(8);
            try {
                switch (random.nextInt(7)) {
                    case 0 -> ns.mkdirs(dir, OWNER);
                    case 1, 2 -> {
                        FileStatus f = ns.create(file, FileType.FILE, random.nextBoolean(), true, 0, WRITER,
                                new Ownership("bob", "g", 0640));
                        if (random.nextBoolean()) {
                            leader.files().close(f.fileId(), WRITER, 0);
                        }
                    }
                    case 3 -> ns.rename(file, dir + "/r" + round + "-" + i);
                    case 4 -> ns.rename(dir, "/d" + random.nextInt(4) + "/moved" + round);
                    case 5 -> ns.delete(file, false);
                    default -> ns.delete(dir, true);
                }
            } catch (TarnException refused) {
                // exists already, missing, not empty: nothing recorded
            }
        }
    }
}
