package io.tarn.datanode.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.netty.buffer.Unpooled;
import io.tarn.common.config.TarnConfig;
import java.util.concurrent.ExecutionException;
import io.tarn.rpc.RpcClient;
import io.tarn.common.security.BlockTokens;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.GroupProtocol;
import io.tarn.common.error.TarnException;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.ErrorCode;
import io.tarn.datanode.GenerationTable;
import io.tarn.replication.host.GroupRunner.Outcome;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Message;
import io.tarn.replication.PersistentState;
import io.tarn.replication.ReplicationConfig;
import io.tarn.replication.Status;
import io.tarn.replication.WriteCommand;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.tarn.replication.host.BytesPayload;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.GroupMembers;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.PeerMessenger;
import io.tarn.replication.host.TestWriter;

/**
 * Three datanode replication hosts, each with its own transport and RPC server on loopback, keep a
 * group consistent over real sockets: the codec, the REPLICA audience and the loops end to end.
 */
class ReplicationOverTcpTest {

    private static final int BLOCK = 1024;
    private static final int REGION = 16 * BLOCK;
    private static final long GROUP = 7;
    /** As datanodes run it: over TCP, whose failed sends PeerMessenger reports. */
    private static final ReplicationConfig CONFIG = ReplicationConfig.builder().checkpointInterval(64)
            .reliableLinks(true).build();
    /** The namenode's token key, as every datanode learns it at registration; datanode i has id i. */
    private static final BlockTokens TOKENS = BlockTokens.random();

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        nodes.forEach(Node::close);
    }

    @TempDir
    Path dir;

    private Map<Integer, InetSocketAddress> start(int count) throws Exception {
        return start(count, CONFIG);
    }

    private Map<Integer, InetSocketAddress> start(int count, ReplicationConfig config) throws Exception {
        Map<Integer, InetSocketAddress> addresses = new HashMap<>();
        for (int i = 0; i < count; i++) {
            Node n = new Node(i, dir.resolve("dn" + i), false, REGION, BLOCK, config, TOKENS, 0);
            nodes.add(n);
            addresses.put(i, n.server.localAddress());
        }
        return addresses;
    }

    private List<GroupRunner> join(Map<Integer, InetSocketAddress> addresses) throws Exception {
        List<GroupRunner> runners = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            runners.add(nodes.get(i).join(new GroupMembers(GROUP, 1, i, addresses), PersistentState.initialVoter()));
        }
        runners.get(0).campaign();
        return runners;
    }

    private static WriteCommand write(long client, long seq, int offset, int generation, String text) {
        byte[] data = text.getBytes(StandardCharsets.US_ASCII);
        byte[] payload = new byte[RegionGroupStore.PAYLOAD_HEADER + data.length];
        Unpooled.wrappedBuffer(payload).setInt(0, generation);
        System.arraycopy(data, 0, payload, RegionGroupStore.PAYLOAD_HEADER, data.length);
        return new WriteCommand(client, seq, seq, new BlockRange(offset, data.length), BytesPayload.copyOf(payload));
    }

    private TestWriter writer;

    private Outcome writeThrough(List<GroupRunner> runners, WriteCommand command) throws Exception {
        if (writer == null) {
            writer = new TestWriter(runners::get, runners.size(), 0);
        }
        return writer.write(command);
    }

    private int leader(List<GroupRunner> runners) throws Exception {
        writeThrough(runners, write(99, 1, 15 * BLOCK, 1, "probe"));
        return writer.leader();
    }

    private void awaitIdentical(List<Node> among) throws Exception {
        awaitIdentical(among, 10);
    }

    /** Waits until every node of {@code among} holds the same region bytes, for at most {@code seconds}. */
    static void awaitIdentical(List<Node> among, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            byte[] first = among.get(0).bytes();
            if (among.stream().allMatch(n -> Arrays.equals(first, n.bytes()))) {
                return;
            }
            assertThat(System.nanoTime()).as("replicas never became byte-identical").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /**
     * A new group's first candidate asks for votes before the command to host the group reached the
     * other members: they keep the requests and answer once they host it, so the group has its
     * leader in the first term. Before, the requests were dropped and the candidate stood again
     * after an election timeout, often against the others' own candidacies.
     */
    @Test
    void votesAskedBeforeAGroupIsHostedAreAnsweredOnceItIs() throws Exception {
        // Election timeouts far above the time the test takes to host the group on the others.
        Map<Integer, InetSocketAddress> addresses = start(3, ReplicationConfig.builder().checkpointInterval(64)
                .reliableLinks(true).electionTimeout(2000, 4000).leaseTicks(500).build());
        Set<Long> askedAt1 = ConcurrentHashMap.newKeySet();
        Set<Long> askedAt2 = ConcurrentHashMap.newKeySet();
        nodes.get(1).host.onUnknownGroup(askedAt1::add);
        nodes.get(2).host.onUnknownGroup(askedAt2::add);
        GroupRunner first = nodes.get(0).join(new GroupMembers(GROUP, 1, 0, addresses),
                PersistentState.initialVoter());
        first.campaign();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!(askedAt1.contains(GROUP) && askedAt2.contains(GROUP)) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(askedAt1).as("member 1 was asked before it hosted the group").contains(GROUP);
        assertThat(askedAt2).as("member 2 was asked before it hosted the group").contains(GROUP);
        Thread.sleep(50); // and nothing answered it meanwhile
        assertThat(first.leads()).isFalse();
        for (int i = 1; i < 3; i++) {
            nodes.get(i).join(new GroupMembers(GROUP, 1, i, addresses), PersistentState.initialVoter());
        }
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        while (!first.leads() && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(first.leads()).as("leads within a second, well before its election timeout (2 s)").isTrue();
        assertThat(first.term()).as("elected with the votes it asked for first").isEqualTo(1);
    }

    @Test
    void aGroupOfThreeDatanodesReplicatesWritesOverTcp() throws Exception {
        Map<Integer, InetSocketAddress> addresses = start(3);
        List<GroupRunner> runners = join(addresses);
        Outcome first = writeThrough(runners, write(1, 1, 0, 1, "first"));
        assertThat(first.ok()).as("first write: %s", first).isTrue();
        List<CompletableFuture<Outcome>> pending = new ArrayList<>();
        for (int seq = 2; seq <= 100; seq++) {
            int block = seq % 16;
            WriteCommand command = write(1, seq, block * BLOCK + (seq % 8) * 16, 1, "w" + seq);
            pending.add(runners.get(writer.leader()).write(command));
            if (seq % 16 == 0) {
                for (CompletableFuture<Outcome> f : pending) {
                    Outcome o = f.get(10, TimeUnit.SECONDS);
                    // A loaded machine may stall a loop past an election timeout: a leader change then
                    // aborts or redirects writes in flight; the final write below must still land.
                    assertThat(o.status()).isIn(Status.OK, Status.BUSY, Status.LEADER_NOT_READY, Status.ABORTED,
                            Status.NOT_LEADER);
                }
                pending.clear();
            }
        }
        assertThat(writeThrough(runners, write(1, 101, 3 * BLOCK, 2, "last")).ok()).isTrue();
        awaitIdentical(nodes);
        assertThat(new String(nodes.get(2).bytes(), 3 * BLOCK, 4, StandardCharsets.US_ASCII)).isEqualTo("last");
        assertThat(nodes.get(1).generations.get(0, 3)).isEqualTo(2);
        assertThat(nodes.get(0).host.messenger().sent()).isGreaterThan(100);
        // A follower persists each Append's entries as one op, so how many ops its journal made durable
        // depends on how the 100 writes batched (9 to 90 on a loaded machine); each journal took part.
        for (Node n : nodes) {
            assertThat(n.writer.acknowledged()).as("ops the journal made durable").isPositive();
        }
    }

    @Test
    void aNewLeaderTakesOverWhenTheLeadersDatanodeStops() throws Exception {
        Map<Integer, InetSocketAddress> addresses = start(3);
        List<GroupRunner> runners = join(addresses);
        assertThat(writeThrough(runners, write(4, 1, 0, 1, "before")).ok()).isTrue();
        int old = writer.leader();
        nodes.get(old).close();
        long stopped = System.nanoTime();
        Outcome o = null;
        int leader = -1;
        List<Integer> survivors = new ArrayList<>(List.of(0, 1, 2));
        survivors.remove(Integer.valueOf(old));
        while (System.nanoTime() - stopped < TimeUnit.SECONDS.toNanos(5) && (o == null || !o.ok())) {
            for (int i : survivors) {
                o = runners.get(i).write(write(4, 2, BLOCK, 1, "after")).get(10, TimeUnit.SECONDS);
                if (o.ok()) {
                    leader = i;
                    break;
                }
            }
            Thread.sleep(5);
        }
        assertThat(o).isNotNull();
        assertThat(o.ok()).as("a surviving member acknowledged the write: %s", o).isTrue();
        awaitIdentical(List.of(nodes.get(survivors.get(0)), nodes.get(survivors.get(1))));
        int follower = survivors.get(0) == leader ? survivors.get(1) : survivors.get(0);
        assertThat(new String(nodes.get(follower).bytes(), BLOCK, 5, StandardCharsets.US_ASCII)).isEqualTo("after");
        assertThat(new String(nodes.get(follower).bytes(), 0, 6, StandardCharsets.US_ASCII)).isEqualTo("before");
    }

    @Test
    void aMemberThatLostItsDataRejoinsFromAStreamedCheckpoint() throws Exception {
        Map<Integer, InetSocketAddress> addresses = start(3);
        List<GroupRunner> runners = join(addresses);
        int gone = (leader(runners) + 1) % 3;
        nodes.get(gone).host.remove(GROUP);
        for (int seq = 1; seq <= 3 * CONFIG.checkpointInterval(); seq++) {
            assertThat(writeThrough(runners, write(6, seq, (seq % 15) * BLOCK, seq, "s" + seq)).ok()).isTrue();
        }
        Node wiped = nodes.get(gone);
        wiped.regions.write(0, 0, Unpooled.wrappedBuffer(new byte[REGION]), 0, REGION);
        deleteTree(GroupJournal.directory(wiped.journals, GROUP));
        GroupRunner rejoined = wiped.join(new GroupMembers(GROUP, 1, gone, addresses), PersistentState.wiped());
        awaitIdentical(nodes);
        assertThat(wiped.generations.get(0, 5)).isEqualTo(nodes.get(writer.leader()).generations.get(0, 5))
                .isPositive();
        // The bytes are restored in the loop step that hands the checkpoint to the journal: wait for
        // that step to end, then for the journal writer to have written what was queued before.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (rejoined.loop().submit(() -> rejoined.replica().checkpointIndex()).get() == 0) {
            assertThat(System.nanoTime()).as("the checkpoint was installed").isLessThan(deadline);
            Thread.sleep(2);
        }
        ((GroupJournal) wiped.host.hosted(GROUP).journal()).segmentCount();
        wiped.host.remove(GROUP);
        PersistentState saved = GroupJournal.open(GROUP, GroupJournal.directory(wiped.journals, GROUP),
                PersistentState.wiped(), wiped.writer).recovered();
        assertThat(saved.checkpoint().meta().index()).as("the rejoined member keeps the leader's checkpoint")
                .isPositive();
    }

    @Test
    void everyAcknowledgedWriteSurvivesARestartOfAllThreeWithTheirMemoryLost() throws Exception {
        Map<Integer, InetSocketAddress> addresses = start(3);
        List<GroupRunner> runners = join(addresses);
        byte[] expected = new byte[REGION];
        for (int seq = 1; seq <= 2 * CONFIG.checkpointInterval() + 17; seq++) {
            int offset = (seq * 37 % 15) * BLOCK + seq % 100;
            String text = "v" + seq;
            assertThat(writeThrough(runners, write(8, seq, offset, 1, text)).ok()).isTrue();
            System.arraycopy(text.getBytes(StandardCharsets.US_ASCII), 0, expected, offset, text.length());
        }
        List<Path> journalRoots = new ArrayList<>();
        for (Node n : nodes) {
            journalRoots.add(n.journals);
            n.close();
        }
        nodes.clear();
        writer = null;
        for (int i = 0; i < 3; i++) {
            Node n = new Node(i, journalRoots.get(i), false, REGION, BLOCK, CONFIG, TOKENS, addresses.get(i).getPort());
            nodes.add(n);
        }
        List<GroupRunner> restarted = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            restarted.add(nodes.get(i).join(new GroupMembers(GROUP, 1, i, addresses), PersistentState.initialVoter()));
        }
        assertThat(writeThrough(restarted, write(8, 10_000, 15 * BLOCK, 1, "after")).ok()).isTrue();
        awaitIdentical(nodes);
        byte[] recovered = nodes.get(writer.leader()).bytes();
        assertThat(Arrays.copyOf(recovered, 15 * BLOCK)).as("every acknowledged write, rebuilt from the journals")
                .isEqualTo(Arrays.copyOf(expected, 15 * BLOCK));
    }

    private static CompletableFuture<Boolean> groupWrite(RpcClient client, int member, long group, int slot,
                                                         int generation, int offset, String text, long seq) {
        byte[] data = text.getBytes(StandardCharsets.US_ASCII);
        long stamp = TOKENS.stamp();
        long token = TOKENS.issue(member, 0, slot, generation, BlockTokens.WRITE, stamp);
        return client.call(Opcode.GROUP_WRITE, body -> {
            GroupProtocol.writeAccess(body, group, slot, generation, token, stamp, offset, data.length, 77, seq, seq);
            body.writeBytes(data);
        }, answer -> Boolean.TRUE);
    }

    private static CompletableFuture<String> groupRead(RpcClient client, int member, int slot, int generation,
                                                       int offset, int length) {
        return groupRead(client, member, slot, generation, offset, length, 0);
    }

    private static CompletableFuture<String> groupRead(RpcClient client, int member, int slot, int generation,
                                                       int offset, int length, long mode) {
        long stamp = TOKENS.stamp();
        long token = TOKENS.issue(member, 0, slot, generation, BlockTokens.READ, stamp);
        return client.call(Opcode.GROUP_READ,
                body -> GroupProtocol.writeAccess(body, GROUP, slot, generation, token, stamp, offset, length, 77, mode,
                        0),
                answer -> answer.toString(StandardCharsets.US_ASCII));
    }

    /** A call to one member, given that member's id (for its token) and a connection to it. */
    private interface MemberCall<T> {
        CompletableFuture<T> call(int member, RpcClient client);
    }

    /** The member that answered and its answer. */
    private record Answer<T>(int member, T value) {
    }

    /**
     * Calls as a client does: at the member believed to lead, following NOT_LEADER redirects and
     * retrying RETRY answers (a loaded machine may move leadership at any time).
     */
    private static <T> Answer<T> atLeader(Transport clients, Map<Integer, InetSocketAddress> addresses, int guess,
                                          MemberCall<T> call) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            RpcClient c = clients.connect(addresses.get(guess));
            try {
                return new Answer<>(guess, call.call(guess, c).get(10, TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                TarnException t = (TarnException) e.getCause();
                assertThat(t.code()).as("%s", t.getMessage()).isIn(ErrorCode.RETRY, ErrorCode.NOT_LEADER);
                if (t.detail() instanceof ErrorDetail.Redirect r) {
                    guess = r.partition();
                } else {
                    Thread.sleep(5);
                }
            } finally {
                c.close();
            }
            assertThat(System.nanoTime()).as("no member answered").isLessThan(deadline);
        }
    }

    private static int writeRetrying(Transport clients, Map<Integer, InetSocketAddress> addresses, int guess,
                                     int slot, int generation, int offset, String text, long seq) throws Exception {
        return atLeader(clients, addresses, guess,
                (member, c) -> groupWrite(c, member, GROUP, slot, generation, offset, text, seq)).member();
    }

    private static TarnException failure(CompletableFuture<?> call) {
        Throwable t = catchThrowable(() -> call.get(10, TimeUnit.SECONDS));
        assertThat(t).as("the call failed").isInstanceOf(ExecutionException.class);
        assertThat(t.getCause()).isInstanceOf(TarnException.class);
        return (TarnException) t.getCause();
    }

    @Test
    void clientsWriteThroughTheLeaderFollowRedirectsAndReadBack() throws Exception {
        Map<Integer, InetSocketAddress> addresses = start(3);
        List<GroupRunner> runners = join(addresses);
        int leader = leader(runners);
        int follower = (leader + 1) % 3;
        try (Transport clients = Transports.create(TarnConfig.defaults())) {
            RpcClient atFollower = clients.connect(addresses.get(follower));
            TarnException redirected;
            do {
                redirected = failure(groupWrite(atFollower, follower, GROUP, 2, 5, 0, "hello", 1));
            } while (redirected.code() == ErrorCode.RETRY);
            assertThat(redirected.code()).isEqualTo(ErrorCode.NOT_LEADER);
            ErrorDetail.Redirect to = (ErrorDetail.Redirect) redirected.detail();
            assertThat(to.address()).as("the redirect names the leading member's datanode")
                    .isEqualTo("127.0.0.1:" + addresses.get(to.partition()).getPort());
            leader = writeRetrying(clients, addresses, to.partition(), 2, 5, 0, "hello", 1);
            leader = writeRetrying(clients, addresses, leader, 2, 5, 5, " world", 2);
            assertThat(atLeader(clients, addresses, leader, (member, c) -> groupRead(c, member, 2, 5, 0, 11)).value())
                    .isEqualTo("hello world");
            awaitIdentical(nodes);
            assertThat(nodes.get((leader + 1) % 3).generations.get(0, 2)).isEqualTo(5);
        }
    }

    @Test
    void followersServeReadsAsFreshAsTheLeadersAndRefuseWhenTheyCannotBe() throws Exception {
        Map<Integer, InetSocketAddress> addresses = start(3);
        List<GroupRunner> runners = join(addresses);
        int leader = leader(runners);
        try (Transport clients = Transports.create(TarnConfig.defaults())) {
            for (int seq = 1; seq <= 20; seq++) {
                String text = "v" + seq;
                leader = writeRetrying(clients, addresses, leader, 3, seq, 0, text, seq);
                for (int member = 0; member < 3; member++) {
                    RpcClient c = clients.connect(addresses.get(member));
                    try {
                        // Right after the acknowledgment: a follower waits until it applied the write.
                        assertThat(groupRead(c, member, 3, seq, 0, text.length(), GroupProtocol.READ_AT_ANY_MEMBER)
                                .get(10, TimeUnit.SECONDS)).as("member %d after write %d", member, seq).isEqualTo(text);
                    } finally {
                        c.close();
                    }
                }
            }
            // Without its leader a follower cannot learn a read index: it refuses, naming the leader, in time.
            int follower = (leader + 1) % 3;
            nodes.get(leader).close();
            RpcClient c = clients.connect(addresses.get(follower));
            long start = System.nanoTime();
            TarnException refused = failure(groupRead(c, follower, 3, 20, 0, 3, GroupProtocol.READ_AT_ANY_MEMBER));
            assertThat(refused.code()).as(refused.getMessage()).isIn(ErrorCode.NOT_LEADER, ErrorCode.RETRY,
                    ErrorCode.GROUP_UNAVAILABLE);
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(8));
            c.close();
        }
    }

    /**
     * The replication links are reliable because the messenger reports what it could not deliver:
     * a message for a group the other datanode does not host, and one to a datanode that is gone.
     * A message that did arrive is not reported.
     */
    @Test
    void messagesThatDoNotReachTheOtherReplicaAreReportedToTheSender() throws Exception {
        Map<Integer, InetSocketAddress> addresses = start(2);
        Map<Integer, InetSocketAddress> withGone = new HashMap<>(addresses);
        withGone.put(2, closedPort());
        nodes.get(1).join(new GroupMembers(GROUP, 1, 1, addresses), PersistentState.initialVoter());
        PeerMessenger messenger = nodes.get(0).host.messenger();
        List<Message> undelivered = new CopyOnWriteArrayList<>();
        Executor loop = Runnable::run;
        Message hosted = new Message.Append(0, 1, 1, List.of(), 0,
                List.of(), 1, false);
        Message unknownGroup = new Message.Append(0, 1, 1, List.of(), 0,
                List.of(), 2, false);
        Message gone = new Message.Append(0, 2, 1, List.of(), 0,
                List.of(), 3, false);
        messenger.send(new GroupMembers(GROUP, 1, 0, withGone), hosted, loop, undelivered::add);
        messenger.send(new GroupMembers(GROUP + 1, 1, 0, withGone), unknownGroup, loop, undelivered::add);
        messenger.send(new GroupMembers(GROUP, 1, 0, withGone), gone, loop, undelivered::add);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (undelivered.size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        Thread.sleep(200); // time for a wrong report of the delivered message to arrive as well
        assertThat(undelivered).containsExactlyInAnyOrder(unknownGroup, gone);
    }

    /** An address on this host where nothing listens. */
    private static InetSocketAddress closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return new InetSocketAddress("127.0.0.1", s.getLocalPort());
        }
    }

    @Test
    void badClientRequestsGetClearErrorsAndTheGroupGoesOn() throws Exception {
        Map<Integer, InetSocketAddress> addresses = start(3);
        List<GroupRunner> runners = join(addresses);
        int leader = leader(runners);
        try (Transport clients = Transports.create(TarnConfig.defaults())) {
            leader = writeRetrying(clients, addresses, leader, 1, 4, 0, "new", 1);
            RpcClient c = clients.connect(addresses.get(leader));
            assertThat(failure(groupWrite(c, leader, GROUP, 1, 3, 0, "old", 2)))
                    .hasMessageContaining("holds generation 4").extracting(TarnException::code)
                    .isEqualTo(ErrorCode.STALE_GENERATION);
            assertThat(failure(groupWrite(c, (leader + 1) % 3, GROUP, 1, 4, 0, "forged", 3)).code())
                    .as("a token for another member").isEqualTo(ErrorCode.INVALID_TOKEN);
            assertThat(failure(groupWrite(c, leader, GROUP + 1, 1, 4, 0, "x", 4)))
                    .hasMessageContaining("no replica of group " + (GROUP + 1)).extracting(TarnException::code)
                    .isEqualTo(ErrorCode.UNKNOWN_GROUP);
            assertThat(failure(groupWrite(c, leader, GROUP, 1, 4, BLOCK - 2, "cross", 5)).code())
                    .isEqualTo(ErrorCode.OUT_OF_RANGE);
            assertThat(failure(groupWrite(c, leader, GROUP, 16, 4, 0, "x", 6)).code())
                    .isEqualTo(ErrorCode.OUT_OF_RANGE);
            assertThat(failure(groupRead(c, leader, 1, 9, 0, 3)).code()).isEqualTo(ErrorCode.BLOCK_NOT_WRITTEN);
            CompletableFuture<Boolean> truncated = c.call(Opcode.GROUP_WRITE, body -> body.writeLong(GROUP),
                    answer -> Boolean.TRUE);
            assertThat(failure(truncated).code()).isEqualTo(ErrorCode.MALFORMED_REQUEST);
            leader = writeRetrying(clients, addresses, leader, 1, 4, 3, "!", 7);
            Answer<String> read = atLeader(clients, addresses, leader,
                    (member, client) -> groupRead(client, member, 1, 4, 0, 4));
            assertThat(read.value()).isEqualTo("new!");
        }
    }

    static void deleteTree(Path root) throws Exception {
        try (var paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
