package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.FileIds;
import io.tarn.common.security.BlockTokens;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Bodies of datanode registration, heartbeats, deregistration and cluster status (namenode side).
 *
 * <pre>
 * REGISTER_DATANODE   req:  storageIdHigh[i64] storageIdLow[i64] host[str] port[u16] storageClass[u8]
 *                           regionSize[i64] regionCount[i32] firstRegion[i32] regionStride[i32] intact[bool]
 *                     resp: datanodeId[i32] blockSize[i32] BlockKeys resetGenerations[bool]
 * HEARTBEAT           req:  datanodeId[i32] storageIdHigh[i64] storageIdLow[i64]
 *                           h[i32] groupId[i64]*h          (the groups of this namenode's partition hosted)
 *                           l[i32] LeaderReport*l          (those of them this datanode leads)
 *                           f[i32] FailedGroup*f           (those of them stopped on this datanode)
 *                     resp: n[i32] GroupCommand*n reportAgain[bool] BlockKeys, or UNKNOWN_DATANODE: register again
 * BlockKeys:          fingerprint[i64] n[u8, at most 64] (keyId[i32] k0[i64] k1[i64])*n
 *                     (the keys of the epochs whose block tokens may still be valid, and the next one's;
 *                     fingerprint names the namenode's master key without revealing it; n = 0: no change)
 * FailedGroup:        groupId[i64] reason[str]   (why the group stopped here: its journal failed, an effect
 *                     threw; it neither votes nor acknowledges until the datanode is restarted)
 * LeaderReport:       groupId[i64] leaderMemberId[i32] term[i64] m[u8] memberId[i32]*m
 *                     (the configuration the leader's replicas applied, ascending; none: not known)
 * GroupCommand:       kind[u8] then, kind 1 (CreateGroup): BlockGroup self[i32] campaign[bool]
 *                                    kind 2 (DeleteGroup): groupId[i64]
 *                                    kind 3 (ChangeGroup): BlockGroup   (the target membership)
 *                     (BlockGroup as in NamenodeProtocol, member tokens 0)
 * DEREGISTER_DATANODE req:  datanodeId[i32, not negative] storageIdHigh[i64] storageIdLow[i64] dataKept[bool]
 *                     resp: (empty), or UNKNOWN_DATANODE: no such datanode id with this storage id
 * CLUSTER_STATUS      req:  (empty)
 *                     resp: uptimeMs[i64] files[i64] directories[i64] operations[i64] blockSize[i32]
 *                           n[i32] DatanodeStatus*n damagedFiles[i64] blockGroups[i64]
 *                           ReplicationHealth
 * ReplicationHealth:  length[i32] version[u8] underReplicated[i64] n[i32] DegradedGroup*n
 *                     r[i32] (groupId[i64] memberId[i32] reason[str])*r
 *                     (length counts what follows it; version 2 is this layout, version 1 ended
 *                     before r; a decoder skips the bytes a later version appends within length.
 *                     n at most MAX_DEGRADED_GROUPS; r: why each listed member in state 5 failed)
 * DegradedGroup:      groupId[i64] m[u8, 1..16] MemberHealth*m   (a group with a member down)
 * MemberHealth:       memberId[i32] datanodeId[i32] host[str] port[u16] state[u8] lastHeardMs[i64]
 *                     (state as DatanodeStatus, or 4: the datanode came back, or stopped, without
 *                     the group's region, or 5: its datanode is alive but the group stopped there)
 * FSCK                req:  max[i32, 0..MAX_FSCK_FILES]
 *                     resp: scannedAtMs[i64] damagedFiles[i64] lostBlocks[i64] unavailableBlocks[i64]
 *                           n[i32] DamagedFile*n    (the first n of the damaged files, n at most max)
 * DamagedFile:        path[str] fileId[i64] blocks[i32] lost[i32] unavailable[i32]
 * DatanodeStatus:     id[i32] host[str] port[u16] storageClass[u8] state[u8] capacityBlocks[i64]
 *                     freeBlocks[i64] silenceMs[i64] shortCircuit[bool] groups[i32]
 *                     (groups: this namenode's block groups with a member there; blockGroups: all of its groups)
 * </pre>
 * A datanode serves every namenode and registers with each a share of its regions: the ones with
 * ids {@code firstRegion + i * regionStride} for {@code i} in {@code 0..regionCount-1} (with N
 * namenodes, partition p gets {@code firstRegion = p}, {@code regionStride = N}; one namenode gets
 * {@code 0, 1}). The namenode allocates only there and puts these real ids in its block references,
 * so the datanode never translates them. Every id must lie below {@link #MAX_REGIONS} and the stride
 * in {@code 1..}{@link #MAX_REGION_STRIDE}; anything else is malformed.
 * {@code intact} says the datanode still holds the regions (and their data) it registered before
 * under the same storage id; {@code resetGenerations} tells it to forget its stored generations
 * because the namenode does not know its old blocks. A datanode stopping cleanly sends
 * {@code DEREGISTER_DATANODE} so the namenode stops allocating on it at once instead of after the
 * liveness timeout; {@code dataKept} says whether its regions (and data) survive the stop, so that
 * blocks on it are reported as waiting for its return or as lost.
 *
 * <p>Replicated block groups are placed by the namenode that manages their regions and learned by
 * their datanodes from heartbeat answers: the namenode answers {@code CreateGroup} on every
 * heartbeat of a member until its heartbeat lists the group ({@code self}: the member this datanode
 * is; {@code campaign}: stand for election at once, for the first leader of a new group), and
 * {@code DeleteGroup} for every group of its partition a heartbeat lists that it does not know (the
 * group was destroyed, or created by an earlier run of the namenode). A datanode treats a
 * CreateGroup of a group it hosts and a DeleteGroup of one it does not as no-ops.
 * A member whose datanode stayed dead for {@code tarn.datanode.replace.after}, or came back without
 * its data, is replaced: the namenode picks a wholly free region on another live datanode, answers
 * {@code ChangeGroup} with the target membership to every member's datanode until the leader
 * reports (in its LeaderReport) that its replicas applied it, and {@code CreateGroup} to the new
 * member's datanode (whose member id, 3 or more, tells it to join empty and catch up).
 *
 * <p>A block is lost when its datanode came back, or stopped, without its data; unavailable while
 * its datanode is dead or stopped keeping its data. Each namenode finds the files with such blocks
 * by a scan of its own files (on its maintenance thread, whenever a datanode's state changed and
 * then every few seconds while any is found); {@code damagedFiles} in CLUSTER_STATUS and the FSCK
 * answer report its last scan, as HDFS's fsck reports missing blocks.
 */
public final class AdminProtocol {
    /** A datanode's region ids lie below this, so a registration names at most this many regions. */
    public static final int MAX_REGIONS = 1 << 24;
    /** Largest region stride: the most namenodes a cluster can have (one per file id partition). */
    public static final int MAX_REGION_STRIDE = FileIds.MAX_PARTITIONS;

    private AdminProtocol() {
    }

    /**
     * A datanode's block report, sent with a registration that says its data is intact: the
     * generation each block slot of the registered regions holds (0: never written), region by region
     * in registration order, {@code regionSize / blockSize} slots each, for blocks of
     * {@code blockSize} bytes (the layout its generation table was made for). The namenode checks the
     * blocks its files name on the datanode against it: one whose slot holds another generation did
     * not keep its data.
     */
    public record BlockReport(int blockSize, int[] generations) {
        public BlockReport {
            Objects.requireNonNull(generations, "generations");
        }

        /** The generation slot {@code block} of the {@code i}-th registered region holds. */
        public int generation(int i, int block, int blocksPerRegion) {
            return generations[i * blocksPerRegion + block];
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof BlockReport r && r.blockSize == blockSize && Arrays.equals(r.generations, generations);
        }

        @Override
        public int hashCode() {
            return 31 * blockSize + Arrays.hashCode(generations);
        }

        @Override
        public String toString() {
            return "BlockReport[blockSize=" + blockSize + ", " + generations.length + " slots]";
        }
    }

    /**
     * REGISTER_DATANODE request: who the datanode is, where it serves, and which of its regions the
     * receiving namenode manages ({@code regionCount} regions from {@code firstRegion}, every
     * {@code regionStride}-th), and whether it offers short-circuit access to clients on its host
     * (reported in CLUSTER_STATUS for operators; clients learn it from the datanode itself). With its
     * data intact, its {@link BlockReport} for those regions (null without one): {@code
     * report[bool] (blockSize[i32] count[i32] generation[i32]*count)}; then the regions among them it
     * took out of service ({@link LostRegion}): {@code count[i32] (region[i32] reason[str])*}.
     */
    public record RegisterRequest(long storageIdHigh, long storageIdLow, String host, int port, int storageClass,
                                  long regionSize, int regionCount, int firstRegion, int regionStride,
                                  boolean intact, boolean shortCircuit, BlockReport report,
                                  List<LostRegion> lostRegions) {
        public RegisterRequest {
            lostRegions = List.copyOf(lostRegions);
        }

        /** A registration that reports no lost region. */
        public RegisterRequest(long storageIdHigh, long storageIdLow, String host, int port, int storageClass,
                               long regionSize, int regionCount, int firstRegion, int regionStride, boolean intact,
                               boolean shortCircuit, BlockReport report) {
            this(storageIdHigh, storageIdLow, host, port, storageClass, regionSize, regionCount, firstRegion,
                    regionStride, intact, shortCircuit, report, List.of());
        }

        /** A registration without a block report. */
        public RegisterRequest(long storageIdHigh, long storageIdLow, String host, int port, int storageClass,
                               long regionSize, int regionCount, int firstRegion, int regionStride, boolean intact,
                               boolean shortCircuit) {
            this(storageIdHigh, storageIdLow, host, port, storageClass, regionSize, regionCount, firstRegion,
                    regionStride, intact, shortCircuit, null);
        }

        /** A registration of a datanode that offers no short-circuit access. */
        public RegisterRequest(long storageIdHigh, long storageIdLow, String host, int port, int storageClass,
                               long regionSize, int regionCount, int firstRegion, int regionStride, boolean intact) {
            this(storageIdHigh, storageIdLow, host, port, storageClass, regionSize, regionCount, firstRegion,
                    regionStride, intact, false);
        }

        public void encode(ByteBuf buf) {
            buf.writeLong(storageIdHigh);
            buf.writeLong(storageIdLow);
            Wire.writeString(buf, host);
            buf.writeShort(port);
            buf.writeByte(storageClass);
            buf.writeLong(regionSize);
            buf.writeInt(regionCount);
            buf.writeInt(firstRegion);
            buf.writeInt(regionStride);
            Wire.writeBoolean(buf, intact);
            Wire.writeBoolean(buf, shortCircuit);
            Wire.writeBoolean(buf, report != null);
            if (report != null) {
                buf.writeInt(report.blockSize());
                buf.writeInt(report.generations().length);
                for (int g : report.generations()) {
                    buf.writeInt(g);
                }
            }
            LostRegion.encode(buf, lostRegions);
        }

        public static RegisterRequest decode(ByteBuf buf) {
            long high = Wire.readLong(buf);
            long low = Wire.readLong(buf);
            String host = Wire.readString(buf);
            int port = Wire.readUnsignedShort(buf);
            int storageClass = Wire.readUnsignedByte(buf);
            long regionSize = Wire.readLong(buf);
            int regionCount = Wire.readInt(buf, 0, MAX_REGIONS, "regionCount");
            int firstRegion = Wire.readInt(buf, 0, MAX_REGIONS - 1, "firstRegion");
            int regionStride = Wire.readInt(buf, 1, MAX_REGION_STRIDE, "regionStride");
            boolean intact = Wire.readBoolean(buf);
            boolean shortCircuit = Wire.readBoolean(buf);
            BlockReport report = null;
            if (Wire.readBoolean(buf)) {
                int blockSize = Wire.readInt(buf, 1, Integer.MAX_VALUE, "report block size");
                int n = Wire.readInt(buf, 0, Integer.MAX_VALUE / Integer.BYTES, "report slots");
                Wire.need(buf, n * Integer.BYTES); // before the array is sized by the count
                int[] generations = new int[n];
                for (int i = 0; i < n; i++) {
                    generations[i] = buf.readInt();
                }
                report = new BlockReport(blockSize, generations);
            }
            List<LostRegion> lost = LostRegion.decode(buf);
            Wire.end(buf);
            RegisterRequest r = new RegisterRequest(high, low, host, port, storageClass, regionSize, regionCount,
                    firstRegion, regionStride, intact, shortCircuit, report, lost);
            if (r.regionSize <= 0) {
                throw new MalformedMessageException("regionSize " + r.regionSize);
            }
            if (r.regionCount > 0 && r.lastRegion() >= MAX_REGIONS) {
                throw new MalformedMessageException("last region " + r.firstRegion + " + " + (r.regionCount - 1)
                        + " * " + r.regionStride + " = " + r.lastRegion() + " outside 0.." + (MAX_REGIONS - 1));
            }
            return r;
        }

        /** The id of the {@code i}-th region registered ({@code 0 <= i < regionCount}; valid requests only). */
        public int regionId(int i) {
            return firstRegion + i * regionStride;
        }

        /** The id of the last region registered, in a long: an invalid request may overflow an int. */
        private long lastRegion() {
            return firstRegion + (long) (regionCount - 1) * regionStride;
        }
    }

    /** REGISTER_DATANODE response. */
    public record RegisterResponse(int datanodeId, int blockSize, BlockKeys keys, boolean resetGenerations) {
        public RegisterResponse {
            Objects.requireNonNull(keys, "keys");
        }

        public void encode(ByteBuf buf) {
            buf.writeInt(datanodeId);
            buf.writeInt(blockSize);
            keys.encode(buf);
            Wire.writeBoolean(buf, resetGenerations);
        }

        public static RegisterResponse decode(ByteBuf buf) {
            RegisterResponse r = new RegisterResponse(Wire.readInt(buf), Wire.readInt(buf), BlockKeys.decode(buf),
                    Wire.readBoolean(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * The block keys a namenode hands a datanode ({@link BlockTokens#keysToHold}), with the
     * fingerprint of the master key they come from; {@link #NONE} in a heartbeat answer that
     * changes nothing.
     */
    public record BlockKeys(long fingerprint, List<BlockTokens.EpochKey> keys) {
        /** No keys: the datanode keeps the ones it holds. */
        public static final BlockKeys NONE = new BlockKeys(0, List.of());

        public BlockKeys {
            keys = List.copyOf(keys);
            if (keys.size() > BlockTokens.MAX_KEYS) {
                throw new IllegalArgumentException(keys.size() + " block keys: at most " + BlockTokens.MAX_KEYS);
            }
        }

        /** The keys a datanode of {@code tokens}'s namenode needs now. */
        public static BlockKeys of(BlockTokens tokens) {
            return new BlockKeys(tokens.fingerprint(), tokens.keysToHold());
        }

        public void encode(ByteBuf buf) {
            buf.writeLong(fingerprint);
            buf.writeByte(keys.size());
            for (BlockTokens.EpochKey k : keys) {
                buf.writeInt(k.id());
                buf.writeLong(k.k0());
                buf.writeLong(k.k1());
            }
        }

        public static BlockKeys decode(ByteBuf buf) {
            long fingerprint = Wire.readLong(buf);
            int n = Wire.readUnsignedByte(buf);
            if (n > BlockTokens.MAX_KEYS) {
                throw new MalformedMessageException(n + " block keys: at most " + BlockTokens.MAX_KEYS);
            }
            List<BlockTokens.EpochKey> keys = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                keys.add(new BlockTokens.EpochKey(Wire.readInt(buf), Wire.readLong(buf), Wire.readLong(buf)));
            }
            return new BlockKeys(fingerprint, keys);
        }
    }

    /** Most groups one heartbeat may list as hosted (or led); a datanode hosts far fewer. */
    public static final int MAX_HOSTED_GROUPS = 1 << 20;

    /**
     * HEARTBEAT request: who the datanode is, the groups of the receiving namenode's partition it
     * hosts, which of them it leads (with the term it leads in) and which stopped there (with why);
     * then what changed in its storage since its block report: the regions of the receiving
     * namenode's share it took out of service since it started ({@link LostRegion}, every heartbeat
     * until it restarts, so a heartbeat lost on the way loses nothing).
     */
    public record HeartbeatRequest(int datanodeId, long storageIdHigh, long storageIdLow, List<Long> hostedGroups,
                                   List<LeaderReport> leading, List<FailedGroup> failed, List<LostRegion> lostRegions) {
        public HeartbeatRequest {
            hostedGroups = List.copyOf(hostedGroups);
            leading = List.copyOf(leading);
            failed = List.copyOf(failed);
            lostRegions = List.copyOf(lostRegions);
        }

        /** A heartbeat that reports no lost region. */
        public HeartbeatRequest(int datanodeId, long storageIdHigh, long storageIdLow, List<Long> hostedGroups,
                                List<LeaderReport> leading, List<FailedGroup> failed) {
            this(datanodeId, storageIdHigh, storageIdLow, hostedGroups, leading, failed, List.of());
        }

        /** A heartbeat without failed groups. */
        public HeartbeatRequest(int datanodeId, long storageIdHigh, long storageIdLow, List<Long> hostedGroups,
                                List<LeaderReport> leading) {
            this(datanodeId, storageIdHigh, storageIdLow, hostedGroups, leading, List.of(), List.of());
        }

        /** A heartbeat of a datanode hosting no group. */
        public HeartbeatRequest(int datanodeId, long storageIdHigh, long storageIdLow) {
            this(datanodeId, storageIdHigh, storageIdLow, List.of(), List.of(), List.of(), List.of());
        }

        public void encode(ByteBuf buf) {
            buf.writeInt(datanodeId);
            buf.writeLong(storageIdHigh);
            buf.writeLong(storageIdLow);
            buf.writeInt(hostedGroups.size());
            for (long id : hostedGroups) {
                buf.writeLong(id);
            }
            buf.writeInt(leading.size());
            for (LeaderReport r : leading) {
                buf.writeLong(r.groupId());
                buf.writeInt(r.leaderMemberId());
                buf.writeLong(r.term());
                buf.writeByte(r.members().size());
                for (int m : r.members()) {
                    buf.writeInt(m);
                }
            }
            buf.writeInt(failed.size());
            for (FailedGroup f : failed) {
                buf.writeLong(f.groupId());
                Wire.writeString(buf, f.reason());
            }
            LostRegion.encode(buf, lostRegions);
        }

        public static HeartbeatRequest decode(ByteBuf buf) {
            int id = Wire.readInt(buf);
            long high = Wire.readLong(buf);
            long low = Wire.readLong(buf);
            int h = Wire.readInt(buf, 0, MAX_HOSTED_GROUPS, "hosted group count");
            // Sized by what the body can hold, not by the count it claims.
            List<Long> hosted = new ArrayList<>(Math.min(h, buf.readableBytes() / Long.BYTES));
            for (int i = 0; i < h; i++) {
                hosted.add(Wire.readLong(buf));
            }
            int l = Wire.readInt(buf, 0, MAX_HOSTED_GROUPS, "leader report count");
            List<LeaderReport> leading = new ArrayList<>(Math.min(l, buf.readableBytes() / LeaderReport.BYTES));
            for (int i = 0; i < l; i++) {
                long groupId = Wire.readLong(buf);
                int leader = Wire.readInt(buf);
                long term = Wire.readLong(buf);
                int m = Wire.readUnsignedByte(buf);
                Wire.need(buf, m * Integer.BYTES);
                List<Integer> members = new ArrayList<>(m);
                for (int j = 0; j < m; j++) {
                    members.add(Wire.readInt(buf));
                }
                leading.add(new LeaderReport(groupId, leader, term, members));
            }
            int f = Wire.readInt(buf, 0, MAX_HOSTED_GROUPS, "failed group count");
            List<FailedGroup> failed = new ArrayList<>(Math.min(f, buf.readableBytes() / FailedGroup.MIN_BYTES));
            for (int i = 0; i < f; i++) {
                failed.add(new FailedGroup(Wire.readLong(buf), Wire.readString(buf)));
            }
            List<LostRegion> lost = LostRegion.decode(buf);
            Wire.end(buf);
            return new HeartbeatRequest(id, high, low, hosted, leading, failed, lost);
        }
    }

    /**
     * A group hosted by a datanode that stopped there, and why ({@link #MAX_FAILURE_CHARS} characters
     * at most): its member neither votes nor acknowledges until the datanode is restarted.
     */
    public record FailedGroup(long groupId, String reason) {
        static final int MIN_BYTES = 8 + 2;

        public FailedGroup {
            reason = reason.length() > MAX_FAILURE_CHARS ? reason.substring(0, MAX_FAILURE_CHARS - 3) + "..." : reason;
        }
    }

    /** Longest reason a failed group's report carries. */
    public static final int MAX_FAILURE_CHARS = 500;

    /**
     * A region a running datanode took out of service because its memory is gone (its file was cut
     * short under the mapping), and why ({@link #MAX_FAILURE_CHARS} characters at most): every block
     * in it is lost, and nothing may be allocated there until the datanode restarts.
     */
    public record LostRegion(int regionId, String reason) {
        static final int MIN_BYTES = 4 + 2;

        public LostRegion {
            reason = reason.length() > MAX_FAILURE_CHARS ? reason.substring(0, MAX_FAILURE_CHARS - 3) + "..." : reason;
        }

        static void encode(ByteBuf buf, List<LostRegion> regions) {
            buf.writeInt(regions.size());
            for (LostRegion r : regions) {
                buf.writeInt(r.regionId());
                Wire.writeString(buf, r.reason());
            }
        }

        static List<LostRegion> decode(ByteBuf buf) {
            int n = Wire.readInt(buf, 0, MAX_REGIONS, "lost region count");
            // Sized by what the body can hold, not by the count it claims.
            List<LostRegion> out = new ArrayList<>(Math.min(n, buf.readableBytes() / MIN_BYTES));
            for (int i = 0; i < n; i++) {
                out.add(new LostRegion(Wire.readInt(buf, 0, MAX_REGIONS - 1, "lost region"), Wire.readString(buf)));
            }
            return out;
        }
    }

    /**
     * A datanode leads group {@code groupId} as member {@code leaderMemberId} in {@code term}, and
     * its replicas applied the configuration {@code members} (empty when not known).
     */
    public record LeaderReport(long groupId, int leaderMemberId, long term, List<Integer> members) {
        static final int BYTES = 8 + 4 + 8 + 1;

        public LeaderReport {
            members = List.copyOf(members);
            if (members.size() > 255) {
                throw new IllegalArgumentException("a configuration of " + members.size() + " members");
            }
        }

        /** A report that does not say the configuration. */
        public LeaderReport(long groupId, int leaderMemberId, long term) {
            this(groupId, leaderMemberId, term, List.of());
        }
    }

    /** What a namenode tells a datanode about block groups in a heartbeat answer. */
    public sealed interface GroupCommand permits CreateGroup, DeleteGroup, ChangeGroup {
        /** The group concerned. */
        long groupId();
    }

    /**
     * Host this datanode's replica of a new group, as member {@code self}; {@code campaign}: stand
     * for election at once (the first leader of a new group). A no-op for a group hosted already.
     */
    public record CreateGroup(BlockGroup group, int self, boolean campaign) implements GroupCommand {
        @Override
        public long groupId() {
            return group.groupId();
        }
    }

    /** Stop hosting the group and delete its journal. A no-op for a group not hosted. */
    public record DeleteGroup(long groupId) implements GroupCommand {
    }

    /**
     * A member is being replaced: the group's membership is to become {@code target} (one member
     * out, one in, the next version). Each member's datanode learns the new member's address; the
     * leader's proposes the configuration changes that lead there, one member at a time, removal
     * first. Repeated until the leader reports the target applied; a no-op for a group not hosted.
     */
    public record ChangeGroup(BlockGroup target) implements GroupCommand {
        @Override
        public long groupId() {
            return target.groupId();
        }
    }

    /** HEARTBEAT response: the group commands for this datanode (at most {@link #MAX_GROUP_COMMANDS}). */
    public record HeartbeatResponse(List<GroupCommand> commands, boolean reportAgain, BlockKeys keys) {
        /** Most commands one heartbeat answer carries; the rest follow in later answers. */
        public static final int MAX_GROUP_COMMANDS = 256;
        private static final int CREATE = 1;
        private static final int DELETE = 2;
        private static final int CHANGE = 3;

        public HeartbeatResponse {
            commands = List.copyOf(commands);
            Objects.requireNonNull(keys, "keys");
        }

        /** An answer that does not ask for another block report and hands no keys. */
        public HeartbeatResponse(List<GroupCommand> commands) {
            this(commands, false, BlockKeys.NONE);
        }

        /** This answer, asking the datanode to register again now with a new block report. */
        public HeartbeatResponse askingForAReport() {
            return new HeartbeatResponse(commands, true, keys);
        }

        /** This answer, handing the datanode {@code k}. */
        public HeartbeatResponse withKeys(BlockKeys k) {
            return new HeartbeatResponse(commands, reportAgain, k);
        }

        public void encode(ByteBuf buf) {
            buf.writeInt(commands.size());
            for (GroupCommand c : commands) {
                if (c instanceof CreateGroup create) {
                    buf.writeByte(CREATE);
                    NamenodeProtocol.writeGroup(buf, create.group());
                    buf.writeInt(create.self());
                    Wire.writeBoolean(buf, create.campaign());
                } else if (c instanceof ChangeGroup change) {
                    buf.writeByte(CHANGE);
                    NamenodeProtocol.writeGroup(buf, change.target());
                } else {
                    buf.writeByte(DELETE);
                    buf.writeLong(c.groupId());
                }
            }
            Wire.writeBoolean(buf, reportAgain);
            keys.encode(buf);
        }

        public static HeartbeatResponse decode(ByteBuf buf) {
            int n = Wire.readInt(buf, 0, MAX_GROUP_COMMANDS, "group command count");
            List<GroupCommand> out = new ArrayList<>(Math.min(n, buf.readableBytes() / 9));
            for (int i = 0; i < n; i++) {
                int kind = Wire.readUnsignedByte(buf);
                switch (kind) {
                    case CREATE -> {
                        BlockGroup g = NamenodeProtocol.readGroup(buf);
                        int self = Wire.readInt(buf);
                        if (g.member(self) == null) {
                            throw new MalformedMessageException("CreateGroup of group " + g.groupId() + " names member "
                                    + self + ", which is not in the group");
                        }
                        out.add(new CreateGroup(g, self, Wire.readBoolean(buf)));
                    }
                    case DELETE -> out.add(new DeleteGroup(Wire.readLong(buf)));
                    case CHANGE -> out.add(new ChangeGroup(NamenodeProtocol.readGroup(buf)));
                    default -> throw new MalformedMessageException("unknown group command kind " + kind);
                }
            }
            boolean reportAgain = Wire.readBoolean(buf);
            BlockKeys keys = BlockKeys.decode(buf);
            Wire.end(buf);
            return new HeartbeatResponse(out, reportAgain, keys);
        }
    }

    /**
     * DEREGISTER_DATANODE request: sent once by a datanode that stops cleanly, while it is registered.
     * The decoder rejects negative ids, which no namenode grants.
     */
    public record DeregisterRequest(int datanodeId, long storageIdHigh, long storageIdLow, boolean dataKept) {
        public void encode(ByteBuf buf) {
            buf.writeInt(datanodeId);
            buf.writeLong(storageIdHigh);
            buf.writeLong(storageIdLow);
            Wire.writeBoolean(buf, dataKept);
        }

        public static DeregisterRequest decode(ByteBuf buf) {
            DeregisterRequest r = new DeregisterRequest(Wire.readInt(buf, 0, Integer.MAX_VALUE, "datanodeId"),
                    Wire.readLong(buf), Wire.readLong(buf), Wire.readBoolean(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * One datanode as the namenode sees it. {@code state} is {@link #SILENT}, {@link #ALIVE},
     * {@link #STOPPED} or {@link #UNREACHABLE} (one byte; 0 and 1 keep the layout of the earlier alive flag);
     * {@code shortCircuit} is what the datanode said at its last registration.
     */
    public record DatanodeStatus(int id, String host, int port, int storageClass, int state, long capacityBlocks,
                                 long freeBlocks, long silenceMs, boolean shortCircuit, int groups) {
        /** A datanode in no block group. */
        public DatanodeStatus(int id, String host, int port, int storageClass, int state, long capacityBlocks,
                              long freeBlocks, long silenceMs, boolean shortCircuit) {
            this(id, host, port, storageClass, state, capacityBlocks, freeBlocks, silenceMs, shortCircuit, 0);
        }

        /** A datanode that offers no short-circuit access. */
        public DatanodeStatus(int id, String host, int port, int storageClass, int state, long capacityBlocks,
                              long freeBlocks, long silenceMs) {
            this(id, host, port, storageClass, state, capacityBlocks, freeBlocks, silenceMs, false);
        }

        /** Dead: silent for longer than the datanode timeout. */
        public static final int SILENT = 0;
        /** Heartbeating; blocks are allocated on it. */
        public static final int ALIVE = 1;
        /** Dead: it deregistered when it shut down. */
        public static final int STOPPED = 2;
        /**
         * Heartbeating as far as the namenode knows, but a client could not reach it: left out of
         * allocation until it heartbeats again after the report (its blocks are still served).
         */
        public static final int UNREACHABLE = 3;
        /**
         * Known from the namenode's journal, but not registered since the namenode restarted: its
         * blocks are not served until it does (it registers at its next heartbeat).
         */
        public static final int UNREGISTERED = 4;

        public DatanodeStatus {
            if (state < SILENT || state > UNREGISTERED) {
                throw new IllegalArgumentException("unknown datanode state " + state);
            }
        }

        public boolean alive() {
            return state == ALIVE;
        }

        /** "alive", "silent", "stopped", "unreachable" or "unregistered". */
        public String stateName() {
            return stateName(state);
        }

        /** The name of a datanode state: "alive", "silent", "stopped" or "unreachable". */
        static String stateName(int state) {
            return switch (state) {
                case ALIVE -> "alive";
                case STOPPED -> "stopped";
                case UNREACHABLE -> "unreachable";
                case UNREGISTERED -> "unregistered";
                default -> "silent";
            };
        }

        void encode(ByteBuf buf) {
            buf.writeInt(id);
            Wire.writeString(buf, host);
            buf.writeShort(port);
            buf.writeByte(storageClass);
            buf.writeByte(state);
            buf.writeLong(capacityBlocks);
            buf.writeLong(freeBlocks);
            buf.writeLong(silenceMs);
            Wire.writeBoolean(buf, shortCircuit);
            buf.writeInt(groups);
        }

        static DatanodeStatus decode(ByteBuf buf) {
            int id = Wire.readInt(buf);
            String host = Wire.readString(buf);
            int port = Wire.readUnsignedShort(buf);
            int storageClass = Wire.readUnsignedByte(buf);
            int state = readState(buf, UNREGISTERED, "datanode");
            return new DatanodeStatus(id, host, port, storageClass, state, Wire.readLong(buf), Wire.readLong(buf),
                    Wire.readLong(buf), Wire.readBoolean(buf), Wire.readInt(buf, 0, Integer.MAX_VALUE, "groups"));
        }
    }

    /** A state byte from 0 to {@code max}; "unknown {what} state 9" otherwise. */
    private static int readState(ByteBuf buf, int max, String what) {
        int state = Wire.readUnsignedByte(buf);
        if (state > max) {
            throw new MalformedMessageException("unknown " + what + " state " + state);
        }
        return state;
    }

    /** Most degraded groups one CLUSTER_STATUS answer details; the count covers them all. */
    public static final int MAX_DEGRADED_GROUPS = 100;

    /**
     * One member of a block group as the namenode sees it: its datanode (the namenode's id and the
     * address it serves at), that datanode's {@link DatanodeStatus} state, or {@link #LOST} when the
     * datanode no longer holds the group's region, or {@link #FAILED} when the datanode is alive but
     * the group stopped there ({@code failure} says why; null in every other state), and how long ago
     * the namenode last heard from it (for a stopped datanode: since it deregistered).
     */
    public record MemberHealth(int memberId, int datanodeId, String host, int port, int state, long lastHeardMs,
                               String failure) {
        /** The datanode came back, or stopped, without the group's region: this member's copy is gone. */
        public static final int LOST = 4;
        /** The datanode is alive but the group stopped there ({@link #failure} says why). */
        public static final int FAILED = 5;

        public MemberHealth {
            if (state < DatanodeStatus.SILENT || state > FAILED) {
                throw new IllegalArgumentException("unknown member state " + state);
            }
            if ((state == FAILED) != (failure != null)) {
                throw new IllegalArgumentException("a failure reason goes with state FAILED, and only with it");
            }
        }

        /** A member that has not failed. */
        public MemberHealth(int memberId, int datanodeId, String host, int port, int state, long lastHeardMs) {
            this(memberId, datanodeId, host, port, state, lastHeardMs, null);
        }

        /** True when the member holds its copy on a datanode that is alive and reachable. */
        public boolean up() {
            return state == DatanodeStatus.ALIVE;
        }

        /** "alive", "silent", "stopped", "unreachable", "lost" or "failed". */
        public String stateName() {
            return state == LOST ? "lost" : state == FAILED ? "failed" : DatanodeStatus.stateName(state);
        }

        void encode(ByteBuf buf) {
            buf.writeInt(memberId);
            buf.writeInt(datanodeId);
            Wire.writeString(buf, host);
            buf.writeShort(port);
            buf.writeByte(state);
            buf.writeLong(lastHeardMs);
        }

        static MemberHealth decode(ByteBuf buf) {
            int member = Wire.readInt(buf);
            int datanode = Wire.readInt(buf);
            String host = Wire.readString(buf);
            int port = Wire.readUnsignedShort(buf);
            int state = readState(buf, FAILED, "member");
            long heard = Wire.readLong(buf);
            // A failed member's reason follows the groups (version 2): "" until it is read.
            return new MemberHealth(member, datanode, host, port, state, heard, state == FAILED ? "" : null);
        }

        MemberHealth withFailure(String reason) {
            return new MemberHealth(memberId, datanodeId, host, port, state, lastHeardMs, reason);
        }
    }

    /** A block group with at least one member that is not {@link MemberHealth#up}, with every member's state. */
    public record DegradedGroup(long groupId, List<MemberHealth> members, Replacement replacement) {
        public DegradedGroup {
            members = List.copyOf(members);
            if (members.isEmpty() || members.size() > NamenodeProtocol.MAX_GROUP_MEMBERS) {
                throw new IllegalArgumentException("a group has 1 to " + NamenodeProtocol.MAX_GROUP_MEMBERS
                        + " members, not " + members.size());
            }
        }

        /** A group with no replacement under way. */
        public DegradedGroup(long groupId, List<MemberHealth> members) {
            this(groupId, members, null);
        }

        /** The members that are not up. */
        public List<MemberHealth> down() {
            return members.stream().filter(m -> !m.up()).toList();
        }

        void encode(ByteBuf buf) {
            buf.writeLong(groupId);
            buf.writeByte(members.size());
            for (MemberHealth m : members) {
                m.encode(buf);
            }
        }

        static DegradedGroup decode(ByteBuf buf) {
            long id = Wire.readLong(buf);
            int m = Wire.readUnsignedByte(buf);
            if (m < 1 || m > NamenodeProtocol.MAX_GROUP_MEMBERS) {
                throw new MalformedMessageException("group " + id + " has " + m + " members; 1.."
                        + NamenodeProtocol.MAX_GROUP_MEMBERS + " expected");
            }
            List<MemberHealth> members = new ArrayList<>(m);
            for (int i = 0; i < m; i++) {
                members.add(MemberHealth.decode(buf));
            }
            return new DegradedGroup(id, members);
        }
    }

    /**
     * The replacement of a member under way in a group (repair progress): the member leaving, the
     * one joining and the datanode it joins on, and how long ago the namenode began it. Version 3
     * of the replication section.
     */
    public record Replacement(int removedMemberId, int addedMemberId, int datanodeId, String host, int port,
                              long forMs) {
        void encode(ByteBuf buf) {
            buf.writeInt(removedMemberId);
            buf.writeInt(addedMemberId);
            buf.writeInt(datanodeId);
            Wire.writeString(buf, host);
            buf.writeShort(port);
            buf.writeLong(forMs);
        }

        static Replacement decode(ByteBuf buf) {
            return new Replacement(Wire.readInt(buf), Wire.readInt(buf), Wire.readInt(buf), Wire.readString(buf),
                    Wire.readUnsignedShort(buf), Wire.readLong(buf));
        }
    }

    /**
     * The replication part of CLUSTER_STATUS: how many of the namenode's block groups have a member
     * that is down ({@code underReplicated}), and the first {@link #MAX_DEGRADED_GROUPS} of them by
     * group id. It travels as a section with its own length and version, so that a later version
     * can append fields that this decoder skips: {@code length[i32] version[u8] underReplicated[i64]
     * n[i32] DegradedGroup*n}, then (version 2) {@code r[i32] (groupId[i64] memberId[i32]
     * reason[string])*r} for failed members, then (version 3) {@code p[i32] (groupId[i64]
     * Replacement)*p} for replacements under way.
     */
    public record ReplicationHealth(long underReplicated, List<DegradedGroup> degraded) {
        /** No group has a member down. */
        public static final ReplicationHealth HEALTHY = new ReplicationHealth(0, List.of());
        /** The layout this build writes. */
        static final int VERSION = 3;

        public ReplicationHealth {
            degraded = List.copyOf(degraded);
            if (degraded.size() > MAX_DEGRADED_GROUPS || underReplicated < degraded.size()) {
                throw new IllegalArgumentException(degraded.size() + " degraded groups listed of " + underReplicated
                        + " (at most " + MAX_DEGRADED_GROUPS + ")");
            }
        }

        void encode(ByteBuf buf) {
            int lengthAt = buf.writerIndex();
            buf.writeInt(0);
            buf.writeByte(VERSION);
            buf.writeLong(underReplicated);
            buf.writeInt(degraded.size());
            for (DegradedGroup g : degraded) {
                g.encode(buf);
            }
            int countAt = buf.writerIndex();
            buf.writeInt(0);
            int failures = 0;
            for (DegradedGroup g : degraded) {
                for (MemberHealth m : g.members()) {
                    if (m.failure() != null) {
                        buf.writeLong(g.groupId());
                        buf.writeInt(m.memberId());
                        Wire.writeString(buf, m.failure());
                        failures++;
                    }
                }
            }
            buf.setInt(countAt, failures);
            int replacingAt = buf.writerIndex();
            buf.writeInt(0);
            int replacing = 0;
            for (DegradedGroup g : degraded) {
                if (g.replacement() != null) {
                    buf.writeLong(g.groupId());
                    g.replacement().encode(buf);
                    replacing++;
                }
            }
            buf.setInt(replacingAt, replacing);
            buf.setInt(lengthAt, buf.writerIndex() - lengthAt - Integer.BYTES);
        }

        static ReplicationHealth decode(ByteBuf buf) {
            int length = Wire.readInt(buf, 1, Integer.MAX_VALUE, "replication section length");
            Wire.need(buf, length);
            int end = buf.readerIndex() + length;
            int version = Wire.readUnsignedByte(buf);
            if (version < 1) {
                throw new MalformedMessageException("replication section version " + version);
            }
            ByteBuf section = buf.readSlice(length - 1);
            long under = Wire.readLong(section);
            int n = Wire.readInt(section, 0, MAX_DEGRADED_GROUPS, "degraded group count");
            if (under < n) {
                throw new MalformedMessageException(n + " degraded groups listed of " + under);
            }
            List<DegradedGroup> groups = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                groups.add(DegradedGroup.decode(section));
            }
            if (version >= 2) {
                int r = Wire.readInt(section, 0, n * NamenodeProtocol.MAX_GROUP_MEMBERS, "failure reason count");
                for (int i = 0; i < r; i++) {
                    long group = Wire.readLong(section);
                    int member = Wire.readInt(section);
                    String reason = Wire.readString(section);
                    groups = withFailure(groups, group, member, reason);
                }
            }
            if (version >= 3) {
                int r = Wire.readInt(section, 0, n, "replacement count");
                for (int i = 0; i < r; i++) {
                    long group = Wire.readLong(section);
                    Replacement replacement = Replacement.decode(section);
                    groups = withReplacement(groups, group, replacement);
                }
            }
            if (version == VERSION) {
                Wire.end(section); // a later version may append; this one may not
            }
            buf.readerIndex(end);
            return new ReplicationHealth(under, groups);
        }

        /** {@code groups} with {@code group}'s replacement under way; malformed if the group is not listed. */
        private static List<DegradedGroup> withReplacement(List<DegradedGroup> groups, long group,
                                                           Replacement replacement) {
            for (int i = 0; i < groups.size(); i++) {
                DegradedGroup g = groups.get(i);
                if (g.groupId() == group) {
                    groups.set(i, new DegradedGroup(group, g.members(), replacement));
                    return groups;
                }
            }
            throw new MalformedMessageException("a replacement for group " + group + ", which is not listed");
        }

        /** {@code groups} with the reason of failed member {@code member} of {@code group}; malformed if none is. */
        private static List<DegradedGroup> withFailure(List<DegradedGroup> groups, long group, int member,
                                                       String reason) {
            for (int i = 0; i < groups.size(); i++) {
                DegradedGroup g = groups.get(i);
                if (g.groupId() != group) {
                    continue;
                }
                List<MemberHealth> members = new ArrayList<>(g.members());
                for (int j = 0; j < members.size(); j++) {
                    MemberHealth m = members.get(j);
                    if (m.memberId() == member && m.state() == MemberHealth.FAILED) {
                        members.set(j, m.withFailure(reason));
                        groups.set(i, new DegradedGroup(group, members, g.replacement()));
                        return groups;
                    }
                }
            }
            throw new MalformedMessageException("a failure reason for member " + member + " of group " + group
                    + ", which is not listed as failed");
        }
    }

    /**
     * A member of a replicated namenode group as its leader sees it, in CLUSTER_STATUS.
     *
     * @param id         the member's id (its place in the partition's entry of tarn.namenode.address)
     * @param address    the member's host:port
     * @param heardAgoMs how long ago the leader last heard from it (0 for the leader itself, -1: never)
     * @param inSync     whether the leader knows it votes and holds the leader's log
     */
    public record NamenodeMemberStatus(int id, String address, long heardAgoMs, boolean inSync) {
        public NamenodeMemberStatus {
            Objects.requireNonNull(address, "address");
        }
    }

    /**
     * The replicated group a namenode leads, in CLUSTER_STATUS: which member answered (the leader),
     * its term and every member as it sees them.
     */
    public record NamenodeGroupStatus(int leader, long term, List<NamenodeMemberStatus> members) {
        public NamenodeGroupStatus {
            members = List.copyOf(members);
        }

        /** The leader's address, or "?" when the members do not name it. */
        public String leaderAddress() {
            return members.stream().filter(m -> m.id() == leader).map(NamenodeMemberStatus::address).findFirst()
                    .orElse("?");
        }
    }

    /**
     * A namenode's namespace journal in CLUSTER_STATUS, a section of its own after the replication
     * section: {@code length[i32] version[u8] = 2 disk[bool] directory lastSeq[i64] checkpointSeq[i64]
     * checkpointAgeMs[i64] failure group[bool]}, and with a group {@code leader[i32] term[i64]
     * count[i32] (id[i32] address heardAgoMs[i64] inSync[bool])*} (strings as {@code Wire}; an empty
     * failure when it works). Version 1 ends after the failure; a reader takes what its version knows
     * and skips the rest of the section. Every status carries it ({@link #NONE} without a journal);
     * one cut before it is malformed, as any cut is.
     *
     * @param disk            whether the namenode journals to disk ({@code tarn.namenode.journal})
     * @param directory       the journal's directory ("" without one)
     * @param lastSeq         the last record appended
     * @param checkpointSeq   the record the newest checkpoint covers (0: none)
     * @param checkpointAgeMs how long ago that checkpoint was written or found at start (-1: none)
     * @param failure         why the journal takes no records ("" while it works)
     * @param group           the replicated group this namenode leads, or null for a namenode on its own
     */
    public record JournalHealth(boolean disk, String directory, long lastSeq, long checkpointSeq,
                                long checkpointAgeMs, String failure, NamenodeGroupStatus group) {
        static final int VERSION = 2;
        /** A namenode without a journal. */
        public static final JournalHealth NONE = new JournalHealth(false, "", 0, 0, -1, "");

        public JournalHealth {
            Objects.requireNonNull(directory, "directory");
            Objects.requireNonNull(failure, "failure");
        }

        /** The journal of a namenode on its own. */
        public JournalHealth(boolean disk, String directory, long lastSeq, long checkpointSeq, long checkpointAgeMs,
                             String failure) {
            this(disk, directory, lastSeq, checkpointSeq, checkpointAgeMs, failure, null);
        }

        /** True when the journal failed: the namenode refuses every change. */
        public boolean failed() {
            return !failure.isEmpty();
        }

        void encode(ByteBuf buf) {
            int lengthAt = buf.writerIndex();
            buf.writeInt(0);
            buf.writeByte(VERSION);
            Wire.writeBoolean(buf, disk);
            Wire.writeString(buf, directory);
            buf.writeLong(lastSeq);
            buf.writeLong(checkpointSeq);
            buf.writeLong(checkpointAgeMs);
            Wire.writeString(buf, failure);
            Wire.writeBoolean(buf, group != null);
            if (group != null) {
                buf.writeInt(group.leader());
                buf.writeLong(group.term());
                buf.writeInt(group.members().size());
                for (NamenodeMemberStatus m : group.members()) {
                    buf.writeInt(m.id());
                    Wire.writeString(buf, m.address());
                    buf.writeLong(m.heardAgoMs());
                    Wire.writeBoolean(buf, m.inSync());
                }
            }
            buf.setInt(lengthAt, buf.writerIndex() - lengthAt - Integer.BYTES);
        }

        static JournalHealth decode(ByteBuf buf) {
            int length = Wire.readInt(buf, 1, Integer.MAX_VALUE, "journal section length");
            Wire.need(buf, length);
            int version = Wire.readUnsignedByte(buf);
            if (version < 1) {
                throw new MalformedMessageException("journal section version " + version);
            }
            ByteBuf section = buf.readSlice(length - 1);
            boolean disk = Wire.readBoolean(section);
            String directory = Wire.readString(section);
            long lastSeq = Wire.readLong(section);
            long checkpointSeq = Wire.readLong(section);
            long checkpointAge = Wire.readLong(section);
            String failure = Wire.readString(section);
            NamenodeGroupStatus group = null;
            if (version >= 2 && Wire.readBoolean(section)) {
                int leader = Wire.readInt(section);
                long term = Wire.readLong(section);
                int n = Wire.readInt(section, 0, section.readableBytes(), "group member count");
                List<NamenodeMemberStatus> members = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    members.add(new NamenodeMemberStatus(Wire.readInt(section), Wire.readString(section),
                            Wire.readLong(section), Wire.readBoolean(section)));
                }
                group = new NamenodeGroupStatus(leader, term, members);
            }
            return new JournalHealth(disk, directory, lastSeq, checkpointSeq, checkpointAge, failure, group);
        }
    }

    /**
     * CLUSTER_STATUS response; {@code damagedFiles}: files with a lost or unavailable block at the last
     * scan; {@code blockGroups}: the replicated block groups this namenode placed; {@code replication}:
     * those of them with a member down; {@code journal}: its namespace journal.
     */
    public record ClusterStatus(long uptimeMs, long files, long directories, long operations, int blockSize,
                                List<DatanodeStatus> datanodes, long damagedFiles, long blockGroups,
                                ReplicationHealth replication, JournalHealth journal) {
        public ClusterStatus {
            datanodes = List.copyOf(datanodes);
            Objects.requireNonNull(replication, "replication");
            Objects.requireNonNull(journal, "journal");
        }

        /** A status of a namenode without a journal. */
        public ClusterStatus(long uptimeMs, long files, long directories, long operations, int blockSize,
                             List<DatanodeStatus> datanodes, long damagedFiles, long blockGroups,
                             ReplicationHealth replication) {
            this(uptimeMs, files, directories, operations, blockSize, datanodes, damagedFiles, blockGroups,
                    replication, JournalHealth.NONE);
        }

        /** A status in which no block group has a member down. */
        public ClusterStatus(long uptimeMs, long files, long directories, long operations, int blockSize,
                             List<DatanodeStatus> datanodes, long damagedFiles, long blockGroups) {
            this(uptimeMs, files, directories, operations, blockSize, datanodes, damagedFiles, blockGroups,
                    ReplicationHealth.HEALTHY);
        }

        /** A status of a namenode without block groups. */
        public ClusterStatus(long uptimeMs, long files, long directories, long operations, int blockSize,
                             List<DatanodeStatus> datanodes, long damagedFiles) {
            this(uptimeMs, files, directories, operations, blockSize, datanodes, damagedFiles, 0);
        }

        /** A status with no damaged file. */
        public ClusterStatus(long uptimeMs, long files, long directories, long operations, int blockSize,
                             List<DatanodeStatus> datanodes) {
            this(uptimeMs, files, directories, operations, blockSize, datanodes, 0);
        }

        public void encode(ByteBuf buf) {
            buf.writeLong(uptimeMs);
            buf.writeLong(files);
            buf.writeLong(directories);
            buf.writeLong(operations);
            buf.writeInt(blockSize);
            buf.writeInt(datanodes.size());
            for (DatanodeStatus d : datanodes) {
                d.encode(buf);
            }
            buf.writeLong(damagedFiles);
            buf.writeLong(blockGroups);
            replication.encode(buf);
            journal.encode(buf);
        }

        public static ClusterStatus decode(ByteBuf buf) {
            long up = Wire.readLong(buf);
            long files = Wire.readLong(buf);
            long dirs = Wire.readLong(buf);
            long ops = Wire.readLong(buf);
            int bs = Wire.readInt(buf);
            int n = Wire.readInt(buf, 0, buf.readableBytes(), "datanode count");
            List<DatanodeStatus> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(DatanodeStatus.decode(buf));
            }
            long damaged = Wire.readLong(buf);
            long groups = Wire.readLong(buf);
            ReplicationHealth replication = ReplicationHealth.decode(buf);
            JournalHealth journal = JournalHealth.decode(buf);
            Wire.end(buf);
            return new ClusterStatus(up, files, dirs, ops, bs, list, damaged, groups, replication, journal);
        }
    }

    /** Most damaged files one FSCK answer lists (a namenode keeps at most this many from its scan). */
    public static final int MAX_FSCK_FILES = 10_000;

    /** FSCK request: list at most {@code max} of the damaged files. */
    public record FsckRequest(int max) {
        public void encode(ByteBuf buf) {
            buf.writeInt(max);
        }

        public static FsckRequest decode(ByteBuf buf) {
            FsckRequest r = new FsckRequest(Wire.readInt(buf, 0, MAX_FSCK_FILES, "max files"));
            Wire.end(buf);
            return r;
        }
    }

    /** A file of which {@code lost} blocks are lost and {@code unavailable} are on a datanode that is down. */
    public record DamagedFile(String path, long fileId, int blocks, int lost, int unavailable) {
        void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
            buf.writeLong(fileId);
            buf.writeInt(blocks);
            buf.writeInt(lost);
            buf.writeInt(unavailable);
        }

        static DamagedFile decode(ByteBuf buf) {
            return new DamagedFile(Wire.readString(buf), Wire.readLong(buf), Wire.readInt(buf, 0, Integer.MAX_VALUE,
                    "blocks"), Wire.readInt(buf, 0, Integer.MAX_VALUE, "lost"),
                    Wire.readInt(buf, 0, Integer.MAX_VALUE, "unavailable"));
        }
    }

    /**
     * FSCK response: the namenode's last scan (when, in its clock's ms; 0 before the first) with its
     * totals, and the first of its damaged files in file table order.
     */
    public record FsckResponse(long scannedAtMs, long damagedFiles, long lostBlocks, long unavailableBlocks,
                               List<DamagedFile> files) {
        /** No scan has found anything. */
        public static final FsckResponse HEALTHY = new FsckResponse(0, 0, 0, 0, List.of());

        /** True when every block of every file could be read at the last scan. */
        public boolean healthy() {
            return damagedFiles == 0;
        }

        public void encode(ByteBuf buf) {
            buf.writeLong(scannedAtMs);
            buf.writeLong(damagedFiles);
            buf.writeLong(lostBlocks);
            buf.writeLong(unavailableBlocks);
            buf.writeInt(files.size());
            for (DamagedFile f : files) {
                f.encode(buf);
            }
        }

        public static FsckResponse decode(ByteBuf buf) {
            long at = Wire.readLong(buf);
            long damaged = Wire.readLong(buf);
            long lost = Wire.readLong(buf);
            long unavailable = Wire.readLong(buf);
            int n = Wire.readInt(buf, 0, MAX_FSCK_FILES, "file count");
            // Sized by what the body can hold, not by the count it claims.
            List<DamagedFile> files = new ArrayList<>(Math.min(n, buf.readableBytes() / MIN_DAMAGED_FILE_BYTES));
            for (int i = 0; i < n; i++) {
                files.add(DamagedFile.decode(buf));
            }
            Wire.end(buf);
            return new FsckResponse(at, damaged, lost, unavailable, files);
        }

        /** Encoded size of a damaged file with an empty path. */
        private static final int MIN_DAMAGED_FILE_BYTES = 2 + 8 + 4 * 3;
    }
}
