package io.tarn.common.protocol;

import io.tarn.common.security.BlockTokens;
import io.tarn.common.protocol.AdminProtocol.BlockKeys;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.protocol.AdminProtocol.BlockReport;
import io.tarn.common.protocol.AdminProtocol.JournalHealth;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.common.protocol.AdminProtocol.DegradedGroup;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.MemberHealth;
import io.tarn.common.protocol.AdminProtocol.NamenodeGroupStatus;
import io.tarn.common.protocol.AdminProtocol.NamenodeMemberStatus;
import io.tarn.common.protocol.AdminProtocol.ReplicationHealth;
import io.tarn.common.protocol.AdminProtocol.HeartbeatRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import static io.tarn.common.protocol.Bufs.encode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdminProtocolTest {

    private static RegisterRequest register(long regionSize, int regionCount) {
        return new RegisterRequest(1, 2, "dn-1", 9070, 0, regionSize, regionCount, 0, 1, false);
    }

    private static RegisterRequest share(int regionCount, int firstRegion, int regionStride) {
        return new RegisterRequest(1, 2, "dn-1", 9070, 0, 1 << 20, regionCount, firstRegion, regionStride, false);
    }

    @Test
    void registerRequestLayout() {
        RegisterRequest r = new RegisterRequest(0x1111L, 0x2222L, "dn", 9070, 1, 256L << 20, 4, 3, 5, true, false);
        ByteBuf b = Unpooled.wrappedBuffer(encode(r::encode));
        assertThat(b.readLong()).isEqualTo(0x1111L);
        assertThat(b.readLong()).isEqualTo(0x2222L);
        assertThat(b.readUnsignedShort()).isEqualTo(2);
        b.skipBytes(2);
        assertThat(b.readUnsignedShort()).isEqualTo(9070);
        assertThat(b.readUnsignedByte()).isEqualTo((short) 1);
        assertThat(b.readLong()).isEqualTo(256L << 20);
        assertThat(b.readInt()).isEqualTo(4);
        assertThat(b.readInt()).as("firstRegion").isEqualTo(3);
        assertThat(b.readInt()).as("regionStride").isEqualTo(5);
        assertThat(b.readBoolean()).as("intact").isTrue();
        assertThat(b.readBoolean()).as("shortCircuit").isFalse();
        assertThat(b.readBoolean()).as("a block report follows").isFalse();
        assertThat(b.readInt()).as("lost regions").isZero();
        assertThat(b.isReadable()).isFalse();
    }

    /** An intact datanode's block report rides on its registration; a count beyond the bytes is malformed. */
    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void aBlockReportRoundTripsAndIsBounded(Bufs.Kind kind) {
        int[] generations = {0, 7, 1, Integer.MAX_VALUE, 3, 0};
        RegisterRequest r = new RegisterRequest(1, 2, "dn", 9070, 0, 3L << 20, 2, 0, 1, true, true,
                new BlockReport(1 << 20, generations));
        RegisterRequest back = Bufs.decode(kind, encode(r::encode), RegisterRequest::decode);
        assertThat(back).isEqualTo(r);
        assertThat(back.report().generation(1, 0, 3)).isEqualTo(Integer.MAX_VALUE);
        byte[] bytes = encode(r::encode);
        ByteBuf lying = Unpooled.wrappedBuffer(bytes);
        // The slot count sits before the slots and the (empty) list of lost regions.
        lying.setInt(bytes.length - Integer.BYTES - generations.length * Integer.BYTES - Integer.BYTES,
                generations.length + 2);
        assertThatThrownBy(() -> Bufs.decode(kind, ByteBufUtil.getBytes(lying), RegisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class).hasMessageContaining("truncated");
        lying.setInt(bytes.length - Integer.BYTES - generations.length * Integer.BYTES - Integer.BYTES, -1);
        assertThatThrownBy(() -> Bufs.decode(kind, ByteBufUtil.getBytes(lying), RegisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class).hasMessageContaining("report slots");
    }

    @Test
    void fixedSizeMessages() {
        assertThat(encode(new RegisterResponse(1, 2, new BlockKeys(3, List.of(new BlockTokens.EpochKey(4, 5, 6))),
                true)::encode)).hasSize(4 + 4 + 8 + 1 + (4 + 8 + 8) + 1);
        assertThat(encode(new HeartbeatRequest(1, 2, 3)::encode)).hasSize(4 + 8 + 8 + 4 + 4 + 4 + 4);
        assertThat(encode(new DeregisterRequest(1, 2, 3, true)::encode)).hasSize(4 + 8 + 8 + 1);
        assertThat(encode(new ClusterStatus(1, 2, 3, 4, 5, List.of())::encode))
                .as("with an empty replication section: length, version, count of groups, of details, of reasons, "
                        + "of replacements")
                .hasSize(8 * 4 + 4 + 4 + 8 + 8 + 4 + 1 + 8 + 4 + 4 + 4
                        + NO_JOURNAL); // length, version, disk, directory "", three longs, failure ""
        assertThat(encode(b -> new DatanodeStatus(1, "ab", 2, 3, DatanodeStatus.ALIVE, 4, 5, 6).encode(b)))
                .hasSize(4 + 2 + 2 + 2 + 1 + 1 + 8 + 8 + 8 + 1 + 4);
    }

    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void registerRoundTripAtTheLimits(Bufs.Kind kind) {
        for (RegisterRequest r : List.of(register(1, 0), register(Long.MAX_VALUE, 1 << 24),
                new RegisterRequest(-1, Long.MIN_VALUE, "数据节点-7.example", 65535, 255, 64 << 10, 16, 3, 4, true),
                share(0, (1 << 24) - 1, 256), share(1, (1 << 24) - 1, 1), share(1 << 16, 255, 256),
                share((1 << 23) - 1, 1, 2))) {
            assertThat(Bufs.decode(kind, encode(r::encode), RegisterRequest::decode)).isEqualTo(r);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1, Long.MIN_VALUE})
    void nonPositiveRegionSizeIsMalformed(long size) {
        byte[] bytes = encode(register(size, 4)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, RegisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("regionSize " + size);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, (1 << 24) + 1, Integer.MAX_VALUE, Integer.MIN_VALUE})
    void regionCountOutOfRangeIsMalformed(int count) {
        byte[] bytes = encode(register(1 << 20, count)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.DIRECT, bytes, RegisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("regionCount = " + count + " outside 0.." + (1 << 24));
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 1 << 24, Integer.MAX_VALUE, Integer.MIN_VALUE})
    void firstRegionOutOfRangeIsMalformed(int first) {
        byte[] bytes = encode(share(1, first, 1)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, RegisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("firstRegion = " + first + " outside 0.." + ((1 << 24) - 1));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, 257, Integer.MAX_VALUE, Integer.MIN_VALUE})
    void regionStrideOutOfRangeIsMalformed(int stride) {
        byte[] bytes = encode(share(1, 0, stride)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.DIRECT, bytes, RegisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("regionStride = " + stride + " outside 1..256");
    }

    @Test
    void regionsBeyondTheLastRegionIdAreMalformed() {
        byte[] bytes = encode(share(1 << 16, 256, 256)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, RegisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("last region 256 + 65535 * 256 = 16777216 outside 0..16777215");
        byte[] overflowing = encode(share(1 << 24, (1 << 24) - 1, 256)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, overflowing, RegisterRequest::decode))
                .as("computed without int overflow")
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageStartingWith("last region 16777215 + 16777215 * 256 = 4311744255 outside");
    }

    @Test
    void regionIdsStepByTheStride() {
        RegisterRequest r = share(4, 1, 2);
        assertThat(List.of(r.regionId(0), r.regionId(1), r.regionId(3))).containsExactly(1, 3, 7);
    }

    @Test
    void badIntactFlagIsMalformed() {
        byte[] bytes = encode(register(1 << 20, 1)::encode);
        bytes[bytes.length - 1 - Integer.BYTES] = 2; // the last flag, before the (empty) list of lost regions
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, RegisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("boolean field holds 2");
    }

    @Test
    void badBooleansInResponsesAreMalformed() {
        byte[] resp = encode(new RegisterResponse(1, 2, BlockKeys.NONE, false)::encode);
        resp[resp.length - 1] = 9;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, resp, RegisterResponse::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("boolean field holds 9");

        byte[] status = encode(new ClusterStatus(1, 2, 3, 4, 5, List.of(Messages.datanode(1, "h")))::encode);
        int stateAt = 8 * 4 + 4 + 4 + 4 + 2 + 1 + 2 + 1; // header, count, id, host "h", port, class
        assertThat(status[stateAt]).isIn((byte) 0, (byte) 1, (byte) 2, (byte) 3);
        status[stateAt] = 4;
        assertThat(Bufs.decode(Bufs.Kind.HEAP, status, ClusterStatus::decode).datanodes().get(0).stateName())
                .isEqualTo("unregistered");
        status[stateAt] = 5;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, status, ClusterStatus::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("unknown datanode state 5");
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, Integer.MIN_VALUE, 1000})
    void datanodeCountBeyondTheBodyIsMalformed(int count) {
        ByteBuf b = Unpooled.buffer();
        b.writeLong(1).writeLong(2).writeLong(3).writeLong(4).writeInt(5).writeInt(count);
        assertThatThrownBy(() -> ClusterStatus.decode(b))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageStartingWith("datanode count = " + count + " outside 0..");
    }

    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void clusterStatusWithManyDatanodesRoundTrips(Bufs.Kind kind) {
        List<DatanodeStatus> dns = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            dns.add(Messages.datanode(i, "dn-" + i + ".rack-ä"));
        }
        ClusterStatus s = new ClusterStatus(123, 4, 5, 6, 1 << 20, dns);
        assertThat(Bufs.decode(kind, encode(s::encode), ClusterStatus::decode)).isEqualTo(s);
    }

    /** The namespace journal's section round-trips; a status without it, or cut in it, is malformed. */
    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void journalSectionRoundTripsAndMustBeThere(Bufs.Kind kind) {
        ClusterStatus s = new ClusterStatus(1, 2, 3, 4, 5, List.of(), 0, 0, ReplicationHealth.HEALTHY,
                new JournalHealth(true, "/data/nn-ä", 99, 50, 1_234, "namespace journal /data/nn-ä is full"));
        ClusterStatus back = Bufs.decode(kind, encode(s::encode), ClusterStatus::decode);
        assertThat(back).isEqualTo(s);
        assertThat(back.journal().failed()).isTrue();
        byte[] full = encode(new ClusterStatus(1, 2, 3, 4, 5, List.of())::encode);
        byte[] older = withoutJournal(full);
        assertThatThrownBy(() -> Bufs.decode(kind, older, ClusterStatus::decode))
                .isInstanceOf(MalformedMessageException.class);
        byte[] cut = Arrays.copyOf(full, full.length - 3);
        assertThatThrownBy(() -> Bufs.decode(kind, cut, ClusterStatus::decode))
                .isInstanceOf(MalformedMessageException.class);
    }

    /**
     * A group's leader reports the group with its journal (section version 2); a version 1 section,
     * which ends after the failure, still decodes (no group), and a reader of version 2 skips what a
     * later version appends to the section.
     */
    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void journalSectionCarriesTheGroupAndReadsOtherVersions(Bufs.Kind kind) {
        NamenodeGroupStatus group = new NamenodeGroupStatus(1, 7, List.of(
                new NamenodeMemberStatus(0, "h1:9060", 12, true),
                new NamenodeMemberStatus(1, "h2:9060", 0, true),
                new NamenodeMemberStatus(2, "h3:9060", -1, false)));
        ClusterStatus s = new ClusterStatus(1, 2, 3, 4, 5, List.of(), 0, 0, ReplicationHealth.HEALTHY,
                new JournalHealth(true, "the namespace log of the group of partition 0", 99, 50, 1_234, "", group));
        ClusterStatus back = Bufs.decode(kind, encode(s::encode), ClusterStatus::decode);
        assertThat(back).isEqualTo(s);
        assertThat(back.journal().group().leaderAddress()).isEqualTo("h2:9060");

        byte[] bare = withoutJournal(encode(new ClusterStatus(1, 2, 3, 4, 5, List.of())::encode));
        ByteBuf v1 = Unpooled.buffer().writeBytes(bare);
        v1.writeInt(NO_JOURNAL - 4 - 1).writeByte(1).writeByte(1).writeShort(2).writeBytes("/d".getBytes())
                .writeLong(9).writeLong(0).writeLong(-1).writeShort(0);
        v1.setInt(bare.length, v1.writerIndex() - bare.length - 4);
        ClusterStatus old = Bufs.decode(kind, ByteBufUtil.getBytes(v1), ClusterStatus::decode);
        assertThat(old.journal()).isEqualTo(new JournalHealth(true, "/d", 9, 0, -1, ""));
        assertThat(old.journal().group()).isNull();

        ByteBuf v3 = Unpooled.buffer().writeBytes(bare);
        v3.writeInt(0).writeByte(3).writeByte(1).writeShort(2).writeBytes("/d".getBytes())
                .writeLong(9).writeLong(0).writeLong(-1).writeShort(0).writeByte(0).writeLong(42);
        v3.setInt(bare.length, v3.writerIndex() - bare.length - 4);
        assertThat(Bufs.decode(kind, ByteBufUtil.getBytes(v3), ClusterStatus::decode).journal().lastSeq())
                .isEqualTo(9);
        v1.release();
        v3.release();
    }

    private static ClusterStatus withDegradedGroup() {
        DegradedGroup g = new DegradedGroup(42, List.of(
                new MemberHealth(0, 1, "h1", 9071, DatanodeStatus.ALIVE, 100),
                new MemberHealth(1, 2, "h2", 9072, DatanodeStatus.SILENT, 12_345),
                new MemberHealth(2, 3, "h3", 9073, MemberHealth.LOST, 50)));
        return new ClusterStatus(1, 2, 3, 4, 5, List.of(), 0, 7, new ReplicationHealth(3, List.of(g)));
    }

    /** The bytes of an empty journal section, which ends every status. */
    private static final int NO_JOURNAL = 4 + 1 + 1 + 2 + 8 * 3 + 2 + 1;

    /** A status without its (empty) journal section, so that the replication section ends it. */
    private static byte[] withoutJournal(byte[] status) {
        return Arrays.copyOf(status, status.length - NO_JOURNAL);
    }

    /** {@code status} with an empty journal section appended after it (undoes {@link #withoutJournal}). */
    private static byte[] withJournal(byte[] status) {
        ByteBuf b = Unpooled.buffer();
        b.writeBytes(status);
        b.writeInt(NO_JOURNAL - 4).writeByte(2).writeByte(0).writeShort(0).writeLong(0).writeLong(0).writeLong(-1)
                .writeShort(0).writeByte(0);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }

    @Test
    void replicationSectionLayout() {
        ByteBuf b = Unpooled.wrappedBuffer(withoutJournal(encode(withDegradedGroup()::encode)));
        b.skipBytes(8 * 4 + 4 + 4 + 8);
        assertThat(b.readLong()).as("blockGroups").isEqualTo(7);
        int length = b.readInt();
        assertThat(length).as("section length: what follows it").isEqualTo(b.readableBytes());
        assertThat(b.readUnsignedByte()).as("version").isEqualTo((short) 3);
        assertThat(b.readLong()).as("underReplicated").isEqualTo(3);
        assertThat(b.readInt()).as("groups detailed").isEqualTo(1);
        assertThat(b.readLong()).as("group id").isEqualTo(42);
        assertThat(b.readUnsignedByte()).as("members").isEqualTo((short) 3);
        assertThat(b.readInt()).as("member id").isZero();
        assertThat(b.readInt()).as("datanode id").isEqualTo(1);
        assertThat(b.readUnsignedShort()).isEqualTo(2);
        b.skipBytes(2);
        assertThat(b.readUnsignedShort()).as("port").isEqualTo(9071);
        assertThat(b.readUnsignedByte()).as("state").isEqualTo((short) DatanodeStatus.ALIVE);
        assertThat(b.readLong()).as("last heard").isEqualTo(100);
        b.skipBytes(4 + 4 + 2 + 2 + 2 + 1 + 8);
        b.skipBytes(4 + 4 + 2 + 2 + 2);
        assertThat(b.readUnsignedByte()).as("lost").isEqualTo((short) 4);
        b.skipBytes(8);
        assertThat(b.readInt()).as("failure reasons (version 2)").isZero();
        assertThat(b.readInt()).as("replacements under way (version 3)").isZero();
        assertThat(b.isReadable()).isFalse();
        assertThat(withDegradedGroup().replication().degraded().get(0).down())
                .extracting(MemberHealth::stateName).containsExactly("silent", "lost");
    }

    @Test
    void aLaterVersionsAppendedFieldsAreSkippedButVersionThreeMustEndWithItsSection() {
        byte[] v3 = withoutJournal(encode(withDegradedGroup()::encode));
        int sectionAt = 8 * 4 + 4 + 4 + 8 + 8;
        byte[] v4 = new byte[v3.length + 3];
        System.arraycopy(v3, 0, v4, 0, v3.length);
        ByteBuf patch = Unpooled.wrappedBuffer(v4);
        patch.setInt(sectionAt, patch.getInt(sectionAt) + 3);
        patch.setByte(sectionAt + 4, 4);
        assertThat(Bufs.decode(Bufs.Kind.HEAP, withJournal(v4), ClusterStatus::decode))
                .as("version 4 with 3 more bytes")
                .isEqualTo(withDegradedGroup());

        patch.setByte(sectionAt + 4, 3);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, withJournal(v4), ClusterStatus::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("3 unexpected trailing bytes");
        patch.setByte(sectionAt + 4, 0);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, withJournal(v4), ClusterStatus::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("replication section version 0");

        // Version 2 ended before the replacements, version 1 before the failure reasons too.
        byte[] v2 = Arrays.copyOf(v3, v3.length - 4);
        ByteBuf two = Unpooled.wrappedBuffer(v2);
        two.setInt(sectionAt, two.getInt(sectionAt) - 4);
        two.setByte(sectionAt + 4, 2);
        assertThat(Bufs.decode(Bufs.Kind.HEAP, withJournal(v2), ClusterStatus::decode)).as("version 2")
                .isEqualTo(withDegradedGroup());
        byte[] v1 = Arrays.copyOf(v2, v2.length - 4);
        ByteBuf old = Unpooled.wrappedBuffer(v1);
        old.setInt(sectionAt, old.getInt(sectionAt) - 4);
        old.setByte(sectionAt + 4, 1);
        assertThat(Bufs.decode(Bufs.Kind.HEAP, withJournal(v1), ClusterStatus::decode)).as("version 1")
                .isEqualTo(withDegradedGroup());
    }

    /** A replacement under way (repair progress) travels with its group, after the failure reasons. */
    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void aReplacementUnderWayRoundTrips(Bufs.Kind kind) {
        DegradedGroup g = new DegradedGroup(42, List.of(new MemberHealth(0, 1, "h1", 9071, DatanodeStatus.ALIVE, 100),
                new MemberHealth(1, 2, "h2", 9072, DatanodeStatus.SILENT, 30_000),
                new MemberHealth(2, 3, "h3", 9073, DatanodeStatus.ALIVE, 100)),
                new AdminProtocol.Replacement(1, 3, 4, "h4", 9074, 12_345));
        DegradedGroup plain = new DegradedGroup(43, List.of(new MemberHealth(0, 1, "h1", 9071, DatanodeStatus.ALIVE,
                100)));
        ClusterStatus s = new ClusterStatus(1, 2, 3, 4, 5, List.of(), 0, 7, new ReplicationHealth(2, List.of(g,
                plain)));
        assertThat(Bufs.decode(kind, encode(s::encode), ClusterStatus::decode)).isEqualTo(s);
    }

    /** A member whose group stopped on its live datanode travels with the reason, which follows the groups. */
    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void aFailedMembersReasonRoundTrips(Bufs.Kind kind) {
        DegradedGroup g = new DegradedGroup(42, List.of(new MemberHealth(0, 1, "h1", 9071, DatanodeStatus.ALIVE, 100),
                new MemberHealth(1, 2, "h2", 9072, MemberHealth.FAILED, 30, "journal /j/group-42 is full: No space"),
                new MemberHealth(2, 3, "h3", 9073, MemberHealth.LOST, 50)));
        ClusterStatus s = new ClusterStatus(1, 2, 3, 4, 5, List.of(), 0, 7, new ReplicationHealth(3, List.of(g)));
        ClusterStatus back = Bufs.decode(kind, encode(s::encode), ClusterStatus::decode);
        assertThat(back).isEqualTo(s);
        assertThat(back.replication().degraded().get(0).down()).extracting(MemberHealth::stateName)
                .containsExactly("failed", "lost");
        assertThatThrownBy(() -> new MemberHealth(1, 2, "h", 1, MemberHealth.FAILED, 0, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MemberHealth(1, 2, "h", 1, DatanodeStatus.ALIVE, 0, "why"))
                .isInstanceOf(IllegalArgumentException.class);

        ByteBuf bytes = Unpooled.wrappedBuffer(withoutJournal(encode(s::encode)));
        // The reason's member id: before the reason string and the (empty) replacements that end the section.
        int reasonMember = bytes.writerIndex() - 4 - (2 + "journal /j/group-42 is full: No space".length()) - 4;
        bytes.setInt(reasonMember, 2); // names the lost member, not the failed one
        assertThatThrownBy(() -> ClusterStatus.decode(bytes))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("a failure reason for member 2 of group 42, which is not listed as failed");
    }

    @Test
    void moreGroupsDetailedThanCountedOrABadMemberStateIsMalformed() {
        byte[] bytes = encode(withDegradedGroup()::encode);
        int sectionAt = 8 * 4 + 4 + 4 + 8 + 8;
        ByteBuf patch = Unpooled.wrappedBuffer(bytes);
        patch.setLong(sectionAt + 5, 0);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, ClusterStatus::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("1 degraded groups listed of 0");
        patch.setLong(sectionAt + 5, 3);
        int firstState = sectionAt + 4 + 1 + 8 + 4 + 8 + 1 + 4 + 4 + 2 + 2 + 2;
        assertThat(bytes[firstState]).isEqualTo((byte) DatanodeStatus.ALIVE);
        bytes[firstState] = 6;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.DIRECT, bytes, ClusterStatus::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("unknown member state 6");
    }

    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void heartbeatAndRegisterResponseRoundTrip(Bufs.Kind kind) {
        HeartbeatRequest h = new HeartbeatRequest(7, Long.MIN_VALUE, Long.MAX_VALUE);
        assertThat(Bufs.decode(kind, encode(h::encode), HeartbeatRequest::decode)).isEqualTo(h);
        RegisterResponse r = new RegisterResponse(7, 1 << 20, Messages.keys(), true);
        assertThat(Bufs.decode(kind, encode(r::encode), RegisterResponse::decode)).isEqualTo(r);
    }

    @Test
    void moreBlockKeysThanADatanodeHoldsAreMalformed() {
        BlockKeys keys = BlockKeys.of(new BlockTokens(1, 2));
        byte[] bytes = encode(keys::encode);
        assertThat(Bufs.decode(Bufs.Kind.HEAP, bytes, BlockKeys::decode)).isEqualTo(keys);
        bytes[8] = (byte) (BlockTokens.MAX_KEYS + 1);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, BlockKeys::decode))
                .isExactlyInstanceOf(MalformedMessageException.class).hasMessageContaining("at most 64");
        List<BlockTokens.EpochKey> many = Collections.nCopies(BlockTokens.MAX_KEYS + 1,
                new BlockTokens.EpochKey(1, 2, 3));
        assertThatThrownBy(() -> new BlockKeys(0, many)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void heartbeatCarriesHostedGroupsAndLeaderReports() {
        HeartbeatRequest h = new HeartbeatRequest(7, 1, 2, List.of(10L, 11L),
                List.of(new AdminProtocol.LeaderReport(11, 2, 5, List.of(0, 2, 3))));
        ByteBuf b = Unpooled.wrappedBuffer(encode(h::encode));
        b.skipBytes(4 + 8 + 8);
        assertThat(b.readInt()).isEqualTo(2);
        assertThat(b.readLong()).isEqualTo(10);
        assertThat(b.readLong()).isEqualTo(11);
        assertThat(b.readInt()).isEqualTo(1);
        assertThat(b.readLong()).isEqualTo(11);
        assertThat(b.readInt()).isEqualTo(2);
        assertThat(b.readLong()).isEqualTo(5);
        assertThat((int) b.readUnsignedByte()).as("the applied configuration").isEqualTo(3);
        assertThat(b.readInt()).isZero();
        assertThat(b.readInt()).isEqualTo(2);
        assertThat(b.readInt()).isEqualTo(3);
        assertThat(b.readInt()).as("no failed group").isZero();
        assertThat(b.readInt()).as("no lost region").isZero();
        assertThat(b.isReadable()).isFalse();
        assertThat(Bufs.decode(Bufs.Kind.HEAP, encode(h::encode), HeartbeatRequest::decode)).isEqualTo(h);
        HeartbeatRequest unknown = new HeartbeatRequest(7, 1, 2, List.of(11L),
                List.of(new AdminProtocol.LeaderReport(11, 2, 5)));
        assertThat(Bufs.decode(Bufs.Kind.HEAP, encode(unknown::encode), HeartbeatRequest::decode).leading().get(0)
                .members()).as("no configuration known").isEmpty();
    }

    /** Lost regions end a heartbeat and a registration; a count beyond the bytes is malformed. */
    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void lostRegionsEndHeartbeatsAndRegistrations(Bufs.Kind kind) {
        List<AdminProtocol.LostRegion> lost = List.of(new AdminProtocol.LostRegion(6, "region-00006 was cut to 0 "
                + "bytes"), new AdminProtocol.LostRegion((1 << 24) - 1, ""));
        HeartbeatRequest h = new HeartbeatRequest(7, 1, 2, List.of(10L), List.of(), List.of(), lost);
        assertThat(Bufs.decode(kind, encode(h::encode), HeartbeatRequest::decode)).isEqualTo(h);
        RegisterRequest r = new RegisterRequest(1, 2, "dn", 9070, 0, 1 << 20, 8, 2, 4, true, true,
                new BlockReport(1 << 20, new int[8]), lost);
        assertThat(Bufs.decode(kind, encode(r::encode), RegisterRequest::decode)).isEqualTo(r);

        byte[] bytes = encode(h::encode);
        ByteBuf lying = Unpooled.wrappedBuffer(bytes);
        int countAt = bytes.length - lost.stream().mapToInt(l -> 4 + 2 + l.reason().length()).sum() - Integer.BYTES;
        lying.setInt(countAt, 1000);
        assertThatThrownBy(() -> Bufs.decode(kind, ByteBufUtil.getBytes(lying), HeartbeatRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class).hasMessageContaining("truncated");
        lying.setInt(countAt, AdminProtocol.MAX_REGIONS + 1);
        assertThatThrownBy(() -> Bufs.decode(kind, ByteBufUtil.getBytes(lying), HeartbeatRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class).hasMessageContaining("lost region count");
        assertThat(new AdminProtocol.LostRegion(1, "y".repeat(1000)).reason())
                .hasSize(AdminProtocol.MAX_FAILURE_CHARS);
    }

    @Test
    void heartbeatCarriesFailedGroupsWithTheirReason() {
        HeartbeatRequest h = new HeartbeatRequest(7, 1, 2, List.of(10L, 11L), List.of(),
                List.of(new AdminProtocol.FailedGroup(11, "journal /j is full")));
        ByteBuf b = Unpooled.wrappedBuffer(encode(h::encode));
        b.skipBytes(4 + 8 + 8 + 4 + 8 + 8 + 4);
        assertThat(b.readInt()).as("failed groups").isEqualTo(1);
        assertThat(b.readLong()).isEqualTo(11);
        assertThat(b.readUnsignedShort()).isEqualTo("journal /j is full".length());
        assertThat(Bufs.decode(Bufs.Kind.HEAP, encode(h::encode), HeartbeatRequest::decode)).isEqualTo(h);
        String longWhy = "x".repeat(2 * AdminProtocol.MAX_FAILURE_CHARS);
        assertThat(new AdminProtocol.FailedGroup(1, longWhy).reason()).hasSize(AdminProtocol.MAX_FAILURE_CHARS)
                .endsWith("...");
    }

    @Test
    void changeGroupCarriesTheTargetMembership() {
        BlockGroup target = new BlockGroup(9, 2, 0, List.of(new GroupMember(0, 1, "a", 1, 0, 0),
                new GroupMember(3, 4, "d", 1, 2, 0)));
        AdminProtocol.HeartbeatResponse r = new AdminProtocol.HeartbeatResponse(List.of(
                new AdminProtocol.ChangeGroup(target), new AdminProtocol.DeleteGroup(5)));
        assertThat(Bufs.decode(Bufs.Kind.HEAP, encode(r::encode), AdminProtocol.HeartbeatResponse::decode))
                .isEqualTo(r);
        assertThat(r.commands().get(0).groupId()).isEqualTo(9);
    }

    @Test
    void createGroupMustNameAMemberOfTheGroup() {
        BlockGroup g = new BlockGroup(9, 1, 0, List.of(new GroupMember(0, 1, "a", 1, 0, 0),
                new GroupMember(1, 2, "b", 1, 0, 0)));
        byte[] ok = encode(new AdminProtocol.HeartbeatResponse(List.of(new AdminProtocol.CreateGroup(g, 1, true)))
                ::encode);
        assertThat(Bufs.decode(Bufs.Kind.HEAP, ok, AdminProtocol.HeartbeatResponse::decode).commands())
                .containsExactly(new AdminProtocol.CreateGroup(g, 1, true));
        byte[] stranger = encode(new AdminProtocol.HeartbeatResponse(List.of(new AdminProtocol.CreateGroup(g, 5,
                false)))::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, stranger, AdminProtocol.HeartbeatResponse::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("names member 5, which is not in the group");
        byte[] unknownKind = ok.clone();
        unknownKind[4] = 4;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, unknownKind, AdminProtocol.HeartbeatResponse::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("unknown group command kind 4");
    }

    @Test
    void deregisterRequestLayout() {
        ByteBuf b = Unpooled.wrappedBuffer(encode(new DeregisterRequest(7, 0x1111L, 0x2222L, true)::encode));
        assertThat(b.readInt()).isEqualTo(7);
        assertThat(b.readLong()).isEqualTo(0x1111L);
        assertThat(b.readLong()).isEqualTo(0x2222L);
        assertThat(b.readUnsignedByte()).isEqualTo((short) 1);
        assertThat(b.isReadable()).isFalse();
        assertThat(encode(new DeregisterRequest(7, 0x1111L, 0x2222L, false)::encode)[20]).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, Integer.MIN_VALUE})
    void deregisterWithANegativeDatanodeIdIsMalformed(int id) {
        byte[] bytes = encode(new DeregisterRequest(id, 1, 2, false)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, DeregisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("datanodeId = " + id + " outside 0.." + Integer.MAX_VALUE);
    }

    @Test
    void deregisterWithABadDataKeptFlagIsMalformed() {
        byte[] bytes = encode(new DeregisterRequest(1, 2, 3, true)::encode);
        bytes[bytes.length - 1] = 2;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.DIRECT, bytes, DeregisterRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("boolean field holds 2");
    }
}
