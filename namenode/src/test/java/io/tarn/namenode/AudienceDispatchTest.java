package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.Audience;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.FsckRequest;
import io.tarn.common.protocol.AdminProtocol.FsckResponse;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatResponse;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.PeerProtocol.AdoptionRequest;
import io.tarn.common.protocol.NamenodeProtocol.AllocateBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.AppendRequest;
import io.tarn.common.protocol.NamenodeProtocol.BlockRefs;
import io.tarn.common.protocol.NamenodeProtocol.CloseRequest;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.DeleteRequest;
import io.tarn.namenode.PeerProtocol.DirMkdirRequest;
import io.tarn.namenode.PeerProtocol.DirectorySnapshot;
import io.tarn.namenode.PeerProtocol.FreeBlocksRequest;
import io.tarn.namenode.PeerProtocol.UnreachableRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.common.protocol.NamenodeProtocol.MkdirsRequest;
import io.tarn.common.protocol.NamenodeProtocol.PartitionMap;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenewLeaseRequest;
import io.tarn.common.protocol.NamenodeProtocol.ReplaceBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetReplicationRequest;
import io.tarn.common.protocol.NamenodeProtocol.SyncRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcClient.BodyWriter;
import io.tarn.rpc.RpcClient.ResponseDecoder;
import io.tarn.rpc.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static io.tarn.common.protocol.Opcode.ALLOCATE_BLOCKS;
import static io.tarn.common.protocol.Opcode.DATANODE_UNREACHABLE;
import static io.tarn.common.protocol.Opcode.DIR_SET_REPLICATION;
import static io.tarn.common.protocol.Opcode.GET_REPLICATION;
import static io.tarn.common.protocol.Opcode.REPLACE_BLOCK;
import static io.tarn.common.protocol.Opcode.SET_REPLICATION;
import static io.tarn.common.protocol.Opcode.APPEND;
import static io.tarn.common.protocol.Opcode.CLOSE;
import static io.tarn.common.protocol.Opcode.CLUSTER_STATUS;
import static io.tarn.common.protocol.Opcode.FSCK;
import static io.tarn.common.protocol.Opcode.CREATE;
import static io.tarn.common.protocol.Opcode.DELETE;
import static io.tarn.common.protocol.Opcode.DEREGISTER_DATANODE;
import static io.tarn.common.protocol.Opcode.DIR_DELETE;
import static io.tarn.common.protocol.Opcode.DIR_MKDIR;
import static io.tarn.common.protocol.Opcode.DIR_RENAME;
import static io.tarn.common.protocol.Opcode.DIR_SEAL;
import static io.tarn.common.protocol.Opcode.DIR_SET_ATTR;
import static io.tarn.common.protocol.Opcode.DIR_SNAPSHOT;
import static io.tarn.common.protocol.Opcode.DIR_UNSEAL;
import static io.tarn.common.protocol.Opcode.FILE_ADOPT;
import static io.tarn.common.protocol.Opcode.FILE_ADOPTION;
import static io.tarn.common.protocol.Opcode.FILE_ADOPTION_SETTLED;
import static io.tarn.common.protocol.Opcode.FREE_BLOCKS;
import static io.tarn.common.protocol.Opcode.GET_BLOCK;
import static io.tarn.common.protocol.Opcode.GET_BLOCKS;
import static io.tarn.common.protocol.Opcode.GET_FILE;
import static io.tarn.common.protocol.Opcode.GET_PARTITIONS;
import static io.tarn.common.protocol.Opcode.HEARTBEAT;
import static io.tarn.common.protocol.Opcode.LIST;
import static io.tarn.common.protocol.Opcode.MKDIRS;
import static io.tarn.common.protocol.Opcode.PING;
import static io.tarn.common.protocol.Opcode.REGISTER_DATANODE;
import static io.tarn.common.protocol.Opcode.RENAME;
import static io.tarn.common.protocol.Opcode.RENEW_LEASE;
import static io.tarn.common.protocol.Opcode.SET_ATTR;
import static io.tarn.common.protocol.Opcode.SYNC;
import static io.tarn.common.protocol.Opcode.WHERE_MOVED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The namenode's dispatch by audience: the table says who sends each opcode, and a namenode on a
 * loopback port, driven by a real RPC client, answers every opcode of every audience from that
 * audience's handler (each handler answers an opcode it does not serve UNKNOWN_OPCODE, so a
 * misrouted opcode fails here), and any other opcode UNKNOWN_OPCODE, naming it, as before.
 */
class AudienceDispatchTest {
    private static final long CLIENT = 0x5EED;
    /** The ticket of the move FILE_ADOPT takes part in. */
    private static final long TICKET = 0x7E;
    private static final int BLOCK = 64 * 1024;
    private static final Ownership OWN = new Ownership("ann", "staff", 0750);

    /** Who sends what, from the senders in the code (NamenodeClient, the coordinator, FileMover, NamenodeLink). */
    private static final Map<Audience, Set<Integer>> EXPECTED = new EnumMap<>(Map.of(
            Audience.CLIENT, Set.of(GET_FILE, CREATE, MKDIRS, GET_BLOCK, CLOSE, LIST, DELETE, RENAME, RENEW_LEASE,
                    SYNC, SET_ATTR, APPEND, GET_BLOCKS, GET_PARTITIONS, WHERE_MOVED, ALLOCATE_BLOCKS,
                    SET_REPLICATION, GET_REPLICATION, REPLACE_BLOCK, Opcode.ONCE),
            Audience.PEER, Set.of(DIR_MKDIR, DIR_DELETE, DIR_RENAME, DIR_SET_ATTR, DIR_SEAL, DIR_UNSEAL, FILE_ADOPT,
                    FILE_ADOPTION, FREE_BLOCKS, DIR_SNAPSHOT, DIR_SET_REPLICATION, DATANODE_UNREACHABLE,
                    FILE_ADOPTION_SETTLED),
            Audience.DATANODE, Set.of(REGISTER_DATANODE, HEARTBEAT, DEREGISTER_DATANODE),
            Audience.ADMIN, Set.of(CLUSTER_STATUS, FSCK, PING)));

    /** Opcodes no audience has: gaps between namenode opcodes, datanode opcodes, and beyond. */
    private static final int[] UNSERVED = {0, 26, 29, 43, 77, 99, Opcode.WRITE_BLOCK, Opcode.READ_BLOCK,
            Opcode.SC_READ, Opcode.SC_WRITE, Opcode.GROUP_WRITE, Opcode.GROUP_READ, 199, 203, 0xFFFF};

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
    }

    @AfterEach
    void stop() {
        if (loopback != null) {
            loopback.close();
        }
    }

    private <T> T call(int opcode, BodyWriter body, ResponseDecoder<T> decoder) throws Exception {
        return LoopbackNamenode.get(rpc.call(opcode, body, decoder));
    }

    private void callEmpty(int opcode, BodyWriter body) throws Exception {
        int bytes = call(opcode, body, b -> b.readableBytes());
        assertThat(bytes).as("empty answer to %s", Opcode.name(opcode)).isZero();
    }

    private FileStatus status(int opcode, BodyWriter body) throws Exception {
        return call(opcode, body, NamenodeProtocol::decodeStatus);
    }

    private TarnError error(int opcode, BodyWriter body) {
        Throwable t = catchThrowable(() -> call(opcode, body, b -> null));
        assertThat(t).as("an error answer to %s", Opcode.name(opcode)).isInstanceOf(TarnError.class);
        return (TarnError) t;
    }

    private FileStatus getFile(String path) throws Exception {
        return status(GET_FILE, b -> new PathRequest(path).encode(b));
    }

    @Test
    void theTableGivesEveryNamenodeOpcodeTheAudienceThatSendsIt() {
        Map<Integer, Audience> byOpcode = new HashMap<>();
        EXPECTED.forEach((a, ops) -> ops.forEach(op -> byOpcode.put(op, a)));
        for (int op = 0; op <= 0xFFFF; op++) { // every uint16 the frame can carry
            Audience a = Opcode.audience(op);
            // Datanodes serve DATA (clients) and REPLICA (other datanodes); namenodes serve neither. The
            // transport answers HANDSHAKE itself (AuthenticationTest in the rpc module).
            boolean notHere = a == Audience.DATA || a == Audience.REPLICA || a == Audience.HANDSHAKE;
            assertThat(notHere ? null : a).as("%s", Opcode.name(op)).isEqualTo(byOpcode.get(op));
        }
        for (int op : new int[] {-1, 0x10000, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertThat(Opcode.audience(op)).isNull();
        }
    }

    @Test
    void everyOpcodeOfEveryAudienceIsAnsweredByItsHandler() throws Exception {
        Map<Integer, Step> steps = new LinkedHashMap<>();
        RegisterResponse[] reg = new RegisterResponse[1];
        long[] file = new long[1];
        long dirId = FileIds.directory(1_000_000);

        // Administration
        steps.put(PING, () -> callEmpty(PING, b -> { }));
        steps.put(CLUSTER_STATUS, () -> {
            ClusterStatus s = call(CLUSTER_STATUS, b -> { }, ClusterStatus::decode);
            assertThat(s.blockSize()).isEqualTo(BLOCK);
            assertThat(s.directories()).isEqualTo(1);
            assertThat(s.operations()).as("PING and this one").isEqualTo(2);
            assertThat(s.damagedFiles()).isZero();
        });
        steps.put(FSCK, () -> {
            FsckResponse r = call(FSCK, b -> new FsckRequest(10).encode(b), FsckResponse::decode);
            assertThat(r.healthy()).isTrue();
            assertThat(r.files()).isEmpty();
        });
        // Datanodes (deregistration at the end)
        steps.put(REGISTER_DATANODE, () -> {
            reg[0] = call(REGISTER_DATANODE, b -> new RegisterRequest(1, 2, "127.0.0.1", 7070, 0, 8L * BLOCK, 2, 0,
                    1, false).encode(b), RegisterResponse::decode);
            assertThat(reg[0].blockSize()).isEqualTo(BLOCK);
            assertThat(namenode.datanodeCount()).isEqualTo(1);
        });
        steps.put(HEARTBEAT, () -> assertThat(call(HEARTBEAT, b -> new HeartbeatRequest(reg[0].datanodeId(), 1, 2)
                .encode(b), HeartbeatResponse::decode).commands()).as("no group to host").isEmpty());
        // Clients
        steps.put(MKDIRS, () -> assertThat(status(MKDIRS, b -> new MkdirsRequest("/d", OWN).encode(b)).ownership())
                .isEqualTo(OWN));
        steps.put(Opcode.ONCE, () -> {
            FileStatus first = status(Opcode.ONCE, b -> {
                b.writeLong(CLIENT).writeLong(1).writeShort(MKDIRS);
                new MkdirsRequest("/once", OWN).encode(b);
            });
            FileStatus again = status(Opcode.ONCE, b -> {
                b.writeLong(CLIENT).writeLong(1).writeShort(MKDIRS);
                new MkdirsRequest("/once", OWN).encode(b);
            });
            assertThat(again).as("answered again, not applied again").isEqualTo(first);
            callEmpty(DELETE, b -> new DeleteRequest("/once", false).encode(b)); // the steps after expect no more
        });
        steps.put(CREATE, () -> {
            FileStatus f = status(CREATE, b -> new CreateRequest("/d/f", FileType.FILE, 0, 0, CLIENT, "127.0.0.1",
                    Ownership.UNSPECIFIED).encode(b));
            assertThat(f.underConstruction()).isTrue();
            file[0] = f.fileId();
        });
        steps.put(GET_FILE, () -> assertThat(getFile("/d/f").fileId()).isEqualTo(file[0]));
        steps.put(GET_BLOCK, () -> {
            BlockRef w = call(GET_BLOCK, b -> new GetBlockRequest(file[0], 0, true, CLIENT, "127.0.0.1", -1)
                    .encode(b), NamenodeProtocol::decodeBlockRef);
            assertThat(w.datanodeId()).isEqualTo(reg[0].datanodeId());
            assertThat(w.writable()).isTrue();
        });
        steps.put(ALLOCATE_BLOCKS, () -> assertThat(call(ALLOCATE_BLOCKS, b -> new AllocateBlocksRequest(file[0], 1,
                2, CLIENT, "127.0.0.1", -1).encode(b), BlockRefs::decode).blocks()).extracting(BlockRef::blockIndex)
                .containsExactly(1, 2));
        steps.put(REPLACE_BLOCK, () -> assertThat(call(REPLACE_BLOCK, b -> new ReplaceBlockRequest(file[0], 0, -1,
                CLIENT, "127.0.0.1").encode(b), NamenodeProtocol::decodeBlockRef).datanodeId())
                .as("not on that datanode: the block as it is").isEqualTo(reg[0].datanodeId()));
        steps.put(SYNC, () -> assertThat(status(SYNC, b -> new SyncRequest(file[0], CLIENT, BLOCK).encode(b))
                .size()).isEqualTo(BLOCK));
        steps.put(GET_BLOCKS, () -> assertThat(call(GET_BLOCKS, b -> new GetBlocksRequest(file[0], 0, 10).encode(b),
                BlockRefs::decode).blocks()).hasSize(3));
        steps.put(CLOSE, () -> {
            FileStatus closed = status(CLOSE, b -> new CloseRequest(file[0], CLIENT, 3L * BLOCK - 1).encode(b));
            assertThat(closed.underConstruction()).isFalse();
            assertThat(closed.size()).isEqualTo(3L * BLOCK - 1);
        });
        steps.put(APPEND, () -> {
            assertThat(status(APPEND, b -> new AppendRequest("/d/f", CLIENT, "127.0.0.1").encode(b))
                    .underConstruction()).isTrue();
            status(CLOSE, b -> new CloseRequest(file[0], CLIENT, 3L * BLOCK).encode(b));
        });
        steps.put(SET_ATTR, () -> assertThat(status(SET_ATTR, b -> new SetAttributesRequest("/d/f",
                NamenodeProtocol.SET_PERMISSION, new Ownership("", "", 0600), 0, 0).encode(b)).permission())
                .isEqualTo(0600));
        steps.put(LIST, () -> assertThat(call(LIST, b -> new ListRequest("/d", "", 10).encode(b),
                ListResponse::decode).entries()).extracting(FileStatus::name).containsExactly("f"));
        steps.put(RENAME, () -> {
            callEmpty(RENAME, b -> new RenameRequest("/d/f", "/d/g").encode(b));
            assertThat(getFile("/d/g").fileId()).isEqualTo(file[0]);
        });
        steps.put(RENEW_LEASE, () -> callEmpty(RENEW_LEASE, b -> new RenewLeaseRequest(CLIENT).encode(b)));
        steps.put(GET_PARTITIONS, () -> assertThat(call(GET_PARTITIONS, b -> { }, PartitionMap::decode))
                .isEqualTo(new PartitionMap(0, List.of("127.0.0.1:0"))));
        steps.put(WHERE_MOVED, () -> {
            TarnError e = error(WHERE_MOVED, b -> b.writeLong(file[0]));
            assertThat(e.code()).isEqualTo(ErrorCode.FILE_NOT_FOUND);
            assertThat(((Throwable) e).getMessage()).contains("moved away from this namenode recently");
        });
        steps.put(DELETE, () -> {
            callEmpty(DELETE, b -> new DeleteRequest("/d/g", false).encode(b));
            assertThat(namenode.fileCount()).isZero();
        });
        // Other namenodes
        steps.put(DIR_MKDIR, () -> {
            FileStatus p = status(DIR_MKDIR, b -> new DirMkdirRequest("/", "p", dirId, OWN, 1234).encode(b));
            assertThat(p.fileId()).isEqualTo(dirId);
            assertThat(p.creationTime()).isEqualTo(1234);
        });
        steps.put(DIR_SET_ATTR, () -> assertThat(status(DIR_SET_ATTR, b -> new SetAttributesRequest("/p",
                NamenodeProtocol.SET_MTIME, Ownership.UNSPECIFIED, 42, 0).encode(b)).modificationTime())
                .isEqualTo(42));
        steps.put(DIR_SEAL, () -> {
            callEmpty(DIR_SEAL, b -> new PathRequest("/p").encode(b));
            assertThat(error(CREATE, b -> new CreateRequest("/p/x", FileType.FILE, 0, 0, CLIENT, "",
                    Ownership.UNSPECIFIED).encode(b)).code()).as("sealed").isEqualTo(ErrorCode.RETRY);
        });
        steps.put(DIR_UNSEAL, () -> {
            callEmpty(DIR_UNSEAL, b -> new PathRequest("/p").encode(b));
            status(CREATE, b -> new CreateRequest("/p/x", FileType.FILE, 0, 0, CLIENT, "", Ownership.UNSPECIFIED)
                    .encode(b));
        });
        steps.put(DIR_RENAME, () -> {
            callEmpty(DIR_RENAME, b -> new RenameRequest("/p", "/q").encode(b));
            assertThat(getFile("/q/x").isFile()).isTrue();
        });
        steps.put(DIR_SNAPSHOT, () -> assertThat(call(DIR_SNAPSHOT, b -> { }, DirectorySnapshot::decode)
                .directories()).extracting(DirectorySnapshot.Directory::name).containsExactlyInAnyOrder("", "d",
                "q"));
        steps.put(DIR_DELETE, () -> {
            callEmpty(DIR_DELETE, b -> new PathRequest("/q").encode(b));
            assertThat(error(GET_FILE, b -> new PathRequest("/q").encode(b)).code())
                    .isEqualTo(ErrorCode.FILE_NOT_FOUND);
        });
        long fromId = FileIds.file(1, 5, 0);
        steps.put(FILE_ADOPT, () -> {
            FileStatus adopted = status(FILE_ADOPT, b -> new AdoptRequest("/d", "adopted", fromId, 0, 0, BLOCK, 0,
                    1, 10, 20, 30, OWN, List.of(), TICKET).encode(b));
            assertThat(adopted.modificationTime()).isEqualTo(20);
            assertThat(getFile("/d/adopted").fileId()).isEqualTo(adopted.fileId());
        });
        steps.put(FILE_ADOPTION, () -> {
            long adoptedAs = getFile("/d/adopted").fileId();
            assertThat(call(FILE_ADOPTION, b -> new AdoptionRequest(TICKET).encode(b), ByteBuf::readLong))
                    .isEqualTo(adoptedAs);
            assertThat(call(FILE_ADOPTION, b -> new AdoptionRequest(TICKET + 1).encode(b), ByteBuf::readLong))
                    .isEqualTo(AdoptionRequest.NOT_ADOPTED);
        });
        steps.put(FILE_ADOPTION_SETTLED, () -> {
            callEmpty(FILE_ADOPTION_SETTLED, b -> new AdoptionRequest(TICKET).encode(b));
            assertThat(namenode.service().namespace().ledgerSize()).as("the not-adopted answer stays").isEqualTo(1);
        });
        steps.put(FREE_BLOCKS, () -> callEmpty(FREE_BLOCKS, b -> new FreeBlocksRequest(List.of()).encode(b)));
        steps.put(SET_REPLICATION, () -> assertThat(status(SET_REPLICATION, b -> new SetReplicationRequest("/d", 3)
                .encode(b)).replication()).isEqualTo(3));
        steps.put(GET_REPLICATION, () -> {
            Integer inherited = call(GET_REPLICATION, b -> new PathRequest("/d/new").encode(b),
                    b -> Integer.valueOf(b.readUnsignedByte()));
            assertThat(inherited).isEqualTo(3);
        });
        steps.put(DIR_SET_REPLICATION, () -> assertThat(status(DIR_SET_REPLICATION,
                b -> new SetReplicationRequest("/d", 0).encode(b)).replication()).isZero());
        steps.put(DATANODE_UNREACHABLE, () -> {
            callEmpty(DATANODE_UNREACHABLE, b -> new UnreachableRequest("127.0.0.1", 7070).encode(b));
            assertThat(call(CLUSTER_STATUS, b -> { }, ClusterStatus::decode).datanodes().get(0).stateName())
                    .isEqualTo("unreachable");
        });
        // Datanodes again
        steps.put(DEREGISTER_DATANODE, () -> {
            callEmpty(DEREGISTER_DATANODE, b -> new DeregisterRequest(reg[0].datanodeId(), 1, 2, false).encode(b));
            assertThat(error(HEARTBEAT, b -> new HeartbeatRequest(reg[0].datanodeId(), 1, 2).encode(b)).code())
                    .isEqualTo(ErrorCode.UNKNOWN_DATANODE);
        });

        Set<Integer> all = new HashSet<>();
        EXPECTED.values().forEach(all::addAll);
        assertThat(steps.keySet()).as("a step for every opcode of every audience").isEqualTo(all);
        for (Map.Entry<Integer, Step> s : steps.entrySet()) {
            try {
                s.getValue().run();
            } catch (Exception | AssertionError e) {
                throw new AssertionError(Opcode.name(s.getKey()) + ": " + e, e);
            }
        }
    }

    @Test
    void anOpcodeOfNoAudienceIsUnknownAndTheConnectionServesOn() throws Exception {
        long before = namenode.service().operations();
        for (int op : UNSERVED) {
            TarnError e = error(op, b -> { });
            assertThat(e.code()).as(Opcode.name(op)).isEqualTo(ErrorCode.UNKNOWN_OPCODE);
            assertThat(((Throwable) e).getMessage())
                    .isEqualTo("the namenode does not serve operation " + Opcode.name(op));
        }
        assertThat(namenode.service().operations() - before).as("counted as served").isEqualTo(UNSERVED.length);
        callEmpty(PING, b -> { });
    }

    /** One call and the checks of its answer. */
    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }
}
