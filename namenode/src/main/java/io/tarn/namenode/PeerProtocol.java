package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Replication;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Wire;

import java.util.ArrayList;
import java.util.List;

import static io.tarn.common.protocol.NamenodeProtocol.readOwnership;
import static io.tarn.common.protocol.NamenodeProtocol.writeOwnership;

/**
 * Bodies of the namenode-to-namenode protocol (opcodes of {@code Audience.PEER}; see
 * {@code io.tarn.common.protocol.Frame} for the header): the directory coordinator replicating
 * directory changes, a file moving to the namenode that owns its new name, and a starting namenode
 * copying the directory tree. Only namenodes speak it, so it lives here rather than in the client's
 * jar. Shared encodings (FileStatus, Ownership, BlockRef) are the client protocol's
 * ({@code NamenodeProtocol}). Field order is the wire order; sizes in brackets.
 * <pre>
 * DIR_MKDIR    req: parent[str] name[str] dirId[i64] Ownership time[i64]     resp: FileStatus
 *              (coordinator to the other namenodes; ownership fully resolved)
 * DIR_DELETE   req: path[str]                                             resp: (empty)
 *              (coordinator to the other namenodes: delete the directory and everything below it)
 * DIR_RENAME   req: src[str] dst[str]                                     resp: (empty)
 *              (coordinator to the other namenodes: move directory src to exactly dst, which is free)
 * DIR_SET_ATTR req: as SET_ATTR                                           resp: FileStatus
 *              (coordinator to the other namenodes: the same change to a directory's attributes)
 * DIR_SEAL     req: path[str]                                             resp: (empty)
 *              (rmdir's first phase: no entry may be added; DIRECTORY_NOT_EMPTY, unsealed, if it has any)
 * DIR_UNSEAL   req: path[str]                                             resp: (empty)
 * DIR_SET_REPLICATION req: as SET_REPLICATION                             resp: FileStatus
 *              (coordinator to the other namenodes: a directory's replication default)
 * DATANODE_UNREACHABLE req: host[str] port[u16]                           resp: (empty)
 *              (a client could not reach this datanode: leave it out of allocation until it heartbeats)
 * FILE_ADOPT, FILE_ADOPT_UNDO, FREE_BLOCKS, DIR_SNAPSHOT: see their records below.
 * </pre>
 */
public final class PeerProtocol {
    private PeerProtocol() {
    }

    /**
     * DIR_MKDIR request, from the directory coordinator to another namenode: link directory
     * {@code name} with id {@code dirId} under {@code parent}, exactly as the coordinator did, so
     * every namenode holds the same tree. The ownership is resolved (no unspecified part).
     */
    public record DirMkdirRequest(String parent, String name, long dirId, Ownership ownership, long time) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, parent);
            Wire.writeString(buf, name);
            buf.writeLong(dirId);
            writeOwnership(buf, ownership);
            buf.writeLong(time);
        }

        public static DirMkdirRequest decode(ByteBuf buf) {
            DirMkdirRequest r = new DirMkdirRequest(Wire.readString(buf), Wire.readString(buf), Wire.readLong(buf),
                    readOwnership(buf), Wire.readLong(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * A block of a file moving to another namenode (FILE_ADOPT), or one given back to the namenode
     * that allocated it (FREE_BLOCKS). Its <em>home</em> is the partition whose regions hold it: only
     * that namenode allocates and frees it, and only its tokens open it, so the block travels with
     * tokens its home issued ({@code readToken}, and {@code writeToken} for appending into it).
     * {@code homeDatanodeId} and {@code homeIncarnation} are the home's view of the datanode, and
     * {@code homeEpoch} tells which run of the home namenode allocated the block (a restarted
     * namenode forgot its blocks and must not free a new allocation of the same place);
     * {@code host}:{@code port} find the same datanode at the receiver.
     */
    public record MovedBlock(String host, int port, int homePartition, long homeEpoch, int homeDatanodeId,
                             int homeIncarnation, int regionId, int regionBlock, int generation, long readToken,
                             long writeToken) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, host);
            buf.writeShort(port);
            buf.writeShort(homePartition);
            buf.writeLong(homeEpoch);
            buf.writeInt(homeDatanodeId);
            buf.writeInt(homeIncarnation);
            buf.writeInt(regionId);
            buf.writeInt(regionBlock);
            buf.writeInt(generation);
            buf.writeLong(readToken);
            buf.writeLong(writeToken);
        }

        public static MovedBlock decode(ByteBuf buf) {
            return new MovedBlock(Wire.readString(buf), Wire.readUnsignedShort(buf), Wire.readUnsignedShort(buf),
                    Wire.readLong(buf), Wire.readInt(buf), Wire.readInt(buf),
                    Wire.readInt(buf, 0, Integer.MAX_VALUE, "region"), Wire.readInt(buf, 0, Integer.MAX_VALUE, "block"),
                    Wire.readInt(buf), Wire.readLong(buf), Wire.readLong(buf));
        }

        static void encodeAll(ByteBuf buf, List<MovedBlock> blocks) {
            buf.writeInt(blocks.size());
            for (MovedBlock b : blocks) {
                b.encode(buf);
            }
        }

        static List<MovedBlock> decodeAll(ByteBuf buf) {
            int n = Wire.readInt(buf, 0, buf.readableBytes() / MIN_MOVED_BLOCK_BYTES, "block count");
            List<MovedBlock> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(decode(buf));
            }
            return out;
        }

        /** Encoded size of a block with an empty host name. */
        private static final int MIN_MOVED_BLOCK_BYTES = 2 + 2 + 2 + 8 + 4 * 5 + 8 * 2;
    }

    /** Most blocks a file may have to move to another namenode in one FILE_ADOPT (under 6 MiB). */
    public static final int MAX_MOVED_BLOCKS = 65_536;

    /**
     * FILE_ADOPT, from the namenode owning a file's current name to the one owning its new name: link
     * the file as {@code name} in directory {@code parent}, with these attributes and blocks, under an
     * id of the receiver's. {@code writer} is the client whose lease the file is under construction
     * for, 0 for a closed file ({@code size} is then final, else what the writer reported stored).
     * {@code fromId} is the file's id at the sender; {@code ticket} names this attempt to move it, the
     * key of the receiver's ledger entry (FILE_ADOPTION). Answered with the new file's status.
     */
    public record AdoptRequest(String parent, String name, long fromId, long writer, long size, int blockSize,
                               int storageClass, int replication, long creationTime, long modificationTime,
                               long accessTime, Ownership ownership, List<MovedBlock> blocks, long ticket) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, parent);
            Wire.writeString(buf, name);
            buf.writeLong(fromId);
            buf.writeLong(writer);
            buf.writeLong(size);
            buf.writeInt(blockSize);
            buf.writeInt(storageClass);
            buf.writeByte(replication);
            buf.writeLong(creationTime);
            buf.writeLong(modificationTime);
            buf.writeLong(accessTime);
            writeOwnership(buf, ownership);
            MovedBlock.encodeAll(buf, blocks);
            buf.writeLong(ticket);
        }

        public static AdoptRequest decode(ByteBuf buf) {
            AdoptRequest r = new AdoptRequest(Wire.readString(buf), Wire.readString(buf), Wire.readLong(buf),
                    Wire.readLong(buf), Wire.readLong(buf), Wire.readInt(buf, 1, Integer.MAX_VALUE, "block size"),
                    Wire.readInt(buf), Wire.readUnsignedByte(buf),
                    Wire.readLong(buf), Wire.readLong(buf), Wire.readLong(buf), readOwnership(buf),
                    MovedBlock.decodeAll(buf), Wire.readLong(buf));
            Wire.end(buf);
            if (!Replication.valid(r.replication)) {
                throw new MalformedMessageException("adopted file of replication " + r.replication);
            }
            return r;
        }
    }

    /**
     * FILE_ADOPTION and FILE_ADOPTION_SETTLED: the move with {@code ticket} (its sender's random
     * number for this attempt, in its FILE_ADOPT). The answer to FILE_ADOPTION is the id the receiver
     * adopted the file under, or {@link #NOT_ADOPTED}: then it never will be in this attempt (its
     * FILE_ADOPT arriving later is refused).
     */
    public record AdoptionRequest(long ticket) {
        /** FILE_ADOPTION's answer for a file that was not adopted, and never will be. */
        public static final long NOT_ADOPTED = -1;

        public void encode(ByteBuf buf) {
            buf.writeLong(ticket);
        }

        public static AdoptionRequest decode(ByteBuf buf) {
            AdoptionRequest r = new AdoptionRequest(Wire.readLong(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * FREE_BLOCKS: blocks of files that moved away and were deleted (or shrunk) at their new
     * namenode, given back to their home. A block already freed, or reallocated since (another
     * generation), is ignored, so a repeated request frees nothing twice.
     */
    public record FreeBlocksRequest(List<MovedBlock> blocks) {
        public void encode(ByteBuf buf) {
            MovedBlock.encodeAll(buf, blocks);
        }

        public static FreeBlocksRequest decode(ByteBuf buf) {
            FreeBlocksRequest r = new FreeBlocksRequest(MovedBlock.decodeAll(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * DATANODE_UNREACHABLE: a client told the sender it could not reach the datanode at
     * {@code host}:{@code port}; the receiver leaves it out of allocation too, until it heartbeats
     * there again. Nothing happens for a datanode the receiver does not know.
     */
    public record UnreachableRequest(String host, int port) {
        public void encode(ByteBuf buf) {
            Wire.writeString(buf, host);
            buf.writeShort(port);
        }

        public static UnreachableRequest decode(ByteBuf buf) {
            UnreachableRequest r = new UnreachableRequest(Wire.readString(buf), Wire.readUnsignedShort(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * DIR_SNAPSHOT response: every directory of a namenode's tree, each after its parent, the root
     * first. {@code parent} is the index of the parent's entry (-1 for the root), {@code replication}
     * its replication default (0: none).
     */
    public record DirectorySnapshot(List<Directory> directories) {
        /** One directory of a snapshot. */
        public record Directory(int parent, String name, long id, Ownership ownership, long creationTime,
                                long modificationTime, long accessTime, int replication) {
        }

        public void encode(ByteBuf buf) {
            buf.writeInt(directories.size());
            for (Directory d : directories) {
                buf.writeInt(d.parent());
                Wire.writeString(buf, d.name());
                buf.writeLong(d.id());
                writeOwnership(buf, d.ownership());
                buf.writeLong(d.creationTime());
                buf.writeLong(d.modificationTime());
                buf.writeLong(d.accessTime());
                buf.writeByte(d.replication());
            }
        }

        public static DirectorySnapshot decode(ByteBuf buf) {
            int n = Wire.readInt(buf, 1, buf.readableBytes(), "directory count");
            List<Directory> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int parent = Wire.readInt(buf, -1, i - 1, "parent index");
                if ((parent < 0) != (i == 0)) {
                    throw new MalformedMessageException("directory " + i + " of a snapshot has parent " + parent
                            + "; only the first, the root, has none");
                }
                out.add(new Directory(parent, Wire.readString(buf), Wire.readLong(buf), readOwnership(buf),
                        Wire.readLong(buf), Wire.readLong(buf), Wire.readLong(buf), Wire.readUnsignedByte(buf)));
            }
            Wire.end(buf);
            return new DirectorySnapshot(out);
        }
    }
}
