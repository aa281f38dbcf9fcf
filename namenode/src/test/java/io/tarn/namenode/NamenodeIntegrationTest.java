package io.tarn.namenode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CloseRequest;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.DeleteRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.common.protocol.NamenodeProtocol.MkdirsRequest;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenewLeaseRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** A namenode on an ephemeral loopback port, driven by real RPC clients. */
class NamenodeIntegrationTest {
    private static final long CLIENT = 0x5EED;
    private static final int BLOCK = 64 * 1024;

    private LoopbackNamenode loopback;
    private Transport transport;
    private Namenode namenode;
    private RpcClient rpc;

    @BeforeEach
    void start() throws Exception {
        loopback = LoopbackNamenode.start(BLOCK);
        namenode = loopback.namenode;
        transport = loopback.transport;
        rpc = loopback.rpc;
        assertThat(namenode.address().getPort()).isPositive();
    }

    @AfterEach
    void stop() {
        if (loopback != null) {
            loopback.close();
        }
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return LoopbackNamenode.get(f);
    }

    private FileStatus create(RpcClient c, String path, int flags) throws Exception {
        return get(c.call(Opcode.CREATE, b -> new CreateRequest(path, FileType.FILE, flags, 0, CLIENT, "127.0.0.1",
                Ownership.UNSPECIFIED).encode(b), NamenodeProtocol::readStatus));
    }

    private BlockRef getBlock(long fileId, int index, boolean write) throws Exception {
        return get(rpc.call(Opcode.GET_BLOCK, b -> new GetBlockRequest(fileId, index, write, CLIENT, "127.0.0.1", -1)
                .encode(b), NamenodeProtocol::readBlockRef));
    }

    private ListResponse list(String path) throws Exception {
        return get(rpc.call(Opcode.LIST, b -> new ListRequest(path, "", 100).encode(b), ListResponse::decode));
    }

    private ErrorCode errorOf(CompletableFuture<?> f) {
        Throwable t = catchThrowable(() -> get(f));
        assertThat(t).isInstanceOf(TarnError.class);
        return ((TarnError) t).code();
    }

    private RegisterResponse registerDatanode() throws Exception {
        return get(rpc.call(Opcode.REGISTER_DATANODE, b -> new RegisterRequest(1, 2, "127.0.0.1", 7070, 0,
                4L * BLOCK, 2, 0, 1, false).encode(b), RegisterResponse::decode));
    }

    @Test
    void fileLifecycleOverTheWire() throws Exception {
        RegisterResponse reg = registerDatanode();
        FileStatus f = create(rpc, "/jobs/out/part-0", NamenodeProtocol.CREATE_PARENTS);
        assertThat(f.underConstruction()).isTrue();

        BlockRef w0 = getBlock(f.fileId(), 0, true);
        BlockRef w1 = getBlock(f.fileId(), 1, true);
        assertThat(w0.datanodeId()).isEqualTo(reg.datanodeId());
        assertThat(w0.address()).isEqualTo("127.0.0.1:7070");
        // The keys the registration handed over check the namenode's tokens, as a datanode does.
        BlockTokens tokens = BlockTokens.holding(reg.keys().fingerprint(), reg.keys().keys());
        assertThat(tokens.check(w1.token(), w1.tokenStamp(), w1.datanodeId(), w1.regionId(), w1.blockIndex(),
                w1.generation(), BlockTokens.WRITE)).isEqualTo(BlockTokens.Verdict.VALID);

        FileStatus closed = get(rpc.call(Opcode.CLOSE, b -> new CloseRequest(f.fileId(), CLIENT, BLOCK + 10L)
                .encode(b), NamenodeProtocol::readStatus));
        assertThat(closed.size()).isEqualTo(BLOCK + 10L);
        assertThat(closed.underConstruction()).isFalse();
        assertThat(getBlock(f.fileId(), 1, false).writable()).isFalse();
        assertThat(errorOf(rpc.call(Opcode.GET_BLOCK, b -> new GetBlockRequest(f.fileId(), 2, false, CLIENT, "", -1)
                .encode(b), NamenodeProtocol::readBlockRef))).isEqualTo(ErrorCode.BLOCK_NOT_FOUND);

        FileStatus got = get(rpc.call(Opcode.GET_FILE, b -> new PathRequest("/jobs/out/part-0").encode(b),
                NamenodeProtocol::readStatus));
        assertThat(got.size()).isEqualTo(BLOCK + 10L);
        assertThat(list("/jobs/out").entries()).extracting(FileStatus::name).containsExactly("part-0");

        get(rpc.call(Opcode.RENAME, b -> new RenameRequest("/jobs/out", "/done").encode(b), body -> null));
        assertThat(list("/done").entries()).extracting(FileStatus::fileId).containsExactly(f.fileId());
        assertThat(errorOf(rpc.call(Opcode.DELETE, b -> new DeleteRequest("/done", false).encode(b), body -> null)))
                .isEqualTo(ErrorCode.DIRECTORY_NOT_EMPTY);
        get(rpc.call(Opcode.DELETE, b -> new DeleteRequest("/done", true).encode(b), body -> null));
        assertThat(errorOf(rpc.call(Opcode.GET_FILE, b -> new PathRequest("/done/part-0").encode(b),
                NamenodeProtocol::readStatus))).isEqualTo(ErrorCode.FILE_NOT_FOUND);
        assertThat(namenode.fileCount()).isZero();
    }

    @Test
    void mkdirsRenewPingAndErrors() throws Exception {
        FileStatus d = get(rpc.call(Opcode.MKDIRS, b -> new MkdirsRequest("/a/b", new Ownership("ann", "", 0750))
                .encode(b), NamenodeProtocol::readStatus));
        assertThat(d.isDirectory()).isTrue();
        assertThat(d.ownership()).isEqualTo(new Ownership("ann", Namespace.ROOT_GROUP, 0750));
        get(rpc.call(Opcode.RENEW_LEASE, b -> new RenewLeaseRequest(CLIENT).encode(b), body -> null));
        get(rpc.call(Opcode.PING, b -> { }, body -> null));
        assertThat(errorOf(rpc.call(77, b -> { }, body -> null))).isEqualTo(ErrorCode.UNKNOWN_OPCODE);
        create(rpc, "/a/b/f", 0);
        assertThat(errorOf(rpc.call(Opcode.CREATE, b -> new CreateRequest("/a/b/f", FileType.FILE, 0, 0, CLIENT, "",
                Ownership.UNSPECIFIED).encode(b), NamenodeProtocol::readStatus))).isEqualTo(ErrorCode.FILE_EXISTS);
        Throwable t = catchThrowable(() -> getBlock(d.fileId() + 12345, 0, true));
        assertThat(t).hasMessageContaining("no file with id");
    }

    @Test
    void fakeDatanodeRegistersHeartbeatsAndShowsInClusterStatus() throws Exception {
        RegisterResponse reg = registerDatanode();
        assertThat(reg.blockSize()).isEqualTo(BLOCK);
        assertThat(reg.resetGenerations()).isTrue();
        get(rpc.call(Opcode.HEARTBEAT, b -> new HeartbeatRequest(reg.datanodeId(), 1, 2).encode(b), body -> null));
        assertThat(errorOf(rpc.call(Opcode.HEARTBEAT, b -> new HeartbeatRequest(reg.datanodeId() + 1, 1, 2).encode(b),
                body -> null))).isEqualTo(ErrorCode.UNKNOWN_DATANODE);
        assertThat(errorOf(rpc.call(Opcode.REGISTER_DATANODE, b -> new RegisterRequest(3, 4, "h", 1, 0,
                BLOCK + 1L, 1, 0, 1, false).encode(b), RegisterResponse::decode)))
                .isEqualTo(ErrorCode.INVALID_ARGUMENT);

        ClusterStatus s = get(rpc.call(Opcode.CLUSTER_STATUS, b -> { }, ClusterStatus::decode));
        assertThat(s.blockSize()).isEqualTo(BLOCK);
        assertThat(s.operations()).isGreaterThanOrEqualTo(4);
        assertThat(s.directories()).isEqualTo(1);
        assertThat(s.datanodes()).singleElement().satisfies(dn -> {
            assertThat(dn.id()).isEqualTo(reg.datanodeId());
            assertThat(dn.capacityBlocks()).isEqualTo(8);
            assertThat(dn.freeBlocks()).isEqualTo(8);
            assertThat(dn.alive()).isTrue();
        });
        assertThat(namenode.datanodeCount()).isEqualTo(1);
    }

    @Test
    void malformedBodyDoesNotStopTheNamenodeServingOthers() throws Exception {
        byte[] garbage = new byte[37];
        new Random(7).nextBytes(garbage);
        RpcClient bad = transport.connect(namenode.address());
        Throwable t = catchThrowable(() -> get(bad.call(Opcode.CREATE, b -> b.writeBytes(garbage),
                NamenodeProtocol::readStatus)));
        assertThat(t).isInstanceOf(TarnError.class);
        assertThat(((TarnError) t).code()).isIn(ErrorCode.MALFORMED_REQUEST, ErrorCode.CONNECTION_LOST);
        assertThat(namenode.fileCount()).isZero();

        RpcClient second = transport.connect(namenode.address());
        assertThat(create(second, "/still/serving", NamenodeProtocol.CREATE_PARENTS).isFile()).isTrue();
        assertThat(list("/still").entries()).hasSize(1);
    }
}
