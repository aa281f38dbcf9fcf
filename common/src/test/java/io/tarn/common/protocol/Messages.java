package io.tarn.common.protocol;

import io.tarn.common.security.BlockTokens;
import io.tarn.common.protocol.AdminProtocol.BlockKeys;
import io.netty.buffer.ByteBuf;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DamagedFile;
import io.tarn.common.protocol.AdminProtocol.FsckRequest;
import io.tarn.common.protocol.AdminProtocol.FsckResponse;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.common.protocol.AdminProtocol.DegradedGroup;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.MemberHealth;
import io.tarn.common.protocol.AdminProtocol.ReplicationHealth;
import io.tarn.common.protocol.AdminProtocol.CreateGroup;
import io.tarn.common.protocol.AdminProtocol.DeleteGroup;
import io.tarn.common.protocol.AdminProtocol.GroupCommand;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.HeartbeatResponse;
import io.tarn.common.protocol.AdminProtocol.LeaderReport;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.NamenodeProtocol.AppendRequest;
import io.tarn.common.protocol.NamenodeProtocol.BlockRefs;
import io.tarn.common.protocol.NamenodeProtocol.CloseRequest;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.ReplaceBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetReplicationRequest;
import io.tarn.common.protocol.NamenodeProtocol.DeleteRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlocksRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.common.protocol.NamenodeProtocol.MkdirsRequest;
import io.tarn.common.protocol.NamenodeProtocol.PartitionMap;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenewLeaseRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.protocol.NamenodeProtocol.SyncRequest;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A catalogue of every message body codec in the protocol package, with fixed samples and jqwik
 * generators of valid values, so that round-trip, truncation and fuzz tests cover all of them.
 */
final class Messages {
    private Messages() {
    }

    /** One message type: how to write and read it, and whether its decoder insists on consuming everything. */
    record Codec<T>(String name, BiConsumer<ByteBuf, T> encoder, Function<ByteBuf, T> decoder,
                    boolean rejectsTrailingBytes) {
        Sample sample(T value) {
            return new Sample(this, value, Bufs.encode(b -> encoder.accept(b, value)));
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** A value of some message type and its encoding. */
    record Sample(Codec<?> codec, Object value, byte[] bytes) {
        Object decode(ByteBuf buf) {
            return codec.decoder().apply(buf);
        }

        Object decode(Bufs.Kind kind, byte[] encoded) {
            return Bufs.decode(kind, encoded, codec.decoder()::apply);
        }

        @Override
        public String toString() {
            return codec.name() + " " + value;
        }
    }

    // ------------------------------------------------------------------ codecs

    static final Codec<FileStatus> FILE_STATUS = new Codec<>("FileStatus",
            NamenodeProtocol::writeStatus, NamenodeProtocol::readStatus, false);
    static final Codec<BlockRef> BLOCK_REF = new Codec<>("BlockRef",
            NamenodeProtocol::writeBlockRef, NamenodeProtocol::readBlockRef, false);
    static final Codec<PathRequest> PATH = new Codec<>("PathRequest",
            (b, v) -> v.encode(b), PathRequest::decode, true);
    static final Codec<CreateRequest> CREATE = new Codec<>("CreateRequest",
            (b, v) -> v.encode(b), CreateRequest::decode, true);
    static final Codec<MkdirsRequest> MKDIRS = new Codec<>("MkdirsRequest",
            (b, v) -> v.encode(b), MkdirsRequest::decode, true);
    static final Codec<AppendRequest> APPEND = new Codec<>("AppendRequest",
            (b, v) -> v.encode(b), AppendRequest::decode, true);
    static final Codec<SetAttributesRequest> SET_ATTR = new Codec<>("SetAttributesRequest",
            (b, v) -> v.encode(b), SetAttributesRequest::decode, true);
    static final Codec<GetBlocksRequest> GET_BLOCKS = new Codec<>("GetBlocksRequest",
            (b, v) -> v.encode(b), GetBlocksRequest::decode, true);
    static final Codec<BlockRefs> BLOCK_REFS = new Codec<>("BlockRefs",
            (b, v) -> v.encode(b), BlockRefs::decode, true);
    static final Codec<PartitionMap> PARTITION_MAP = new Codec<>("PartitionMap",
            (b, v) -> v.encode(b), PartitionMap::decode, true);
    static final Codec<GetBlockRequest> GET_BLOCK = new Codec<>("GetBlockRequest",
            (b, v) -> v.encode(b), GetBlockRequest::decode, true);
    static final Codec<SyncRequest> SYNC = new Codec<>("SyncRequest",
            (b, v) -> v.encode(b), SyncRequest::decode, true);
    static final Codec<CloseRequest> CLOSE = new Codec<>("CloseRequest",
            (b, v) -> v.encode(b), CloseRequest::decode, true);
    static final Codec<ListRequest> LIST = new Codec<>("ListRequest",
            (b, v) -> v.encode(b), ListRequest::decode, true);
    static final Codec<ListResponse> LIST_RESPONSE = new Codec<>("ListResponse",
            (b, v) -> v.encode(b), ListResponse::decode, false);
    static final Codec<DeleteRequest> DELETE = new Codec<>("DeleteRequest",
            (b, v) -> v.encode(b), DeleteRequest::decode, true);
    static final Codec<RenameRequest> RENAME = new Codec<>("RenameRequest",
            (b, v) -> v.encode(b), RenameRequest::decode, true);
    static final Codec<RenewLeaseRequest> RENEW = new Codec<>("RenewLeaseRequest",
            (b, v) -> v.encode(b), RenewLeaseRequest::decode, true);
    static final Codec<RegisterRequest> REGISTER = new Codec<>("RegisterRequest",
            (b, v) -> v.encode(b), RegisterRequest::decode, true);
    static final Codec<RegisterResponse> REGISTER_RESPONSE = new Codec<>("RegisterResponse",
            (b, v) -> v.encode(b), RegisterResponse::decode, false);
    static final Codec<HeartbeatRequest> HEARTBEAT = new Codec<>("HeartbeatRequest",
            (b, v) -> v.encode(b), HeartbeatRequest::decode, true);
    static final Codec<HeartbeatResponse> HEARTBEAT_RESPONSE = new Codec<>("HeartbeatResponse",
            (b, v) -> v.encode(b), HeartbeatResponse::decode, true);
    static final Codec<DeregisterRequest> DEREGISTER = new Codec<>("DeregisterRequest",
            (b, v) -> v.encode(b), DeregisterRequest::decode, true);
    static final Codec<DatanodeStatus> DATANODE_STATUS = new Codec<>("DatanodeStatus",
            (b, v) -> v.encode(b), DatanodeStatus::decode, false);
    static final Codec<ClusterStatus> CLUSTER_STATUS = new Codec<>("ClusterStatus",
            (b, v) -> v.encode(b), ClusterStatus::decode, false);
    static final Codec<FsckRequest> FSCK = new Codec<>("FsckRequest",
            (b, v) -> v.encode(b), FsckRequest::decode, true);
    static final Codec<FsckResponse> FSCK_RESPONSE = new Codec<>("FsckResponse",
            (b, v) -> v.encode(b), FsckResponse::decode, true);

    static final Codec<SetReplicationRequest> SET_REPLICATION = new Codec<>("SetReplicationRequest",
            (b, v) -> v.encode(b), SetReplicationRequest::decode, true);
    static final Codec<ReplaceBlockRequest> REPLACE_BLOCK = new Codec<>("ReplaceBlockRequest",
            (b, v) -> v.encode(b), ReplaceBlockRequest::decode, true);

    static final List<Codec<?>> ALL = List.of(FILE_STATUS, BLOCK_REF, PATH, CREATE, MKDIRS, APPEND,
            SET_REPLICATION, REPLACE_BLOCK,
            SET_ATTR, GET_BLOCKS, BLOCK_REFS, PARTITION_MAP,
            GET_BLOCK, SYNC, CLOSE, LIST,
            LIST_RESPONSE, DELETE, RENAME, RENEW, REGISTER, REGISTER_RESPONSE, HEARTBEAT, HEARTBEAT_RESPONSE,
            DEREGISTER,
            DATANODE_STATUS, CLUSTER_STATUS, FSCK, FSCK_RESPONSE);

    // ------------------------------------------------------------------ fixed samples

    static final String UNICODE_PATH = "/dätä/文件";

    static FileStatus file(String name) {
        return new FileStatus(name, 42, FileType.FILE, 123_456_789_012L, 1 << 20, 1, 1_700_000_000_000L,
                1_700_000_000_123L, 1_700_000_000_456L, "usér", "grüppe", 07777, true, 3);
    }

    static FileStatus dir(String name) {
        return new FileStatus(name, Long.MAX_VALUE, FileType.DIRECTORY, 0, 0, 255, Long.MIN_VALUE, -1,
                Long.MAX_VALUE, "", "", 0, false);
    }

    static BlockRef blockRef() {
        return new BlockRef(Integer.MAX_VALUE, "datanode-ü.example", 65535, 255, -7, Integer.MAX_VALUE,
                1 << 20, Integer.MIN_VALUE, 0x8000_0000_0000_0001L, -1L, true);
    }

    /** Three block keys with extreme values. */
    static BlockKeys keys() {
        return new BlockKeys(Long.MIN_VALUE, List.of(new BlockTokens.EpochKey(Integer.MAX_VALUE, Long.MAX_VALUE, -1),
                new BlockTokens.EpochKey(0, 0, 0), new BlockTokens.EpochKey(-1, Long.MIN_VALUE, 1)));
    }

    static Arbitrary<BlockKeys> blockKeys() {
        Arbitrary<BlockTokens.EpochKey> key = Combinators.combine(ints(), longs(), longs())
                .as(BlockTokens.EpochKey::new);
        return Combinators.combine(longs(), key.list().ofMaxSize(BlockTokens.MAX_KEYS)).as(BlockKeys::new);
    }

    static BlockGroup group() {
        return new BlockGroup(Long.MAX_VALUE, Long.MAX_VALUE, -1, List.of(
                new GroupMember(0, Integer.MAX_VALUE, "datanode-ü.example", 65535, -7, Long.MIN_VALUE),
                new GroupMember(1, 0, "", 0, 0, 0),
                new GroupMember(Integer.MAX_VALUE, -1, "dn-3", 9070, Integer.MAX_VALUE, -1)));
    }

    static BlockRef groupRef() {
        BlockRef b = blockRef();
        return new BlockRef(b.datanodeId(), b.host(), b.port(), b.storageClass(), b.regionId(), b.blockIndex(),
                b.blockSize(), b.generation(), b.token(), b.tokenStamp(), b.writable(), group(), 0b101);
    }

    static DatanodeStatus datanode(int id, String host) {
        return new DatanodeStatus(id, host, 9070 + id, id % 2, Math.floorMod(id, 3), 1L << 40, 12345, 250, id % 2 == 0);
    }

    /** A group of three whose members are silent, lost and alive, with extreme values. */
    static DegradedGroup degraded(long id) {
        return new DegradedGroup(id, List.of(new MemberHealth(0, Integer.MAX_VALUE, "dn-ä", 65535,
                DatanodeStatus.SILENT, Long.MAX_VALUE), new MemberHealth(1, -1, "", 0, MemberHealth.LOST, -1),
                new MemberHealth(Integer.MIN_VALUE, 3, "h", 9070, DatanodeStatus.ALIVE, 0)));
    }

    /** At least one sample per codec, with unicode strings and extreme values. */
    static List<Sample> samples() {
        List<Sample> s = new ArrayList<>();
        s.add(FILE_STATUS.sample(file("文件")));
        s.add(FILE_STATUS.sample(dir("")));
        s.add(BLOCK_REF.sample(blockRef()));
        s.add(BLOCK_REF.sample(new BlockRef(0, "", 0, 0, 0, 0, 0, 0, 0, 0, false)));
        s.add(BLOCK_REF.sample(groupRef()));
        s.add(BLOCK_REF.sample(new BlockRef(0, "", 0, 0, 0, 0, 0, 0, 0, Long.MAX_VALUE, false,
                new BlockGroup(0, 1, 0, List.of(new GroupMember(0, 0, "", 0, 0, 0))))));
        s.add(PATH.sample(new PathRequest(UNICODE_PATH)));
        s.add(PATH.sample(new PathRequest("")));
        s.add(CREATE.sample(new CreateRequest(UNICODE_PATH, FileType.FILE,
                NamenodeProtocol.CREATE_OVERWRITE | NamenodeProtocol.CREATE_PARENTS, 1, -3L, "client-ß",
                new Ownership("ü", "文件", 01755), 3)));
        s.add(CREATE.sample(new CreateRequest("/d", FileType.DIRECTORY, 255, 255, Long.MAX_VALUE, "",
                Ownership.UNSPECIFIED)));
        s.add(MKDIRS.sample(new MkdirsRequest(UNICODE_PATH, new Ownership("a", "b", 0))));
        s.add(SET_REPLICATION.sample(new SetReplicationRequest(UNICODE_PATH, 3)));
        s.add(SET_REPLICATION.sample(new SetReplicationRequest("/", 255)));
        s.add(REPLACE_BLOCK.sample(new ReplaceBlockRequest(Long.MIN_VALUE, Integer.MAX_VALUE, -1, 7, "客户端")));
        s.add(REPLACE_BLOCK.sample(new ReplaceBlockRequest(1, 0, 0, 0, "")));
        s.add(MKDIRS.sample(new MkdirsRequest("/", Ownership.UNSPECIFIED)));
        s.add(APPEND.sample(new AppendRequest(UNICODE_PATH, Long.MIN_VALUE, "客户端")));
        s.add(SET_ATTR.sample(new SetAttributesRequest(UNICODE_PATH, 31, new Ownership("o", "g", 07777),
                Long.MIN_VALUE, Long.MAX_VALUE)));
        s.add(SET_ATTR.sample(new SetAttributesRequest("/", 0, Ownership.UNSPECIFIED, -1, -1)));
        s.add(PARTITION_MAP.sample(new PartitionMap(0, List.of("localhost:9060"))));
        s.add(PARTITION_MAP.sample(new PartitionMap(3, List.of("a:1", "[::1]:2", "nämenode:3", "d:65535"))));
        s.add(GET_BLOCKS.sample(new GetBlocksRequest(Long.MIN_VALUE, Integer.MAX_VALUE, 0)));
        s.add(GET_BLOCKS.sample(new GetBlocksRequest(7, 0, Integer.MAX_VALUE)));
        s.add(BLOCK_REFS.sample(new BlockRefs(List.of())));
        s.add(BLOCK_REFS.sample(new BlockRefs(List.of(blockRef(),
                new BlockRef(0, "", 0, 0, 0, 0, 0, 0, 0, 0, false)))));
        s.add(GET_BLOCK.sample(new GetBlockRequest(Long.MIN_VALUE, Integer.MAX_VALUE, true, 77, "客户端",
                Long.MAX_VALUE)));
        s.add(GET_BLOCK.sample(new GetBlockRequest(1, 0, false, 0, "", -1)));
        s.add(GET_BLOCK.sample(new GetBlockRequest(1, 3, true, 9, "h", 0)));
        s.add(SYNC.sample(new SyncRequest(Long.MIN_VALUE, -1, Long.MAX_VALUE)));
        s.add(SYNC.sample(new SyncRequest(1, 2, 0)));
        s.add(CLOSE.sample(new CloseRequest(-1, Long.MIN_VALUE, Long.MAX_VALUE)));
        s.add(CLOSE.sample(new CloseRequest(5, 6, 0)));
        s.add(LIST.sample(new ListRequest(UNICODE_PATH, "文件-0007", Integer.MAX_VALUE)));
        s.add(LIST.sample(new ListRequest("/", "", 1)));
        s.add(LIST_RESPONSE.sample(new ListResponse(false, List.of())));
        s.add(LIST_RESPONSE.sample(new ListResponse(true, List.of(file("a"), dir("bé"), file("文件")))));
        s.add(DELETE.sample(new DeleteRequest(UNICODE_PATH, true)));
        s.add(DELETE.sample(new DeleteRequest("/x", false)));
        s.add(RENAME.sample(new RenameRequest(UNICODE_PATH, "/dätä/😀")));
        s.add(RENEW.sample(new RenewLeaseRequest(Long.MIN_VALUE)));
        s.add(REGISTER.sample(new RegisterRequest(Long.MIN_VALUE, Long.MAX_VALUE, "dn-ö", 65535, 255,
                Long.MAX_VALUE, 1 << 24, 0, 1, true)));
        s.add(REGISTER.sample(new RegisterRequest(0, 0, "", 0, 0, 1, 0, (1 << 24) - 1, 256, false)));
        s.add(REGISTER.sample(new RegisterRequest(7, 8, "dn", 9070, 0, 1 << 20, (1 << 16) - 1, 255, 256, true)));
        s.add(REGISTER.sample(new RegisterRequest(7, 8, "dn", 9070, 0, 1 << 20, 4, 0, 1, false, true)));
        s.add(REGISTER.sample(new RegisterRequest(7, 8, "dn", 9070, 0, 1 << 20, 4, 0, 1, true, true,
                new AdminProtocol.BlockReport(1 << 20, new int[] {3, 0, 1, 2}),
                List.of(new AdminProtocol.LostRegion(2, "region-00002 was cut to 0 bytes")))));
        s.add(REGISTER_RESPONSE.sample(new RegisterResponse(-1, 1 << 20, keys(), true)));
        s.add(REGISTER_RESPONSE.sample(new RegisterResponse(7, 1 << 20, BlockKeys.NONE, false)));
        s.add(HEARTBEAT.sample(new HeartbeatRequest(Integer.MIN_VALUE, 1, -1)));
        s.add(HEARTBEAT.sample(new HeartbeatRequest(7, 1, -1, List.of(0L, Long.MAX_VALUE, -1L),
                List.of(new LeaderReport(Long.MAX_VALUE, 2, Long.MAX_VALUE), new LeaderReport(0, 0, 0)))));
        s.add(HEARTBEAT.sample(new HeartbeatRequest(7, 1, -1, List.of(), List.of(), List.of(),
                List.of(new AdminProtocol.LostRegion((1 << 24) - 1, "ö"), new AdminProtocol.LostRegion(0, "")))));
        s.add(HEARTBEAT_RESPONSE.sample(new HeartbeatResponse(List.of())));
        s.add(HEARTBEAT_RESPONSE.sample(new HeartbeatResponse(List.of(new DeleteGroup(7)), true, keys())));
        s.add(HEARTBEAT_RESPONSE.sample(new HeartbeatResponse(List.of(new CreateGroup(group(), 1, true),
                new DeleteGroup(Long.MIN_VALUE), new CreateGroup(group(), Integer.MAX_VALUE, false)))));
        s.add(DEREGISTER.sample(new DeregisterRequest(Integer.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, true)));
        s.add(DEREGISTER.sample(new DeregisterRequest(0, 0, -1, false)));
        s.add(DATANODE_STATUS.sample(datanode(3, "dn-3.例子")));
        s.add(CLUSTER_STATUS.sample(new ClusterStatus(1, 2, 3, 4, 1 << 20, List.of())));
        s.add(CLUSTER_STATUS.sample(new ClusterStatus(1, 2, 3, 4, 1 << 20, List.of(new DatanodeStatus(1, "a", 1, 0,
                DatanodeStatus.ALIVE, 8, 4, 0, true, Integer.MAX_VALUE)), 0, Long.MAX_VALUE)));
        s.add(CLUSTER_STATUS.sample(new ClusterStatus(Long.MAX_VALUE, 0, -1, Long.MIN_VALUE, 4096,
                List.of(datanode(0, "a"), datanode(1, "dätä"), datanode(2, "")), 7)));
        s.add(CLUSTER_STATUS.sample(new ClusterStatus(1, 2, 3, 4, 1 << 20, List.of(datanode(0, "a")), 0, 9,
                new ReplicationHealth(Long.MAX_VALUE, List.of(degraded(Long.MAX_VALUE), degraded(0))))));
        s.add(FSCK.sample(new FsckRequest(0)));
        s.add(FSCK.sample(new FsckRequest(AdminProtocol.MAX_FSCK_FILES)));
        s.add(FSCK_RESPONSE.sample(FsckResponse.HEALTHY));
        s.add(FSCK_RESPONSE.sample(new FsckResponse(12, 3, 4, 5, List.of(new DamagedFile(UNICODE_PATH, 1, 2, 1, 1),
                new DamagedFile("", Long.MAX_VALUE, Integer.MAX_VALUE, 0, Integer.MAX_VALUE)))));
        return s;
    }

    // ------------------------------------------------------------------ generators

    /** Valid Unicode text (no lone surrogates, which UTF-8 cannot carry), biased to awkward cases. */
    static Arbitrary<String> text() {
        Arbitrary<String> codePoints = Arbitraries.integers().between(0, 0x10FFFF)
                .filter(cp -> cp < Character.MIN_SURROGATE || cp > Character.MAX_SURROGATE)
                .list().ofMaxSize(16)
                .map(cps -> {
                    StringBuilder sb = new StringBuilder();
                    cps.forEach(sb::appendCodePoint);
                    return sb.toString();
                });
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, Arbitraries.of("", UNICODE_PATH, "/a/b", "😀", "\0", "é".repeat(300))),
                net.jqwik.api.Tuple.of(2, Arbitraries.strings().alpha().numeric().withChars("/._-").ofMaxLength(24)),
                net.jqwik.api.Tuple.of(3, codePoints));
    }

    static Arbitrary<Integer> u8() {
        return Arbitraries.integers().between(0, 255);
    }

    static Arbitrary<Integer> u16() {
        return Arbitraries.integers().between(0, 65535);
    }

    static Arbitrary<Long> longs() {
        return Arbitraries.longs();
    }

    static Arbitrary<Integer> ints() {
        return Arbitraries.integers();
    }

    static Arbitrary<FileStatus> fileStatus() {
        return Combinators.combine(text(), longs(), Arbitraries.of(FileType.class), longs(), ints(), u8(), longs(),
                longs()).as((name, id, type, size, bs, sc, ct, mt) ->
                        new Object[] {name, id, type, size, bs, sc, ct, mt})
                .flatMap(a -> Combinators.combine(longs(), ownership(false), Arbitraries.of(true, false))
                        .as((at, o, uc) -> new FileStatus((String) a[0], (Long) a[1], (FileType) a[2], (Long) a[3],
                                (Integer) a[4], (Integer) a[5], (Long) a[6], (Long) a[7], at, o.owner(), o.group(),
                                o.permission(), uc, 0)))
                .flatMap(f -> Arbitraries.of(0, 1, 3).map(r -> new FileStatus(f.name(), f.fileId(), f.type(),
                        f.size(), f.blockSize(), f.storageClass(), f.creationTime(), f.modificationTime(),
                        f.accessTime(), f.owner(), f.group(), f.permission(), f.underConstruction(), r)));
    }

    /** Owner, group and permission; {@code allowDefault} also yields the "namenode decides" permission. */
    static Arbitrary<Ownership> ownership(boolean allowDefault) {
        Arbitrary<Integer> perm = Arbitraries.integers().between(allowDefault ? -1 : 0, Ownership.MAX_PERMISSION);
        return Combinators.combine(text(), text(), perm).as(Ownership::new);
    }

    static Arbitrary<BlockRef> blockRef(Arbitrary<String> hosts) {
        return Combinators.combine(ints(), hosts, u16(), u8(), ints(), ints(), ints(), ints())
                .as((dn, host, port, sc, region, index, bs, gen) ->
                        new Object[] {dn, host, port, sc, region, index, bs, gen})
                .flatMap(a -> Combinators.combine(longs(), longs(), Arbitraries.of(true, false)).as((token, stamp, w) ->
                        new BlockRef((Integer) a[0], (String) a[1], (Integer) a[2], (Integer) a[3], (Integer) a[4],
                                (Integer) a[5], (Integer) a[6], (Integer) a[7], token, stamp, w)));
    }

    static Arbitrary<BlockGroup> blockGroup() {
        Arbitrary<GroupMember> member = Combinators.combine(Arbitraries.integers().between(0, Integer.MAX_VALUE),
                ints(), text(), u16(), ints(), longs()).as(GroupMember::new);
        return Combinators.combine(Arbitraries.longs().between(0, Long.MAX_VALUE),
                Arbitraries.longs().between(1, Long.MAX_VALUE), ints(),
                member.list().ofMinSize(1).ofMaxSize(NamenodeProtocol.MAX_GROUP_MEMBERS)).as(BlockGroup::new);
    }

    /** Block references, a third of them of a replicated group. */
    static Arbitrary<BlockRef> anyBlockRef(Arbitrary<String> hosts) {
        return Combinators.combine(blockRef(hosts), blockGroup().injectNull(0.67)).as((b, g) -> new BlockRef(
                b.datanodeId(), b.host(), b.port(), b.storageClass(), b.regionId(), b.blockIndex(), b.blockSize(),
                b.generation(), b.token(), b.tokenStamp(), b.writable(), g));
    }

    static Arbitrary<GroupCommand> groupCommand() {
        Arbitrary<GroupCommand> create = blockGroup().flatMap(g -> Combinators.combine(Arbitraries.of(g.members()),
                Arbitraries.of(true, false)).as((m, campaign) -> new CreateGroup(g, m.memberId(), campaign)));
        Arbitrary<GroupCommand> delete = longs().map(DeleteGroup::new);
        return Arbitraries.oneOf(create, delete);
    }

    static Arbitrary<HeartbeatRequest> heartbeat() {
        Arbitrary<LeaderReport> report = Combinators.combine(longs(), ints(), longs()).as(LeaderReport::new);
        return Combinators.combine(ints(), longs(), longs(), longs().list().ofMaxSize(8), report.list().ofMaxSize(4))
                .as(HeartbeatRequest::new);
    }

    static Arbitrary<DatanodeStatus> datanodeStatus() {
        return Combinators.combine(ints(), text(), u16(), u8(), Arbitraries.integers().between(0, 3), longs(), longs(),
                longs()).as(DatanodeStatus::new).flatMap(d -> Combinators.combine(Arbitraries.of(true, false),
                Arbitraries.integers().between(0, Integer.MAX_VALUE)).as((sc, groups) ->
                new DatanodeStatus(d.id(), d.host(), d.port(), d.storageClass(), d.state(), d.capacityBlocks(),
                        d.freeBlocks(), d.silenceMs(), sc, groups)));
    }

    static Arbitrary<ReplicationHealth> replicationHealth() {
        Arbitrary<MemberHealth> member = Combinators.combine(ints(), ints(), text(), u16(),
                Arbitraries.integers().between(0, MemberHealth.LOST), longs()).as(MemberHealth::new);
        Arbitrary<DegradedGroup> group = Combinators.combine(longs(), member.list().ofMinSize(1).ofMaxSize(4))
                .as(DegradedGroup::new);
        return group.list().ofMaxSize(3).flatMap(groups -> Arbitraries.longs().between(groups.size(), Long.MAX_VALUE)
                .map(under -> new ReplicationHealth(under, groups)));
    }

    /** Which regions a registration names: count, first and stride, every id below 2^24. */
    static Arbitrary<int[]> regionShare() {
        int limit = AdminProtocol.MAX_REGIONS;
        return Arbitraries.integers().between(1, AdminProtocol.MAX_REGION_STRIDE).flatMap(stride ->
                Arbitraries.integers().between(0, (limit - 1) / stride + 1).flatMap(count ->
                        Arbitraries.integers().between(0, count == 0 ? limit - 1 : limit - 1 - (count - 1) * stride)
                                .map(first -> new int[] {count, first, stride})));
    }

    static Arbitrary<RegisterRequest> registerRequest() {
        return Combinators.combine(longs(), longs(), text(), u16(), u8(),
                        Arbitraries.longs().between(1, Long.MAX_VALUE), regionShare(), Arbitraries.of(true, false))
                .as((high, low, host, port, sc, size, share, intact) -> new RegisterRequest(high, low, host, port, sc,
                        size, share[0], share[1], share[2], intact))
                .flatMap(r -> Arbitraries.of(true, false).map(offered -> new RegisterRequest(r.storageIdHigh(),
                        r.storageIdLow(), r.host(), r.port(), r.storageClass(), r.regionSize(), r.regionCount(),
                        r.firstRegion(), r.regionStride(), r.intact(), offered)));
    }

    /** A valid value of a randomly chosen message type, with its encoding. */
    static Arbitrary<Sample> anySample() {
        Arbitrary<Boolean> bool = Arbitraries.of(true, false);
        List<Arbitrary<Sample>> all = List.of(
                fileStatus().map(FILE_STATUS::sample),
                anyBlockRef(text()).map(BLOCK_REF::sample),
                text().map(p -> PATH.sample(new PathRequest(p))),
                Combinators.combine(text(), Arbitraries.of(FileType.class), u8(), u8(), longs(), text(),
                                ownership(true))
                        .as(CreateRequest::new)
                        .flatMap(c -> u8().map(r -> CREATE.sample(new CreateRequest(c.path(), c.type(), c.flags(),
                                c.storageClass(), c.clientId(), c.clientHost(), c.ownership(), r)))),
                Combinators.combine(text(), u8()).as(SetReplicationRequest::new).map(SET_REPLICATION::sample),
                Combinators.combine(longs(), Arbitraries.integers().between(0, Integer.MAX_VALUE), ints(), longs(),
                        text()).as(ReplaceBlockRequest::new).map(REPLACE_BLOCK::sample),
                Combinators.combine(text(), ownership(true)).as(MkdirsRequest::new).map(MKDIRS::sample),
                Combinators.combine(text(), longs(), text()).as(AppendRequest::new).map(APPEND::sample),
                Combinators.combine(text(), Arbitraries.integers().between(0, 31), ownership(true), longs(), longs())
                        .as(SetAttributesRequest::new).map(SET_ATTR::sample),
                Combinators.combine(longs(), Arbitraries.integers().between(0, Integer.MAX_VALUE),
                                Arbitraries.integers().between(0, Integer.MAX_VALUE))
                        .as(GetBlocksRequest::new).map(GET_BLOCKS::sample),
                anyBlockRef(text()).list().ofMaxSize(5).map(l -> BLOCK_REFS.sample(new BlockRefs(l))),
                text().list().ofMinSize(1).ofMaxSize(6).flatMap(l -> Arbitraries.integers().between(0, l.size() - 1)
                        .map(p -> PARTITION_MAP.sample(new PartitionMap(p, l)))),
                Combinators.combine(longs(), Arbitraries.integers().between(0, Integer.MAX_VALUE), bool, longs(),
                                text(), Arbitraries.longs().between(-1, Long.MAX_VALUE))
                        .as(GetBlockRequest::new).map(GET_BLOCK::sample),
                Combinators.combine(longs(), longs(), Arbitraries.longs().between(0, Long.MAX_VALUE))
                        .as(SyncRequest::new).map(SYNC::sample),
                Combinators.combine(longs(), longs(), Arbitraries.longs().between(0, Long.MAX_VALUE))
                        .as(CloseRequest::new).map(CLOSE::sample),
                Combinators.combine(text(), text(), Arbitraries.integers().between(1, Integer.MAX_VALUE))
                        .as(ListRequest::new).map(LIST::sample),
                Combinators.combine(bool, fileStatus().list().ofMaxSize(4))
                        .as(ListResponse::new).map(LIST_RESPONSE::sample),
                Combinators.combine(text(), bool).as(DeleteRequest::new).map(DELETE::sample),
                Combinators.combine(text(), text()).as(RenameRequest::new).map(RENAME::sample),
                longs().map(id -> RENEW.sample(new RenewLeaseRequest(id))),
                registerRequest().map(REGISTER::sample),
                Combinators.combine(ints(), ints(), blockKeys(), bool)
                        .as(RegisterResponse::new).map(REGISTER_RESPONSE::sample),
                heartbeat().map(HEARTBEAT::sample),
                groupCommand().list().ofMaxSize(4).map(l -> HEARTBEAT_RESPONSE.sample(new HeartbeatResponse(l))),
                Combinators.combine(Arbitraries.integers().between(0, Integer.MAX_VALUE), longs(), longs(), bool)
                        .as(DeregisterRequest::new).map(DEREGISTER::sample),
                datanodeStatus().map(DATANODE_STATUS::sample),
                Combinators.combine(longs(), longs(), longs(), longs(), ints(), datanodeStatus().list().ofMaxSize(4),
                                longs()).as(ClusterStatus::new)
                        .flatMap(c -> Combinators.combine(Arbitraries.longs(), replicationHealth()).as((groups, r) ->
                                new ClusterStatus(c.uptimeMs(), c.files(), c.directories(), c.operations(),
                                        c.blockSize(), c.datanodes(), c.damagedFiles(), groups, r)))
                        .map(CLUSTER_STATUS::sample),
                Arbitraries.integers().between(0, AdminProtocol.MAX_FSCK_FILES)
                        .map(n -> FSCK.sample(new FsckRequest(n))),
                Combinators.combine(longs(), longs(), longs(), longs(), Combinators.combine(text(), longs(),
                                Arbitraries.integers().between(0, Integer.MAX_VALUE),
                                Arbitraries.integers().between(0, Integer.MAX_VALUE),
                                Arbitraries.integers().between(0, Integer.MAX_VALUE)).as(DamagedFile::new).list()
                                .ofMaxSize(4)).as(FsckResponse::new).map(FSCK_RESPONSE::sample));
        return Arbitraries.oneOf(all);
    }
}
