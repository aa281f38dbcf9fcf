package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Replication;

import java.util.ArrayList;
import java.util.List;

/**
 * Bodies of the client-namenode protocol's requests and responses (see {@link Frame} for the header):
 * what a client sends a namenode and what it answers. Shared encodings (FileStatus, Ownership,
 * BlockRef) live here too; the namenode-to-namenode messages are the namenode's own
 * ({@code io.tarn.namenode.PeerProtocol}), so the client jar carries none of them.
 *
 * <p>Each request has a record, an {@code encode} that writes it field by field, and a
 * {@code decode} that reads and validates it. Field order is the wire order; sizes in brackets.
 * <pre>
 * GET_FILE     req: path[str]                                             resp: FileStatus
 * CREATE       req: path[str] type[u8] flags[u8] storageClass[u8] clientId[i64] clientHost[str] Ownership
 *                   replication[u8]                                       resp: FileStatus
 *              (replication 0: the nearest directory's default, else tarn.replication.default)
 * MKDIRS       req: path[str] Ownership                                   resp: FileStatus
 * APPEND       req: path[str] clientId[i64] clientHost[str]               resp: FileStatus (reopened)
 * SET_ATTR     req: path[str] mask[u8] Ownership mtime[i64] atime[i64]    resp: FileStatus
 * GET_BLOCK    req: fileId[i64] blockIndex[i32] write[bool] clientId[i64] clientHost[str] durableSize[i64]
 *              resp: BlockRef      (durableSize: bytes the writer knows are stored; -1 when reading)
 * GET_BLOCKS   req: fileId[i64] first[i32] count[i32]                     resp: n[i32] BlockRef*n
 *              (read locations of blocks first.. up to count, fewer at the end of the file)
 * GET_PARTITIONS req: (empty)                                             resp: PartitionMap
 * SYNC         req: fileId[i64] clientId[i64] durableSize[i64]            resp: FileStatus
 * CLOSE        req: fileId[i64] clientId[i64] size[i64]                   resp: FileStatus
 * LIST         req: path[str] startAfter[str] max[i32]                    resp: hasMore[bool] n[i32] FileStatus*n
 * DELETE       req: path[str] recursive[bool]                             resp: (empty)
 * RENAME       req: src[str] dst[str]                                     resp: (empty)
 * RENEW_LEASE  req: clientId[i64]                                         resp: (empty)
 * SET_REPLICATION req: path[str] replication[u8]                          resp: FileStatus
 *              (a file with no data yet: its factor; a directory: the default of files created below it)
 * GET_REPLICATION req: path[str]                                          resp: replication[u8]
 *              (a file's factor; for any other path, what a file created there would get)
 * REPLACE_BLOCK req: fileId[i64] blockIndex[i32] datanodeId[i32] clientId[i64] clientHost[str]
 *              resp: BlockRef  (the writer could not reach the datanode of an unwritten block)
 * FileStatus:  name[str] fileId[i64] type[u8] flags[u8] storageClass[u8] blockSize[i32] size[i64]
 *              ctime[i64] mtime[i64] atime[i64] owner[str] group[str] permission[u16] replication[u8]
 *              (flags bit 0: under construction; replication: see FileStatus)
 * PartitionMap: partition[u8] n[u16] address[str]*n   (the answering namenode's index; all, in order)
 * Ownership:   owner[str] group[str] permission[u16]   ("" and 0xFFFF: unspecified, namenode default)
 * BlockRef:    datanodeId[i32] host[str] port[u16] storageClass[u8] regionId[i32] blockIndex[i32]
 *              blockSize[i32] generation[i32] token[i64] tokenStamp[i64] writable[bool] grouped[bool]
 *              (BlockGroup down[u16])?
 *              (tokenStamp: the token's key id and expiry, shared by the members' tokens;)
 *              (grouped: a block of replication 3, followed by its group; the fields before name the
 *              replica of the member believed to lead, blockIndex being the group's slot; down: bit i
 *              set when the namenode counts the group's i-th member down: its datanode dead, or
 *              restarted without the group's data)
 * BlockGroup:  groupId[i64, not negative] version[i64, at least 1] leaderMemberId[i32] n[u8, 1..16]
 *              GroupMember*n
 * GroupMember: memberId[i32, not negative] datanodeId[i32] host[str] port[u16] regionId[i32] token[i64]
 *              (token: for this member's replica of the block; 0 in group commands)
 * </pre>
 */
public final class NamenodeProtocol {
    private NamenodeProtocol() {
    }

    /** CREATE flag: replace an existing file (not a directory). */
    public static final int CREATE_OVERWRITE = 1;
    /** CREATE flag: create missing parent directories. */
    public static final int CREATE_PARENTS = 2;

    /** SET_ATTR mask bit: set the owner. */
    public static final int SET_OWNER = 1;
    /** SET_ATTR mask bit: set the group. */
    public static final int SET_GROUP = 2;
    /** SET_ATTR mask bit: set the permission. */
    public static final int SET_PERMISSION = 4;
    /** SET_ATTR mask bit: set the modification time. */
    public static final int SET_MTIME = 8;
    /** SET_ATTR mask bit: set the access time. */
    public static final int SET_ATIME = 16;
    private static final int SET_ALL = 31;

    /** Most block references one GET_BLOCKS answers (about 200 KB of response). */
    public static final int MAX_BLOCKS_PER_CALL = 4096;

    /** Wire value of {@link Ownership#DEFAULT_PERMISSION}. */
    private static final int WIRE_DEFAULT_PERMISSION = 0xFFFF;

    // ---------------------------------------------------------------- FileStatus, BlockRef

    public static void writeStatus(ByteBuf buf, FileStatus s) {
        writeStatus(buf, s.name(), s.fileId(), s.type(), s.underConstruction(), s.storageClass(), s.blockSize(),
                s.size(), s.creationTime(), s.modificationTime(), s.accessTime(), s.owner(), s.group(),
                s.permission(), s.replication());
    }

    /** A FileStatus from its fields, for servers that answer without building the record. */
    public static void writeStatus(ByteBuf buf, String name, long fileId, FileType type, boolean underConstruction,
                                   int storageClass, int blockSize, long size, long creationTime,
                                   long modificationTime, long accessTime, String owner, String group,
                                   int permission, int replication) {
        Wire.writeString(buf, name);
        buf.writeLong(fileId);
        buf.writeByte(type.wire());
        buf.writeByte(underConstruction ? 1 : 0);
        buf.writeByte(storageClass);
        buf.writeInt(blockSize);
        buf.writeLong(size);
        buf.writeLong(creationTime);
        buf.writeLong(modificationTime);
        buf.writeLong(accessTime);
        Wire.writeString(buf, owner);
        Wire.writeString(buf, group);
        buf.writeShort(permission);
        buf.writeByte(replication);
    }

    public static FileStatus readStatus(ByteBuf buf) {
        String name = Wire.readString(buf);
        long id = Wire.readLong(buf);
        FileType type = fileType(Wire.readUnsignedByte(buf));
        int flags = Wire.readUnsignedByte(buf);
        int sc = Wire.readUnsignedByte(buf);
        int blockSize = Wire.readInt(buf);
        long size = Wire.readLong(buf);
        long ctime = Wire.readLong(buf);
        long mtime = Wire.readLong(buf);
        long atime = Wire.readLong(buf);
        String owner = Wire.readCommonString(buf);
        String group = Wire.readCommonString(buf);
        int permission = Wire.readUnsignedShort(buf);
        if (permission > Ownership.MAX_PERMISSION) {
            throw new MalformedMessageException("permission " + Integer.toOctalString(permission)
                    + " is not a 12-bit mode");
        }
        int replication = Wire.readUnsignedByte(buf);
        if (replication != Replication.INHERIT && !Replication.valid(replication)) {
            throw new MalformedMessageException("replication " + replication + " is neither 0, 1 nor 3");
        }
        return new FileStatus(name, id, type, size, blockSize, sc, ctime, mtime, atime, owner, group, permission,
                (flags & 1) != 0, replication);
    }

    /** Writes owner, group and permission ({@link Ownership#DEFAULT_PERMISSION} as 0xFFFF). */
    public static void writeOwnership(ByteBuf buf, Ownership o) {
        Wire.writeString(buf, o.owner());
        Wire.writeString(buf, o.group());
        buf.writeShort(o.permission() == Ownership.DEFAULT_PERMISSION ? WIRE_DEFAULT_PERMISSION : o.permission());
    }

    public static Ownership readOwnership(ByteBuf buf) {
        String owner = Wire.readString(buf);
        String group = Wire.readString(buf);
        int p = Wire.readUnsignedShort(buf);
        if (p == WIRE_DEFAULT_PERMISSION) {
            p = Ownership.DEFAULT_PERMISSION;
        } else if (p > Ownership.MAX_PERMISSION) {
            throw new MalformedMessageException("permission " + Integer.toOctalString(p) + " is not a 12-bit mode");
        }
        return new Ownership(owner, group, p);
    }

    /** Decodes a body that is exactly one FileStatus (GET_FILE, CREATE, MKDIRS, CLOSE, SYNC responses). */
    public static FileStatus decodeStatus(ByteBuf buf) {
        FileStatus s = readStatus(buf);
        Wire.end(buf);
        return s;
    }

    /** Decodes a body that is exactly one BlockRef (GET_BLOCK response). */
    public static BlockRef decodeBlockRef(ByteBuf buf) {
        BlockRef b = readBlockRef(buf);
        Wire.end(buf);
        return b;
    }

    public static void writeBlockRef(ByteBuf buf, BlockRef b) {
        buf.writeInt(b.datanodeId());
        Wire.writeString(buf, b.host());
        buf.writeShort(b.port());
        buf.writeByte(b.storageClass());
        buf.writeInt(b.regionId());
        buf.writeInt(b.blockIndex());
        buf.writeInt(b.blockSize());
        buf.writeInt(b.generation());
        buf.writeLong(b.token());
        buf.writeLong(b.tokenStamp());
        Wire.writeBoolean(buf, b.writable());
        Wire.writeBoolean(buf, b.group() != null);
        if (b.group() != null) {
            writeGroup(buf, b.group());
            buf.writeShort(b.downMembers());
        }
    }

    public static BlockRef readBlockRef(ByteBuf buf) {
        int dn = Wire.readInt(buf);
        String host = Wire.readString(buf);
        int port = Wire.readUnsignedShort(buf);
        int sc = Wire.readUnsignedByte(buf);
        int region = Wire.readInt(buf);
        int index = Wire.readInt(buf);
        int blockSize = Wire.readInt(buf);
        int gen = Wire.readInt(buf);
        long token = Wire.readLong(buf);
        long stamp = Wire.readLong(buf);
        boolean writable = Wire.readBoolean(buf);
        BlockGroup group = null;
        int down = 0;
        if (Wire.readBoolean(buf)) {
            group = readGroup(buf);
            down = Wire.readUnsignedShort(buf);
            if (down >>> group.members().size() != 0) {
                throw new MalformedMessageException("group " + group.groupId() + " of " + group.members().size()
                        + " members marks member " + (Integer.SIZE - 1 - Integer.numberOfLeadingZeros(down)) + " down");
            }
        }
        return new BlockRef(dn, host, port, sc, region, index, blockSize, gen, token, stamp, writable, group, down);
    }

    /** Most members a group may list on the wire (3, plus replacements under way). */
    public static final int MAX_GROUP_MEMBERS = 16;

    /** Writes a BlockGroup (see the layout above). */
    public static void writeGroup(ByteBuf buf, BlockGroup g) {
        buf.writeLong(g.groupId());
        buf.writeLong(g.version());
        buf.writeInt(g.leaderMemberId());
        buf.writeByte(g.members().size());
        for (GroupMember m : g.members()) {
            buf.writeInt(m.memberId());
            buf.writeInt(m.datanodeId());
            Wire.writeString(buf, m.host());
            buf.writeShort(m.port());
            buf.writeInt(m.regionId());
            buf.writeLong(m.token());
        }
    }

    /** Reads a BlockGroup; malformed when the id is negative, the version below 1 or the member count outside 1..16. */
    public static BlockGroup readGroup(ByteBuf buf) {
        long id = Wire.readLong(buf);
        long version = Wire.readLong(buf);
        if (id < 0 || version < 1) {
            throw new MalformedMessageException("group " + id + " of membership version " + version);
        }
        int leader = Wire.readInt(buf);
        int n = Wire.readUnsignedByte(buf);
        if (n < 1 || n > MAX_GROUP_MEMBERS) {
            throw new MalformedMessageException("group " + id + " lists " + n + " members; 1.." + MAX_GROUP_MEMBERS
                    + " expected");
        }
        List<GroupMember> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int memberId = Wire.readInt(buf, 0, Integer.MAX_VALUE, "memberId");
            members.add(new GroupMember(memberId, Wire.readInt(buf), Wire.readString(buf), Wire.readUnsignedShort(buf),
                    Wire.readInt(buf), Wire.readLong(buf)));
        }
        return new BlockGroup(id, version, leader, members);
    }

    private static FileType fileType(int v) {
        try {
            return FileType.ofWire(v);
        } catch (IllegalArgumentException e) {
            throw new MalformedMessageException(e.getMessage());
        }
    }

    // ---------------------------------------------------------------- requests

    /** GET_FILE, MKDIRS request. */
    public record PathRequest(String path) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
        }

        public static PathRequest decode(ByteBuf buf) {
            PathRequest r = new PathRequest(Wire.readString(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * CREATE request. {@code replication} is the file's factor (1 or 3), or {@link Replication#INHERIT}
     * for the default of its nearest directory that has one, else the cluster's; the namenode
     * refuses any other number with INVALID_REPLICATION. Ignored for a directory.
     */
    public record CreateRequest(String path, FileType type, int flags, int storageClass, long clientId,
                                String clientHost, Ownership ownership, int replication) {
        /** A request that inherits the replication. */
        public CreateRequest(String path, FileType type, int flags, int storageClass, long clientId, String clientHost,
                             Ownership ownership) {
            this(path, type, flags, storageClass, clientId, clientHost, ownership, Replication.INHERIT);
        }

        public void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
            buf.writeByte(type.wire());
            buf.writeByte(flags);
            buf.writeByte(storageClass);
            buf.writeLong(clientId);
            Wire.writeString(buf, clientHost);
            writeOwnership(buf, ownership);
            buf.writeByte(replication);
        }

        public static CreateRequest decode(ByteBuf buf) {
            CreateRequest r = new CreateRequest(Wire.readString(buf), fileType(Wire.readUnsignedByte(buf)),
                    Wire.readUnsignedByte(buf), Wire.readUnsignedByte(buf), Wire.readLong(buf), Wire.readString(buf),
                    readOwnership(buf), Wire.readUnsignedByte(buf));
            Wire.end(buf);
            return r;
        }

        public boolean overwrite() {
            return (flags & CREATE_OVERWRITE) != 0;
        }

        public boolean createParents() {
            return (flags & CREATE_PARENTS) != 0;
        }
    }

    /** MKDIRS request: the directory and its missing parents get {@code ownership}. */
    public record MkdirsRequest(String path, Ownership ownership) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
            writeOwnership(buf, ownership);
        }

        public static MkdirsRequest decode(ByteBuf buf) {
            MkdirsRequest r = new MkdirsRequest(Wire.readString(buf), readOwnership(buf));
            Wire.end(buf);
            return r;
        }
    }

    /** APPEND request: reopens a closed file for writing at its end, leased to {@code clientId}. */
    public record AppendRequest(String path, long clientId, String clientHost) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
            buf.writeLong(clientId);
            Wire.writeString(buf, clientHost);
        }

        public static AppendRequest decode(ByteBuf buf) {
            AppendRequest r = new AppendRequest(Wire.readString(buf), Wire.readLong(buf), Wire.readString(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * SET_ATTR request: changes the attributes whose bit is set in {@code mask} ({@link #SET_OWNER},
     * {@link #SET_GROUP}, {@link #SET_PERMISSION}, {@link #SET_MTIME}, {@link #SET_ATIME}); the other
     * fields are ignored. Times are milliseconds since the epoch.
     */
    public record SetAttributesRequest(String path, int mask, Ownership ownership, long modificationTime,
                                       long accessTime) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
            buf.writeByte(mask);
            writeOwnership(buf, ownership);
            buf.writeLong(modificationTime);
            buf.writeLong(accessTime);
        }

        public static SetAttributesRequest decode(ByteBuf buf) {
            SetAttributesRequest r = new SetAttributesRequest(Wire.readString(buf), Wire.readUnsignedByte(buf),
                    readOwnership(buf), Wire.readLong(buf), Wire.readLong(buf));
            Wire.end(buf);
            if ((r.mask & ~SET_ALL) != 0) {
                throw new MalformedMessageException("unknown SET_ATTR mask bits " + Integer.toBinaryString(r.mask));
            }
            return r;
        }

        public boolean sets(int bit) {
            return (mask & bit) != 0;
        }
    }

    /**
     * GET_BLOCK request: the block at {@code blockIndex} of a file, allocated when writing. A writer
     * also reports {@code durableSize}, the bytes of the file it knows are stored on datanodes, so
     * lease recovery keeps them; readers send -1.
     */
    public record GetBlockRequest(long fileId, int blockIndex, boolean write, long clientId, String clientHost,
                                  long durableSize) {
        public void encode(ByteBuf buf) {
            buf.writeLong(fileId);
            buf.writeInt(blockIndex);
            Wire.writeBoolean(buf, write);
            buf.writeLong(clientId);
            Wire.writeString(buf, clientHost);
            buf.writeLong(durableSize);
        }

        /**
         * Whether the GET_BLOCK request in {@code body} (reader index at its first byte) asks for
         * writing, read without consuming it; false when the body is too short (decoding then fails).
         */
        public static boolean isWrite(ByteBuf body) {
            int at = body.readerIndex() + 12;
            return body.writerIndex() > at && body.getByte(at) != 0;
        }

        public static GetBlockRequest decode(ByteBuf buf) {
            GetBlockRequest r = new GetBlockRequest(Wire.readLong(buf), Wire.readInt(buf, 0, Integer.MAX_VALUE,
                    "blockIndex"), Wire.readBoolean(buf), Wire.readLong(buf), Wire.readString(buf), Wire.readLong(buf));
            Wire.end(buf);
            if (r.durableSize < -1) {
                throw new MalformedMessageException("durableSize " + r.durableSize);
            }
            return r;
        }
    }

    /**
     * GET_BLOCKS request: read locations of up to {@code count} blocks of a file from block
     * {@code first} on, in one round trip (for split planning and locality, where one GET_BLOCK per
     * block would cost a round trip per megabyte). The namenode answers at most
     * {@link #MAX_BLOCKS_PER_CALL} at a time.
     */
    public record GetBlocksRequest(long fileId, int first, int count) {
        public void encode(ByteBuf buf) {
            buf.writeLong(fileId);
            buf.writeInt(first);
            buf.writeInt(count);
        }

        public static GetBlocksRequest decode(ByteBuf buf) {
            GetBlocksRequest r = new GetBlocksRequest(Wire.readLong(buf),
                    Wire.readInt(buf, 0, Integer.MAX_VALUE, "first"), Wire.readInt(buf, 0, Integer.MAX_VALUE, "count"));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * ALLOCATE_BLOCKS request: the writer of a file asks for write locations of {@code count}
     * consecutive blocks from {@code first} on, in one round trip; those the file does not have yet
     * are allocated (blocks are allocated in order, so {@code first} is at most the file's block
     * count). Like a write GET_BLOCK, it reports {@code durableSize} (-1: nothing to report). The
     * answer ({@link BlockRefs}) names the blocks from {@code first} on, at least one and at most
     * {@code count} (fewer when storage ran out part-way) and {@link #MAX_BLOCKS_PER_CALL}.
     */
    public record AllocateBlocksRequest(long fileId, int first, int count, long clientId, String clientHost,
                                        long durableSize) {
        public void encode(ByteBuf buf) {
            buf.writeLong(fileId);
            buf.writeInt(first);
            buf.writeInt(count);
            buf.writeLong(clientId);
            Wire.writeString(buf, clientHost);
            buf.writeLong(durableSize);
        }

        public static AllocateBlocksRequest decode(ByteBuf buf) {
            AllocateBlocksRequest r = new AllocateBlocksRequest(Wire.readLong(buf),
                    Wire.readInt(buf, 0, Integer.MAX_VALUE, "first"), Wire.readInt(buf, 1, Integer.MAX_VALUE, "count"),
                    Wire.readLong(buf), Wire.readString(buf), Wire.readLong(buf));
            Wire.end(buf);
            if (r.durableSize < -1) {
                throw new MalformedMessageException("durableSize " + r.durableSize);
            }
            return r;
        }
    }

    /** GET_BLOCKS and ALLOCATE_BLOCKS response: block references in block order. */
    public record BlockRefs(List<BlockRef> blocks) {
        public void encode(ByteBuf buf) {
            buf.writeInt(blocks.size());
            for (BlockRef b : blocks) {
                writeBlockRef(buf, b);
            }
        }

        public static BlockRefs decode(ByteBuf buf) {
            int n = Wire.readInt(buf, 0, buf.readableBytes(), "block count");
            List<BlockRef> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(readBlockRef(buf));
            }
            Wire.end(buf);
            return new BlockRefs(out);
        }
    }

    /**
     * SYNC request (hsync): the writer of a file reports that its first {@code durableSize} bytes
     * are stored; the namenode publishes that length to readers and keeps it through lease recovery.
     */
    public record SyncRequest(long fileId, long clientId, long durableSize) {
        public void encode(ByteBuf buf) {
            buf.writeLong(fileId);
            buf.writeLong(clientId);
            buf.writeLong(durableSize);
        }

        public static SyncRequest decode(ByteBuf buf) {
            SyncRequest r = new SyncRequest(Wire.readLong(buf), Wire.readLong(buf), Wire.readLong(buf));
            Wire.end(buf);
            if (r.durableSize < 0) {
                throw new MalformedMessageException("negative durableSize " + r.durableSize);
            }
            return r;
        }
    }

    /** CLOSE request: publishes the final size and releases the lease. */
    public record CloseRequest(long fileId, long clientId, long size) {
        public void encode(ByteBuf buf) {
            buf.writeLong(fileId);
            buf.writeLong(clientId);
            buf.writeLong(size);
        }

        public static CloseRequest decode(ByteBuf buf) {
            CloseRequest r = new CloseRequest(Wire.readLong(buf), Wire.readLong(buf), Wire.readLong(buf));
            Wire.end(buf);
            if (r.size < 0) {
                throw new MalformedMessageException("negative file size " + r.size);
            }
            return r;
        }
    }

    /** LIST request: up to {@code max} entries whose names sort after {@code startAfter} ("" = from the start). */
    public record ListRequest(String path, String startAfter, int max) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
            Wire.writeString(buf, startAfter);
            buf.writeInt(max);
        }

        public static ListRequest decode(ByteBuf buf) {
            ListRequest r = new ListRequest(Wire.readString(buf), Wire.readString(buf),
                    Wire.readInt(buf, 1, Integer.MAX_VALUE, "max"));
            Wire.end(buf);
            return r;
        }
    }

    /** One page of a listing, sorted by name. */
    public record ListResponse(boolean hasMore, List<FileStatus> entries) {
        public void encode(ByteBuf buf) {
            Wire.writeBoolean(buf, hasMore);
            buf.writeInt(entries.size());
            for (FileStatus s : entries) {
                writeStatus(buf, s);
            }
        }

        public static ListResponse decode(ByteBuf buf) {
            boolean more = Wire.readBoolean(buf);
            int n = Wire.readInt(buf, 0, buf.readableBytes(), "entry count");
            List<FileStatus> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(readStatus(buf));
            }
            Wire.end(buf);
            return new ListResponse(more, out);
        }
    }

    /** DELETE request. */
    public record DeleteRequest(String path, boolean recursive) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
            Wire.writeBoolean(buf, recursive);
        }

        public static DeleteRequest decode(ByteBuf buf) {
            DeleteRequest r = new DeleteRequest(Wire.readString(buf), Wire.readBoolean(buf));
            Wire.end(buf);
            return r;
        }
    }

    /** RENAME request. */
    public record RenameRequest(String src, String dst) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, src);
            Wire.writeString(buf, dst);
        }

        public static RenameRequest decode(ByteBuf buf) {
            RenameRequest r = new RenameRequest(Wire.readString(buf), Wire.readString(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * GET_PARTITIONS response: every namenode of the cluster as {@code host:port}, in partition
     * order, and which of them answered. A client that knows one namenode learns the rest from it.
     */
    public record PartitionMap(int partition, List<String> addresses) {
        public PartitionMap {
            addresses = List.copyOf(addresses);
        }

        public void encode(ByteBuf buf) {
            buf.writeByte(partition);
            buf.writeShort(addresses.size());
            for (String a : addresses) {
                Wire.writeString(buf, a);
            }
        }

        public static PartitionMap decode(ByteBuf buf) {
            int partition = Wire.readUnsignedByte(buf);
            int n = Wire.readUnsignedShort(buf);
            if (n == 0 || n > 256 || partition >= n) {
                throw new MalformedMessageException("partition map of " + n + " namenodes answered by partition "
                        + partition);
            }
            List<String> addresses = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                addresses.add(Wire.readString(buf));
            }
            Wire.end(buf);
            return new PartitionMap(partition, addresses);
        }
    }

    /**
     * SET_REPLICATION request: a file's replication, while it holds no data (REPLICATION_FIXED
     * after), or a directory's default for the files created below it from now on
     * ({@link Replication#INHERIT} removes it). Checked by the namenode (INVALID_REPLICATION).
     */
    public record SetReplicationRequest(String path, int replication) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
            buf.writeByte(replication);
        }

        public static SetReplicationRequest decode(ByteBuf buf) {
            SetReplicationRequest r = new SetReplicationRequest(Wire.readString(buf), Wire.readUnsignedByte(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * REPLACE_BLOCK request: the writer of a file could not reach datanode {@code datanodeId}, which
     * holds block {@code blockIndex}, before writing any byte of it. The namenode leaves that datanode
     * out of allocation until it shows it is alive again, and answers with the block's write
     * reference: a new block elsewhere in its place, or the current one when it is no longer on
     * that datanode (replaced already).
     */
    public record ReplaceBlockRequest(long fileId, int blockIndex, int datanodeId, long clientId, String clientHost) {
        public void encode(ByteBuf buf) {
            buf.writeLong(fileId);
            buf.writeInt(blockIndex);
            buf.writeInt(datanodeId);
            buf.writeLong(clientId);
            Wire.writeString(buf, clientHost);
        }

        public static ReplaceBlockRequest decode(ByteBuf buf) {
            ReplaceBlockRequest r = new ReplaceBlockRequest(Wire.readLong(buf),
                    Wire.readInt(buf, 0, Integer.MAX_VALUE, "blockIndex"), Wire.readInt(buf), Wire.readLong(buf),
                    Wire.readString(buf));
            Wire.end(buf);
            return r;
        }
    }

    /** RENEW_LEASE request. */
    public record RenewLeaseRequest(long clientId) {
        public void encode(ByteBuf buf) {
            buf.writeLong(clientId);
        }

        public static RenewLeaseRequest decode(ByteBuf buf) {
            RenewLeaseRequest r = new RenewLeaseRequest(Wire.readLong(buf));
            Wire.end(buf);
            return r;
        }
    }
}
