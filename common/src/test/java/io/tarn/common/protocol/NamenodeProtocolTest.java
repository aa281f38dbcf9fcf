package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.protocol.NamenodeProtocol.CloseRequest;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.DeleteRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListRequest;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenewLeaseRequest;
import io.tarn.common.protocol.NamenodeProtocol.SyncRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.tarn.common.protocol.Bufs.encode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NamenodeProtocolTest {

    private static final String PATH = "/dätä/文件";
    private static final byte[] PATH_UTF8 = PATH.getBytes(StandardCharsets.UTF_8);

    // ------------------------------------------------------------------ exact layouts (the wire contract)

    @Test
    void createRequestLayout() {
        CreateRequest r = new CreateRequest(PATH, FileType.DIRECTORY, 3, 1, 0x0102030405060708L, "h",
                new Ownership("o", "", Ownership.DEFAULT_PERMISSION), 3);
        ByteBuf b = Unpooled.wrappedBuffer(encode(r::encode));
        assertThat(b.readUnsignedShort()).isEqualTo(PATH_UTF8.length);
        byte[] path = new byte[PATH_UTF8.length];
        b.readBytes(path);
        assertThat(path).isEqualTo(PATH_UTF8);
        assertThat(b.readUnsignedByte()).isEqualTo((short) 2);   // type: directory
        assertThat(b.readUnsignedByte()).isEqualTo((short) 3);   // flags
        assertThat(b.readUnsignedByte()).isEqualTo((short) 1);   // storage class
        assertThat(b.readLong()).isEqualTo(0x0102030405060708L); // client id, big-endian
        assertThat(b.readUnsignedShort()).isEqualTo(1);
        assertThat(b.readByte()).isEqualTo((byte) 'h');
        assertThat(b.readUnsignedShort()).isEqualTo(1);          // owner
        assertThat(b.readByte()).isEqualTo((byte) 'o');
        assertThat(b.readUnsignedShort()).isEqualTo(0);          // group: unspecified
        assertThat(b.readUnsignedShort()).isEqualTo(0xFFFF);     // permission: namenode default
        assertThat(b.readUnsignedByte()).isEqualTo((short) 3);   // replication
        assertThat(b.isReadable()).isFalse();
    }

    @Test
    void fileStatusLayout() {
        FileStatus s = new FileStatus("ab", 9, FileType.FILE, 100, 4096, 1, 11, 12, 13, "u", "g", 0640, true, 3);
        ByteBuf b = Unpooled.wrappedBuffer(encode(buf -> NamenodeProtocol.writeStatus(buf, s)));
        assertThat(b.readableBytes()).isEqualTo(2 + 2 + 8 + 1 + 1 + 1 + 4 + 8 + 8 + 8 + 8 + 3 + 3 + 2 + 1);
        assertThat(b.readUnsignedShort()).isEqualTo(2);
        b.skipBytes(2);
        assertThat(b.readLong()).isEqualTo(9);          // fileId
        assertThat(b.readByte()).isEqualTo((byte) 1);   // type: file
        assertThat(b.readByte()).isEqualTo((byte) 1);   // flags: under construction
        assertThat(b.readByte()).isEqualTo((byte) 1);   // storage class
        assertThat(b.readInt()).isEqualTo(4096);        // block size
        assertThat(b.readLong()).isEqualTo(100);        // size
        assertThat(b.readLong()).isEqualTo(11);         // ctime
        assertThat(b.readLong()).isEqualTo(12);         // mtime
        assertThat(b.readLong()).isEqualTo(13);         // atime
        assertThat(b.readUnsignedShort()).isEqualTo(1); // owner
        assertThat(b.readByte()).isEqualTo((byte) 'u');
        assertThat(b.readUnsignedShort()).isEqualTo(1); // group
        assertThat(b.readByte()).isEqualTo((byte) 'g');
        assertThat(b.readUnsignedShort()).isEqualTo(0640);
        assertThat(b.readByte()).isEqualTo((byte) 3);   // replication
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 4, 255})
    void replicationOtherThanZeroOneOrThreeIsMalformedInAStatus(int replication) {
        FileStatus s = new FileStatus("ab", 9, FileType.FILE, 100, 4096, 1, 11, 12, 13, "u", "g", 0640, true, 1);
        byte[] bytes = encode(buf -> NamenodeProtocol.writeStatus(buf, s));
        bytes[bytes.length - 1] = (byte) replication;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, NamenodeProtocol::decodeStatus))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("replication " + replication + " is neither 0, 1 nor 3");
    }

    @Test
    void permissionOutsideTwelveBitsIsMalformed() {
        byte[] bytes = encode(b -> NamenodeProtocol.writeOwnership(b, new Ownership("", "", 0)));
        bytes[4] = 0x10;  // 0x1000 = 010000 octal: beyond the 12 mode bits, and not the "default" marker
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, NamenodeProtocol::readOwnership))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("10000");
    }

    @Test
    void unknownSetAttributeBitsAreMalformed() {
        byte[] bytes = encode(new SetAttributesRequest("/", 1, Ownership.UNSPECIFIED, 0, 0)::encode);
        bytes[3] = (byte) 0x20;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, SetAttributesRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("mask");
    }

    @Test
    void blockRefLayout() {
        BlockRef r = new BlockRef(1, "dn", 9070, 2, 3, 4, 5, 6, 7, 8, true);
        ByteBuf b = Unpooled.wrappedBuffer(encode(buf -> NamenodeProtocol.writeBlockRef(buf, r)));
        assertThat(b.readableBytes()).isEqualTo(4 + 2 + 2 + 2 + 1 + 4 + 4 + 4 + 4 + 8 + 8 + 1 + 1);
        assertThat(b.readInt()).isEqualTo(1);
        assertThat(b.readUnsignedShort()).isEqualTo(2);
        b.skipBytes(2);
        assertThat(b.readUnsignedShort()).isEqualTo(9070);
        assertThat(b.readByte()).isEqualTo((byte) 2);
        assertThat(b.readInt()).isEqualTo(3);
        assertThat(b.readInt()).isEqualTo(4);
        assertThat(b.readInt()).isEqualTo(5);
        assertThat(b.readInt()).isEqualTo(6);
        assertThat(b.readLong()).isEqualTo(7);
        assertThat(b.readLong()).as("token stamp").isEqualTo(8);
        assertThat(b.readByte()).isEqualTo((byte) 1);
        assertThat(b.readByte()).as("no group").isEqualTo((byte) 0);
    }

    @Test
    void groupedBlockRefLayout() {
        BlockGroup g = new BlockGroup(42, 1, 2, List.of(new GroupMember(0, 5, "a", 1, 6, 11),
                new GroupMember(2, 7, "bc", 2, 8, 12)));
        BlockRef r = new BlockRef(1, "dn", 9070, 2, 3, 4, 5, 6, 7, 8, true, g, 0b10);
        byte[] bytes = encode(buf -> NamenodeProtocol.writeBlockRef(buf, r));
        ByteBuf b = Unpooled.wrappedBuffer(bytes);
        b.skipBytes(4 + 2 + 2 + 2 + 1 + 4 + 4 + 4 + 4 + 8 + 8 + 1);
        assertThat(b.readByte()).as("grouped").isEqualTo((byte) 1);
        assertThat(b.readLong()).isEqualTo(42);
        assertThat(b.readLong()).isEqualTo(1);
        assertThat(b.readInt()).isEqualTo(2);
        assertThat(b.readByte()).isEqualTo((byte) 2);
        assertThat(b.readInt()).isEqualTo(0);
        assertThat(b.readInt()).isEqualTo(5);
        assertThat(b.readUnsignedShort()).isEqualTo(1);
        assertThat(b.readByte()).isEqualTo((byte) 'a');
        assertThat(b.readUnsignedShort()).isEqualTo(1);
        assertThat(b.readInt()).isEqualTo(6);
        assertThat(b.readLong()).isEqualTo(11);
        b.skipBytes(4 + 4 + 2 + 2 + 2 + 4 + 8);
        assertThat(b.readUnsignedShort()).as("down: the second member").isEqualTo(0b10);
        assertThat(b.readableBytes()).isZero();
        BlockRef decoded = Bufs.decode(Bufs.Kind.HEAP, bytes, NamenodeProtocol::decodeBlockRef);
        assertThat(decoded).isEqualTo(r);
        assertThat(decoded.memberDown(1)).isTrue();
        assertThat(decoded.memberDown(0)).isFalse();
    }

    @Test
    void aDownMemberBeyondTheGroupIsMalformed() {
        BlockGroup g = new BlockGroup(42, 1, 0, List.of(new GroupMember(0, 5, "a", 1, 6, 11),
                new GroupMember(1, 7, "b", 2, 8, 12)));
        byte[] bytes = encode(buf -> NamenodeProtocol.writeBlockRef(buf,
                new BlockRef(1, "dn", 9070, 2, 3, 4, 5, 6, 7, 8, true, g, 0b100)));
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, NamenodeProtocol::readBlockRef))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("group 42 of 2 members marks member 2 down");
    }

    @Test
    void groupsWithoutMembersOrWithNegativeIdsAreMalformed() {
        BlockGroup g = new BlockGroup(42, 1, 0, List.of(new GroupMember(0, 5, "a", 1, 6, 11)));
        byte[] bytes = encode(buf -> NamenodeProtocol.writeGroup(buf, g));
        byte[] noMembers = bytes.clone();
        noMembers[8 + 8 + 4] = 0;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, noMembers, NamenodeProtocol::readGroup))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("lists 0 members");
        byte[] negative = bytes.clone();
        negative[0] = (byte) 0x80;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, negative, NamenodeProtocol::readGroup))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("membership version 1");
        byte[] version0 = bytes.clone();
        version0[15] = 0;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, version0, NamenodeProtocol::readGroup))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("membership version 0");
    }

    @Test
    void groupIdsCarryTheirPartitionAndStayPositive() {
        long id = BlockGroup.id(255, -1, -1);
        assertThat(id).isPositive();
        assertThat(BlockGroup.partitionOf(id)).isEqualTo(255);
        assertThat(BlockGroup.partitionOf(BlockGroup.id(3, 12345, 7))).isEqualTo(3);
        assertThat(BlockGroup.id(3, 12345, 7)).isNotEqualTo(BlockGroup.id(3, 12346, 7))
                .isNotEqualTo(BlockGroup.id(2, 12345, 7));
    }

    @Test
    void fixedSizeRequests() {
        assertThat(encode(new CloseRequest(1, 2, 3)::encode)).hasSize(24);
        assertThat(encode(new RenewLeaseRequest(1)::encode)).hasSize(8);
        assertThat(encode(new GetBlockRequest(1, 2, true, 3, "", -1)::encode)).hasSize(8 + 4 + 1 + 8 + 2 + 8);
        assertThat(encode(new SyncRequest(1, 2, 3)::encode)).hasSize(24);
        assertThat(encode(new DeleteRequest("/", true)::encode)).containsExactly(0, 1, '/', 1);
        assertThat(encode(new ListRequest("/", "", 7)::encode)).containsExactly(0, 1, '/', 0, 0, 0, 0, 0, 7);
        assertThat(encode(new ListResponse(true, List.of())::encode)).containsExactly(1, 0, 0, 0, 0);
    }

    /** The namenode tells a writer's GET_BLOCK from a reader's without decoding it, whatever precedes the body. */
    @Test
    void aGetBlockSaysWhetherItWritesWithoutBeingConsumed() {
        for (boolean write : new boolean[] {true, false}) {
            ByteBuf b = Unpooled.buffer();
            b.writeBytes(new byte[] {9, 9, 9});
            b.readerIndex(3);
            new GetBlockRequest(7, 1, write, 3, "host", 100).encode(b);
            assertThat(GetBlockRequest.isWrite(b)).isEqualTo(write);
            assertThat(b.readerIndex()).isEqualTo(3);
            assertThat(GetBlockRequest.decode(b).write()).isEqualTo(write);
            b.release();
        }
        ByteBuf shortBody = Unpooled.buffer().writeLong(1);
        assertThat(GetBlockRequest.isWrite(shortBody)).isFalse();
        shortBody.release();
    }

    @Test
    void createFlags() {
        assertThat(NamenodeProtocol.CREATE_OVERWRITE).isEqualTo(1);
        assertThat(NamenodeProtocol.CREATE_PARENTS).isEqualTo(2);
        CreateRequest none = new CreateRequest("/a", FileType.FILE, 0, 0, 1, "h", Ownership.UNSPECIFIED);
        CreateRequest both = new CreateRequest("/a", FileType.FILE, 3, 0, 1, "h", Ownership.UNSPECIFIED);
        CreateRequest parents = new CreateRequest("/a", FileType.FILE, NamenodeProtocol.CREATE_PARENTS, 0, 1, "h",
                Ownership.UNSPECIFIED);
        assertThat(none.overwrite()).isFalse();
        assertThat(none.createParents()).isFalse();
        assertThat(both.overwrite()).isTrue();
        assertThat(both.createParents()).isTrue();
        assertThat(parents.overwrite()).isFalse();
        assertThat(parents.createParents()).isTrue();
    }

    // ------------------------------------------------------------------ round trips with unicode, both buffer kinds

    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void unicodePathsRoundTrip(Bufs.Kind kind) {
        for (String p : List.of(PATH, "/😀/🎉", "/a b/\u00a0/\u200b", "/" + "文".repeat(21_844))) {
            PathRequest pr = new PathRequest(p);
            assertThat(Bufs.decode(kind, encode(pr::encode), PathRequest::decode)).isEqualTo(pr);
            RenameRequest rr = new RenameRequest(p, p + "2");
            assertThat(Bufs.decode(kind, encode(rr::encode), RenameRequest::decode)).isEqualTo(rr);
        }
    }

    @ParameterizedTest
    @EnumSource(Bufs.Kind.class)
    void listResponseWithManyEntriesRoundTrips(Bufs.Kind kind) {
        List<FileStatus> entries = new java.util.ArrayList<>();
        for (int i = 0; i < 500; i++) {
            entries.add(i % 2 == 0 ? Messages.file("文件-" + i) : Messages.dir("dir-" + i));
        }
        ListResponse r = new ListResponse(true, entries);
        assertThat(Bufs.decode(kind, encode(r::encode), ListResponse::decode)).isEqualTo(r);
    }

    // ------------------------------------------------------------------ validation

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 255})
    void unknownFileTypeInCreateIsMalformed(int type) {
        byte[] bytes = encode(new CreateRequest("/a", FileType.FILE, 0, 0, 1, "h", Ownership.UNSPECIFIED)::encode);
        bytes[2 + 2] = (byte) type;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, CreateRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("unknown file type " + type);
    }

    @Test
    void unknownFileTypeInStatusIsMalformed() {
        byte[] bytes = encode(b -> NamenodeProtocol.writeStatus(b, Messages.file("x")));
        bytes[2 + 1 + 8] = 7;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.DIRECT, bytes, NamenodeProtocol::readStatus))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("unknown file type 7");
    }

    @Test
    void statusFlagsOtherThanBitZeroAreIgnored() {
        byte[] bytes = encode(b -> NamenodeProtocol.writeStatus(b, Messages.file("x")));
        bytes[2 + 1 + 8 + 1] = (byte) 0xfe;
        assertThat(Bufs.decode(Bufs.Kind.HEAP, bytes, NamenodeProtocol::readStatus).underConstruction()).isFalse();
        bytes[2 + 1 + 8 + 1] = (byte) 0xff;
        assertThat(Bufs.decode(Bufs.Kind.HEAP, bytes, NamenodeProtocol::readStatus).underConstruction()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 0x80, 0xff})
    void badBooleansAreMalformed(int v) {
        byte[] delete = encode(new DeleteRequest("/a", true)::encode);
        delete[delete.length - 1] = (byte) v;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, delete, DeleteRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("boolean field holds " + v);

        byte[] getBlock = encode(new GetBlockRequest(1, 2, true, 3, "h", 100)::encode);
        getBlock[8 + 4] = (byte) v;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.DIRECT, getBlock, GetBlockRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("boolean field holds " + v);

        byte[] ref = encode(b -> NamenodeProtocol.writeBlockRef(b, Messages.blockRef()));
        ref[ref.length - 2] = (byte) v;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, ref, NamenodeProtocol::readBlockRef))
                .isExactlyInstanceOf(MalformedMessageException.class);

        byte[] list = encode(new ListResponse(false, List.of())::encode);
        list[0] = (byte) v;
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, list, ListResponse::decode))
                .isExactlyInstanceOf(MalformedMessageException.class);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, Integer.MIN_VALUE})
    void negativeBlockIndexIsMalformed(int index) {
        byte[] bytes = encode(new GetBlockRequest(1, index, false, 3, "h", -1)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, GetBlockRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("blockIndex = " + index + " outside 0.." + Integer.MAX_VALUE);
    }

    @Test
    void getBlockRequestLayoutEndsWithDurableSize() {
        ByteBuf b = Unpooled.wrappedBuffer(encode(new GetBlockRequest(7, 2, true, 9, "hé", 0x0a0b0c0dL)::encode));
        assertThat(b.readLong()).isEqualTo(7);
        assertThat(b.readInt()).isEqualTo(2);
        assertThat(b.readByte()).isEqualTo((byte) 1);
        assertThat(b.readLong()).isEqualTo(9);
        assertThat(b.readUnsignedShort()).isEqualTo(3);
        b.skipBytes(3);
        assertThat(b.readLong()).isEqualTo(0x0a0b0c0dL);
        assertThat(b.isReadable()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, 0, Long.MAX_VALUE})
    void getBlockDurableSizeMayBeMinusOneForReaders(long durable) {
        GetBlockRequest r = new GetBlockRequest(1, 0, durable >= 0, 3, "h", durable);
        assertThat(Bufs.decode(Bufs.Kind.HEAP, encode(r::encode), GetBlockRequest::decode)).isEqualTo(r);
    }

    @ParameterizedTest
    @ValueSource(longs = {-2, Long.MIN_VALUE})
    void getBlockDurableSizeBelowMinusOneIsMalformed(long durable) {
        byte[] bytes = encode(new GetBlockRequest(1, 0, true, 3, "h", durable)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, GetBlockRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("durableSize " + durable);
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, Long.MIN_VALUE})
    void negativeSyncSizeIsMalformed(long durable) {
        byte[] bytes = encode(new SyncRequest(1, 2, durable)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.DIRECT, bytes, SyncRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("negative durableSize " + durable);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void listMaxMustBePositive(int max) {
        byte[] bytes = encode(new ListRequest("/", "", max)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, ListRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("max = " + max + " outside 1.." + Integer.MAX_VALUE);
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, Long.MIN_VALUE})
    void negativeCloseSizeIsMalformed(long size) {
        byte[] bytes = encode(new CloseRequest(1, 2, size)::encode);
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, CloseRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("negative file size " + size);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, Integer.MIN_VALUE, 6, 1000, Integer.MAX_VALUE})
    void listEntryCountBeyondTheBodyIsMalformed(int count) {
        // hasMore=false, then a count that the (empty) rest of the body cannot hold
        byte[] bytes = {0, (byte) (count >>> 24), (byte) (count >>> 16), (byte) (count >>> 8), (byte) count};
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, ListResponse::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageStartingWith("entry count = " + count + " outside 0..");
    }

    @Test
    void listEntryCountLargerThanTheEntriesIsMalformed() {
        byte[] bytes = encode(new ListResponse(false, List.of(Messages.file("a"), Messages.file("b")))::encode);
        bytes[4] = 3; // claims three entries, holds two
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, ListResponse::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("truncated");
    }

    @Test
    void stringLengthBeyondTheBodyIsMalformed() {
        byte[] bytes = {0, 10, '/', 'a'};
        assertThatThrownBy(() -> Bufs.decode(Bufs.Kind.HEAP, bytes, PathRequest::decode))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("message truncated: needs 10 more bytes, has 2");
    }
}
