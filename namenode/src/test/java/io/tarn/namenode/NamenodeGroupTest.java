package io.tarn.namenode;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.MkdirsRequest;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.LeaderRpc;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Three namenodes in one JVM form the replicated group of a one-partition namespace, each with its
 * own transport, port and journal directory, reached by a real RPC client: one leads and serves,
 * the others answer NOT_LEADER naming it; when the leader stops, another takes over with every
 * acknowledged change; the stopped one comes back as a follower and catches up; a leader that
 * hands its leadership over rebuilds its namespace from the group's journal and follows.
 */
class NamenodeGroupTest {
    private static final long CLIENT = 0x5EED;

    @TempDir
    Path dir;

    private final List<Namenode> members = new ArrayList<>(List.of());
    private final List<TarnConfig> configs = new ArrayList<>();
    private Transport clients;

    @AfterEach
    void stop() {
        if (clients != null) {
            clients.close();
        }
        for (Namenode n : members) {
            if (n != null) {
                n.close();
            }
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private void startGroup() throws Exception {
        int[] ports = {freePort(), freePort(), freePort()};
        String address = "127.0.0.1:" + ports[0] + "|127.0.0.1:" + ports[1] + "|127.0.0.1:" + ports[2];
        for (int i = 0; i < 3; i++) {
            configs.add(TarnConfig.builder()
                    .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                    .set(TarnKeys.NAMENODE_ADDRESS, address)
                    .set(TarnKeys.NAMENODE_MEMBER, i)
                    .set(TarnKeys.NAMENODE_JOURNAL_DIR, dir.resolve("nn" + i).toString())
                    .set(TarnKeys.RPC_IO_THREADS, 1)
                    .set(TarnKeys.RPC_TIMEOUT, 10_000L)
                    .build());
            members.add(Namenode.start(configs.get(i)));
        }
        clients = Transports.create(configs.get(0));
    }

    private int awaitLeader(int notThis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            for (int i = 0; i < members.size(); i++) {
                Namenode n = members.get(i);
                if (i != notThis && n != null && n.serving() && n.group().runner().leads()) {
                    return i;
                }
            }
            assertThat(System.nanoTime()).as("a member leads and serves").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    private RpcClient rpc(int member) {
        return clients.connect(members.get(member) != null ? members.get(member).address()
                : InetSocketAddress.createUnresolved("127.0.0.1", 1));
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return LoopbackNamenode.get(f);
    }

    private static FileStatus create(RpcClient c, String path) throws Exception {
        return get(c.call(Opcode.CREATE, b -> new CreateRequest(path, FileType.FILE,
                NamenodeProtocol.CREATE_PARENTS, 0, CLIENT, "127.0.0.1", Ownership.UNSPECIFIED).encode(b),
                NamenodeProtocol::readStatus));
    }

    private static FileStatus getFile(RpcClient c, String path) throws Exception {
        return get(c.call(Opcode.GET_FILE, b -> new PathRequest(path).encode(b), NamenodeProtocol::readStatus));
    }

    private static void mkdirs(RpcClient c, String path) throws Exception {
        get(c.call(Opcode.MKDIRS, b -> new MkdirsRequest(path, Ownership.UNSPECIFIED).encode(b),
                NamenodeProtocol::readStatus));
    }

    @Test
    void theLeaderServesTheOthersNameIt() throws Exception {
        startGroup();
        int leader = awaitLeader(-1);
        RpcClient at = rpc(leader);
        for (int i = 0; i < 20; i++) {
            create(at, "/jobs/a/part-" + i);
        }
        mkdirs(at, "/jobs/b");
        assertThat(getFile(at, "/jobs/a/part-7").type()).isEqualTo(FileType.FILE);

        int follower = (leader + 1) % 3;
        Throwable refused = catchThrowable(() -> getFile(rpc(follower), "/jobs/a/part-7"));
        assertThat(refused).isInstanceOf(TarnException.class);
        TarnException e = (TarnException) refused;
        assertThat(e.code()).isEqualTo(ErrorCode.NOT_LEADER);
        assertThat(e.detail()).isEqualTo(new ErrorDetail.Redirect(leader,
                "127.0.0.1:" + members.get(leader).address().getPort()));
        assertThat(e.getMessage()).contains("member " + leader);

        // The followers are hot standbys: they applied what the group committed.
        for (int i = 0; i < 3; i++) {
            Namenode n = members.get(i);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (n.service().namespace().find("/jobs/b") == null) {
                assertThat(System.nanoTime()).as("member %d applied the records", i).isLessThan(deadline);
                Thread.sleep(5);
            }
            assertThat(n.fileCount()).as("member %d's files", i).isEqualTo(20);
            assertThat(n.service().tokens().key0()).as("member %d issues tokens under the group's key", i)
                    .isEqualTo(members.get(leader).service().tokens().key0());
        }
    }

    /** CREATE sent as ONCE with {@code clientId} and {@code callId}. */
    private static FileStatus createOnce(RpcClient c, long clientId, long callId, String path) throws Exception {
        return get(c.call(Opcode.ONCE, b -> {
            b.writeLong(clientId).writeLong(callId).writeShort(Opcode.CREATE);
            new CreateRequest(path, FileType.FILE, NamenodeProtocol.CREATE_PARENTS, 0, CLIENT, "127.0.0.1",
                    Ownership.UNSPECIFIED).encode(b);
        }, NamenodeProtocol::readStatus));
    }

    /**
     * A mutation sent again with the same client id and call id is answered as the first time, not
     * applied again, by the leader and, after it stopped, by the next one: the answer was committed
     * with the change.
     */
    @Test
    void aCallSentAgainIsAnsweredFromTheRetryCacheByAnyLeader() throws Exception {
        startGroup();
        int first = awaitLeader(-1);
        RpcClient at = rpc(first);
        FileStatus created = createOnce(at, 7, 1, "/once/f");
        FileStatus again = createOnce(at, 7, 1, "/once/f");
        assertThat(again).as("the first answer, not FILE_EXISTS").isEqualTo(created);
        Throwable another = catchThrowable(() -> createOnce(at, 7, 2, "/once/f"));
        assertThat(((TarnException) another).code()).as("another call is applied").isEqualTo(ErrorCode.FILE_EXISTS);

        members.get(first).close();
        members.set(first, null);
        int second = awaitLeader(first);
        FileStatus fromNext = createOnce(rpc(second), 7, 1, "/once/f");
        assertThat(fromNext.fileId()).as("answered from the replicated retry cache").isEqualTo(created.fileId());
        assertThat(members.get(second).fileCount()).isEqualTo(1);
        Throwable refused = catchThrowable(() -> get(rpc(second).call(Opcode.ONCE, b ->
                b.writeLong(7).writeLong(3).writeShort(Opcode.GET_FILE), NamenodeProtocol::readStatus)));
        assertThat(((TarnException) refused).code()).as("a lookup is not a call to apply once")
                .isEqualTo(ErrorCode.INVALID_ARGUMENT);
    }

    @Test
    void anotherMemberTakesOverWithEveryAcknowledgedChange() throws Exception {
        startGroup();
        int first = awaitLeader(-1);
        RpcClient at = rpc(first);
        for (int i = 0; i < 50; i++) {
            create(at, "/before/f-" + i);
        }
        long key = members.get(first).service().tokens().key1();
        long stopped = System.nanoTime();
        members.get(first).close();
        members.set(first, null);
        int second = awaitLeader(first);
        RpcClient next = rpc(second);
        mkdirs(next, "/after");
        long failoverMs = (System.nanoTime() - stopped) / 1_000_000;
        for (int i = 0; i < 50; i++) {
            assertThat(getFile(next, "/before/f-" + i).type()).isEqualTo(FileType.FILE);
        }
        assertThat(members.get(second).service().tokens().key1()).as("the new leader's key is the group's")
                .isEqualTo(key);
        assertThat(failoverMs).as("stop of the leader to the first mutation served, ms").isPositive();

        // The stopped member comes back on its journal as a follower and catches up.
        members.set(first, Namenode.start(configs.get(first)));
        Namenode back = members.get(first);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (back.service().namespace().find("/after") == null) {
            assertThat(System.nanoTime()).as("the returning member caught up").isLessThan(deadline);
            Thread.sleep(10);
        }
        assertThat(back.serving()).isFalse();
        assertThat(back.fileCount()).isEqualTo(50);
    }

    @Test
    void aLeaderThatHandsOverRebuildsAndFollows() throws Exception {
        startGroup();
        int first = awaitLeader(-1);
        RpcClient at = rpc(first);
        for (int i = 0; i < 10; i++) {
            create(at, "/x/f-" + i);
        }
        int target = (first + 1) % 3;
        members.get(first).group().runner().transferLeadership(target);
        int second = awaitLeader(first);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (members.get(first).group().rebuilds() == 0) {
            assertThat(System.nanoTime()).as("the former leader rebuilt its namespace").isLessThan(deadline);
            Thread.sleep(5);
        }
        RpcClient next = rpc(second);
        create(next, "/x/after");
        while (members.get(first).service().namespace().find("/x/after") == null) {
            assertThat(System.nanoTime()).as("the former leader follows").isLessThan(deadline);
            Thread.sleep(5);
        }
        assertThat(members.get(first).fileCount()).isEqualTo(11);
        Throwable refused = catchThrowable(() -> create(rpc(first), "/x/refused"));
        assertThat(((TarnException) refused).code()).isEqualTo(ErrorCode.NOT_LEADER);
    }

    /**
     * Calls in flight while the leadership moves (a leader whose log loses its leadership fails the
     * answers still waiting): each is answered RETRY rather than as a failure, so a client that
     * follows the group sends it again, as ONCE, to the next leader, and every call succeeds once.
     */
    @Test
    void callsInFlightWhileTheLeadershipMovesSucceedOnce() throws Exception {
        startGroup();
        int first = awaitLeader(-1);
        try (LeaderRpc group = new LeaderRpc(clients, configs.get(0).namenodeGroups().get(0), 20_000)) {
            mkdirs(group, "/storm");
            List<CompletableFuture<FileStatus>> calls = new ArrayList<>();
            int n = 600;
            for (int i = 0; i < n; i++) {
                String path = "/storm/f-" + i;
                calls.add(group.call(Opcode.CREATE, b -> new CreateRequest(path, FileType.FILE, 0, 0, CLIENT,
                        "127.0.0.1", Ownership.UNSPECIFIED).encode(b), NamenodeProtocol::readStatus));
                if (i == n / 4) {
                    members.get(first).group().runner().transferLeadership((first + 1) % 3);
                }
                if (calls.size() - completed(calls) > 64) {
                    calls.get(calls.size() - 64).exceptionally(e -> null).get(30, TimeUnit.SECONDS);
                }
            }
            for (int i = 0; i < n; i++) {
                assertThat(get(calls.get(i)).name()).as("call %d", i).isEqualTo("f-" + i);
            }
            assertThat(members.get(first).group().rebuilds()).as("the first leader handed over").isPositive();
            assertThat(members.get(awaitLeader(-1)).fileCount()).isEqualTo(n);
        }
    }

    private static int completed(List<CompletableFuture<FileStatus>> calls) {
        int done = 0;
        for (CompletableFuture<FileStatus> c : calls) {
            done += c.isDone() ? 1 : 0;
        }
        return done;
    }
}
