package io.tarn.namenode.group;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.NamenodeService;
import io.tarn.namenode.Partitioning;
import io.tarn.namenode.journal.EditLog;
import io.tarn.namenode.journal.JournalEditLog;
import io.tarn.namenode.journal.JournalFailedException;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.replication.Mode;
import io.tarn.replication.PersistentState;
import io.tarn.replication.ReplicationConfig;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.GroupMembers;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.JournalWriter;
import io.tarn.replication.host.ReplicationHost;
import io.tarn.common.config.HostPort;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import io.tarn.namenode.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Three namenode group members, each with its own transport, RPC server on loopback, replication
 * host and group journal on disk, replicate one namespace: the leader's mutations reach the
 * followers' namespaces through the replication core, a record is durable only once a majority
 * wrote it, a member restarted from its journal (checkpoint images and log) holds the same
 * namespace, and a leader that loses its leadership refuses mutations.
 */
class NamespaceGroupTest {
    private static final long GROUP = 1;
    private static final int BLOCK = 1 << 20;
    private static final long WRITER = 42;

    @TempDir
    Path dir;

    private final List<Member> members = new ArrayList<>();
    private final Map<Integer, InetSocketAddress> addresses = new HashMap<>();

    @AfterEach
    void stop() {
        members.forEach(m -> {
            if (m != null) {
                m.close();
            }
        });
    }

    private static NamenodeService service(EditLog log) {
        return new NamenodeService(Clock.system(), BLOCK, 60_000, 60_000, new BlockTokens(1, 2),
                Partitioning.single(new HostPort("127.0.0.1", 0)), 1, log);
    }

    /** One member: a namenode's namespace, hosted as a replica of the group. */
    final class Member implements AutoCloseable {
        final int id;
        final Transport transport = Transports.create(TarnConfig.defaults());
        final ReplicationHost host;
        final JournalWriter writer;
        final RpcServer server;
        final JournalEditLog editLog = new JournalEditLog();
        final AtomicReference<NamenodeService> service = new AtomicReference<>(service(editLog));
        final NamespaceStore store;
        /** Namespaces replaced by an image installed over them. */
        final AtomicInteger resets = new AtomicInteger();
        GroupRunner runner;
        GroupLog log;

        Member(int id, ReplicationConfig config, int port) throws Exception {
            this.id = id;
            host = new ReplicationHost(transport, new ReplicationHost.Settings(config, TimeUnit.MILLISECONDS.toNanos(1),
                    TimeUnit.SECONDS.toNanos(2), 1, 64L << 20), "namenode", "test-nn" + id);
            writer = new JournalWriter(JournalWriter.DEFAULT_CAPACITY, host);
            server = transport.bind(new InetSocketAddress("127.0.0.1", port), host.messages());
            store = new NamespaceStore(() -> {
                resets.incrementAndGet();
                NamenodeService fresh = service(editLog);
                service.set(fresh);
                return fresh.namespace().replay();
            }, service.get().namespace().replay(), () -> service(EditLog.NONE));
        }

        Path journal() {
            return GroupJournal.directory(dir.resolve("nn" + id), GROUP);
        }

        void join() throws Exception {
            GroupJournal j = GroupJournal.open(GROUP, journal(), PersistentState.initialVoter(), writer);
            runner = host.create(new GroupMembers(GROUP, 1, id, addresses), List.of(0, 1, 2), store, j, false,
                    journal());
        }

        Namespace namespace() {
            return service.get().namespace();
        }

        /**
         * Takes the lead once this member leads and applied everything its log held: learns a read
         * index, waits until it is applied, then ends the replay on the loop and opens the log.
         */
        void lead() throws Exception {
            GroupRunner.ReadIndex ri = runner.readIndex().get(10, TimeUnit.SECONDS);
            assertThat(ri.index()).as("member %d confirms its leadership: %s", id, ri.refusal())
                    .isGreaterThanOrEqualTo(0);
            assertThat(runner.awaitApplied(ri.index()).get(10, TimeUnit.SECONDS).ok()).isTrue();
            runner.loop().submit(() -> {
                log = new GroupLog(runner, store.appliedSeq(), 65_536, "group log of member " + id);
                store.lead(log);
                editLog.attach(log);
                if (log.lastSeq() == 0) {
                    namespace().recordRoot();
                }
            }).get(10, TimeUnit.SECONDS);
        }

        /** Waits until every record appended so far is committed. */
        void sync() throws Exception {
            CompletableFuture<String> done = new CompletableFuture<>();
            log.barrier(() -> done.complete(null), done::complete);
            assertThat(done.get(20, TimeUnit.SECONDS)).as("the group committed the records").isNull();
        }

        long appliedSeq() throws Exception {
            return runner.loop().submit(store::appliedSeq).get(10, TimeUnit.SECONDS);
        }

        private boolean closed;

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            if (log != null) {
                log.close();
            }
            host.close();
            writer.close();
            server.close();
            transport.close();
        }
    }

    /** As namenode groups run: in log order, over TCP (whose failed sends the messenger reports). */
    private static ReplicationConfig.Builder config() {
        return ReplicationConfig.builder().mode(Mode.IN_ORDER).reliableLinks(true);
    }

    private Member start(int id, ReplicationConfig config, int port) throws Exception {
        Member m = new Member(id, config, port);
        while (members.size() <= id) {
            members.add(null);
        }
        members.set(id, m);
        addresses.put(id, m.server.localAddress());
        return m;
    }

    private Member startGroup(ReplicationConfig config) throws Exception {
        for (int i = 0; i < 3; i++) {
            start(i, config, 0);
        }
        for (Member m : members) {
            m.join();
        }
        members.get(0).runner.campaign();
        awaitLeader(members.get(0));
        Member leader = members.get(0);
        leader.lead();
        return leader;
    }

    private static void awaitLeader(Member m) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!m.runner.leads()) {
            assertThat(System.nanoTime()).as("member %d never led", m.id).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private static void awaitApplied(Member m, long seq) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (m.appliedSeq() < seq) {
            assertThat(System.nanoTime()).as("member %d applied records up to %d", m.id, seq).isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    /** Every entry of the namespace, as a sorted listing of path, type, size and owner. */
    static TreeSet<String> tree(Namespace ns) throws Exception {
        TreeSet<String> lines = new TreeSet<>();
        List<String> dirs = new ArrayList<>(List.of("/"));
        while (!dirs.isEmpty()) {
            String d = dirs.remove(dirs.size() - 1);
            String after = "";
            ListResponse page;
            do {
                page = ns.list(d, after, 1000);
                for (FileStatus f : page.entries()) {
                    String path = (d.equals("/") ? "" : d) + "/" + f.name();
                    lines.add(path + " " + f.type() + " " + f.size() + " " + f.ownership());
                    if (f.type() == FileType.DIRECTORY) {
                        dirs.add(path);
                    }
                    after = f.name();
                }
            } while (page.hasMore());
        }
        return lines;
    }

    private static void mutate(Namespace ns, int round) throws Exception {
        ns.mkdirs("/jobs/" + round + "/out", new Ownership("ann", "g", 0750));
        for (int i = 0; i < 5; i++) {
            ns.create("/jobs/" + round + "/tmp-" + i, FileType.FILE, false, false, 0, WRITER,
                    new Ownership("ann", "g", 0640));
        }
        ns.rename("/jobs/" + round + "/tmp-0", "/jobs/" + round + "/out/part-0");
        ns.delete("/jobs/" + round + "/tmp-1", false);
        if (round > 0) {
            ns.delete("/jobs/" + (round - 1), true);
        }
    }

    @Test
    void followersApplyWhatTheLeaderCommits() throws Exception {
        Member leader = startGroup(config().build());
        for (int round = 0; round < 20; round++) {
            mutate(leader.namespace(), round);
        }
        leader.sync();
        long last = leader.log.lastSeq();
        assertThat(leader.log.durableSeq()).isEqualTo(last);
        assertThat(leader.log.writes()).as("records share writes").isPositive().isLessThanOrEqualTo(last);
        TreeSet<String> expected = tree(leader.namespace());
        assertThat(expected).contains("/jobs/19/out/part-0 FILE 0 " + new Ownership("ann", "g", 0640))
                .noneMatch(l -> l.startsWith("/jobs/18"));
        for (Member follower : members.subList(1, 3)) {
            awaitApplied(follower, last);
            assertThat(tree(follower.namespace())).as("member %d's namespace", follower.id).isEqualTo(expected);
        }
    }

    /**
     * Two of three members make a majority: the leader's records are durable without the third, which
     * takes them when it comes back. Without a majority the leader steps down: its records are never
     * acknowledged durable, and its log refuses further mutations.
     */
    @Test
    void aRecordIsDurableOnlyOnceAMajorityWroteIt() throws Exception {
        Member leader = startGroup(config().build());
        mutate(leader.namespace(), 0);
        leader.sync();
        int port = addresses.get(2).getPort();
        members.get(2).close();
        leader.namespace().mkdirs("/with-two");
        leader.sync();

        members.get(1).close();
        leader.namespace().mkdirs("/alone");
        CompletableFuture<String> alone = new CompletableFuture<>();
        leader.log.barrier(() -> alone.complete("durable"), alone::complete);
        assertThat(alone.get(20, TimeUnit.SECONDS)).as("never durable without a majority")
                .contains("no longer leads its group");
        assertThatThrownBy(() -> leader.namespace().mkdirs("/refused")).isInstanceOf(JournalFailedException.class);

        Member back = start(2, config().build(), port);
        back.join();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (back.namespace().find("/with-two") == null) {
            assertThat(System.nanoTime()).as("the returning member took what two committed").isLessThan(deadline);
            Thread.sleep(10);
        }
        assertThat(back.namespace().find("/jobs/0/out/part-0")).isNotNull();
    }

    @Test
    void aMemberRestartedFromItsCheckpointsAndLogHoldsTheSameNamespace() throws Exception {
        ReplicationConfig config = config().window(8).checkpointInterval(8).build();
        Member leader = startGroup(config);
        for (int round = 0; round < 30; round++) {
            mutate(leader.namespace(), round);
            leader.sync(); // one write each round at least, so that checkpoints come
        }
        long last = leader.log.lastSeq();
        Member follower = members.get(2);
        awaitApplied(follower, last);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (follower.runner.replica().checkpointIndex() == 0) {
            assertThat(System.nanoTime()).as("member 2 took a checkpoint").isLessThan(deadline);
            Thread.sleep(10);
        }
        int port = addresses.get(2).getPort();
        follower.close();
        try (Stream<Path> files = Files.list(follower.journal())) {
            assertThat(files.map(f -> f.getFileName().toString())).as("an image was saved")
                    .anyMatch(n -> n.startsWith("image-"));
        }

        Member restarted = start(2, config, port);
        restarted.join();
        assertThat(restarted.runner.replica().checkpointIndex()).as("restarted from a checkpoint").isPositive();
        awaitApplied(restarted, last);
        assertThat(tree(restarted.namespace())).isEqualTo(tree(leader.namespace()));
    }

    /**
     * A member that was down while the others checkpointed past everything it holds catches up from
     * the leader's checkpoint image, sent in chunks and installed over its namespace.
     */
    @Test
    void aMemberBehindTheCheckpointsInstallsTheLeadersImage() throws Exception {
        ReplicationConfig config = config().window(8).checkpointInterval(8).build();
        Member leader = startGroup(config);
        mutate(leader.namespace(), 0);
        leader.sync();
        Member behind = members.get(2);
        awaitApplied(behind, leader.log.lastSeq());
        int port = addresses.get(2).getPort();
        long held = behind.runner.loop().submit(() -> behind.runner.replica().lastIndex()).get();
        behind.close();
        // Until the leader stops hearing from member 2 it keeps the entries member 2 needs: mutate
        // until its log no longer holds the first of them (it checkpointed past member 2).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int round = 1; round < 40 || leader.runner.loop().submit(
                () -> leader.runner.replica().entry(held + 1) != null).get(); round++) {
            mutate(leader.namespace(), round);
            leader.sync();
            assertThat(System.nanoTime()).as("the leader checkpointed past member 2").isLessThan(deadline);
        }
        long last = leader.log.lastSeq();

        Member back = start(2, config, port);
        back.join();
        awaitApplied(back, last);
        // The leader sent its image whole (a member whose namespace was still blank when it arrived
        // installs it without replacing one, so resets may be 0 or 1). The leader counts the transfer
        // once member 2's last acknowledgment is back, which may be after member 2 applied it.
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (leader.host.messenger().transfers().completed() == 0 && System.nanoTime() < until) {
            Thread.sleep(5);
        }
        assertThat(leader.host.messenger().transfers().completed()).as("the leader's image reached member 2")
                .isPositive();
        assertThat(back.resets.get()).as("at most one namespace replaced").isLessThanOrEqualTo(1);
        assertThat(tree(back.namespace())).isEqualTo(tree(leader.namespace()));
    }

    @Test
    void aLeaderThatLostItsLeadershipRefusesMutations() throws Exception {
        Member leader = startGroup(config().build());
        mutate(leader.namespace(), 0);
        leader.sync();
        leader.runner.transferLeadership(1);
        awaitLeader(members.get(1));
        leader.namespace().mkdirs("/after-the-transfer");
        CompletableFuture<String> outcome = new CompletableFuture<>();
        leader.log.barrier(() -> outcome.complete("durable"), outcome::complete);
        assertThat(outcome.get(20, TimeUnit.SECONDS)).contains("no longer leads its group");
        assertThat(leader.log.failure()).contains("no longer leads its group");
        assertThatThrownBy(() -> leader.namespace().mkdirs("/refused"))
                .isInstanceOf(JournalFailedException.class).hasMessageContaining("no longer leads its group");

        Member next = members.get(1);
        next.lead();
        next.namespace().mkdirs("/from-the-new-leader");
        next.sync();
        assertThat(next.namespace().find("/after-the-transfer")).as("never committed").isNull();
        awaitApplied(members.get(2), next.log.lastSeq());
        assertThat(tree(members.get(2).namespace())).isEqualTo(tree(next.namespace()));
    }
}
