package io.tarn.namenode.namespace;

import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.journal.EditLog;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.Wire;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.DatanodeRegistry;

import java.util.List;

/**
 * The records of the namespace's mutations, as {@link EditLog} keeps them and
 * {@link NamespaceReplay} applies them again.
 *
 * <p>Records name entries by id, never by path: the parent directory's id and the name for a link,
 * the entry's own id for a change. Replayed in sequence order, a record whose directory is no longer
 * there (a recursive delete came first) is skipped, exactly as the mutation in memory was swept by
 * that delete. Each record carries every value its mutation decided (ids, times, resolved
 * ownership), so replay decides nothing.
 *
 * <p>Ordering. A mutation appends its record where it takes effect and before it lets go of the
 * entry, so two mutations of one entry are recorded in the order they happened:
 * <ul>
 *   <li>a new file or directory is linked and recorded under its own monitor, which every later
 *       unlink, rename or change of it takes first; a new directory is also BUSY until then
 *       ({@link DirectoryInode#pending}), so nothing is linked into it before it is recorded;</li>
 *   <li>a file's unlink, rename and changes are recorded under the file's monitor; an empty
 *       directory's removal, a directory's rename and changes under the directory's monitor; a
 *       recursive delete under the structure lock and the directory's monitor, before the sweep;</li>
 *   <li>a record that frees a name (unlink, rename) is appended before the name is freed, and one
 *       that takes a name after it is taken, so two entries that hold one name in turn are
 *       recorded in that order; likewise a file's id (and its blocks) are freed only after the
 *       record that removes the file (a delete, or the overwrite that replaced it), so that the
 *       file that takes them next is recorded after.</li>
 * </ul>
 *
 * <p>Layouts (strings and ownership as in {@code NamenodeProtocol}):
 * <pre>
 * MKDIR           parentId[i64] name id[i64] time[i64] ownership
 * CREATE_FILE     parentId[i64] name id[i64] time[i64] ownership blockSize[i32] storageClass[i32]
 *                 replication[i32] clientId[i64] replacedId[i64] (-1: none)
 * DELETE_FILE     parentId[i64] name id[i64] time[i64]
 * RMDIR           parentId[i64] name id[i64] time[i64]
 * DELETE_TREE     parentId[i64] name id[i64] time[i64]
 * RENAME          id[i64] fromParentId[i64] fromName toParentId[i64] toName time[i64]
 * SET_ATTR        id[i64] ownership modificationTime[i64] accessTime[i64]
 * SET_REPLICATION id[i64] replication[i32]
 * ROOT            creationTime[i64] modificationTime[i64] accessTime[i64] ownership replication[i32]
 * FILE_BLOCK      fileId[i64] index[i32] datanodeId[i32] incarnation[i32] regionId[i32] regionBlock[i32]
 *                 generation[i32]
 * FILE_SIZE       fileId[i64] size[i64]
 * FILE_CLOSE      fileId[i64] size[i64] time[i64] recoveredFrom[i64] (0: closed by its writer)
 * FILE_REOPEN     fileId[i64] clientId[i64]
 * DATANODE        see {@link DatanodeRegistry#RECORD}
 * IDS             slotHighWater[i32] directoryHighWater[i64] count[i32] (slot[i32] counter[i32])*count
 * GENERATIONS     datanodeId[i32] firstBlock[i32] count[i32] generation[i32]*count
 * GROUP           see {@link io.tarn.namenode.blocks.GroupInfo#RECORD} (type 17)
 * FILE_GROUP_BLOCK fileId[i64] index[i32] groupId[i64] slot[i32] generation[i32]
 * DIR_INTENT      change[bytes to the end] (the coordinator's encoding, opaque here)
 * DIR_DONE        (empty)
 * MOVE_BEGIN      fileId[i64] ticket[i64] to[i32] targetParent targetName
 * MOVE_COMMIT     fileId[i64] newId[i64] time[i64]
 * MOVE_ABORT      fileId[i64]
 * BLOCKS_RETURNED count[i32] (datanodeId[i32] regionId[i32] regionBlock[i32])*count
 * LENT            block (see below)
 * ADOPT           parentId[i64] name newId[i64] time[i64] fromId[i64] ticket[i64] writer[i64] size[i64]
 *                 blockSize[i32]
 *                 storageClass[i32] replication[i32] creationTime[i64] modificationTime[i64]
 *                 accessTime[i64] ownership count[i32] block*count
 * ADOPTION        ticket[i64] newId[i64] (-1: never to be adopted)
 * ADOPTION_SETTLED ticket[i64]
 * FILE_FOREIGN_BLOCK fileId[i64] index[i32] block
 * block:          datanodeId[i32] incarnation[i32] regionId[i32] regionBlock[i32] generation[i32]
 *                 foreign[i8] (1: homePartition[i32] homeEpoch[i64] homeDatanodeId[i32]
 *                 homeIncarnation[i32] readToken[i64] writeToken[i64])
 * </pre>
 * Moves of files between namenodes (docs/namespace-journal.md, "Several namenodes"): the sender
 * records MOVE_BEGIN, forced before FILE_ADOPT goes out, and MOVE_COMMIT (the file is unlinked and
 * retired here, its blocks lent to the receiver) or MOVE_ABORT; BLOCKS_RETURNED are lent blocks the
 * receiver gave back (FREE_BLOCKS). The receiver records ADOPT, the adopted file whole with its
 * blocks (foreign ones with their home's tokens), the id it had at the sender and the move's ticket
 * (the sender's number for the attempt), which make its ledger entry; ADOPTION is a ledger entry
 * without a file (a FILE_ADOPTION answered "never"), and ADOPTION_SETTLED its end. LENT (the
 * sender's lent blocks) and FILE_FOREIGN_BLOCK (a file's block of another namenode) appear in
 * checkpoints.
 * <p>DIR_INTENT and DIR_DONE are written by the directory coordinator of several namenodes only: the
 * change it is about to send to the others, forced before anything is sent, and its end. Replay
 * applies neither; it keeps the last intent without its end, for the coordinator to carry through
 * to every namenode before any other directory change.
 * <p>FILE_GROUP_BLOCK is FILE_BLOCK for a file of replication 3: a slot of a block group, whose GROUP
 * record (appended when the group was created, before any slot of it was taken) comes first.
 * IDS and GENERATIONS appear in checkpoints ({@link NamespaceImage}): the file table's reuse counters
 * of empty slots and the id high-waters, and a datanode's block generations, which the journal
 * otherwise rebuilds from the records of every allocation.
 * ROOT is the first record of a new journal: the root directory as the namespace began.
 * Times of a link, unlink or rename are also the parents' new modification times.
 *
 * <p>A file's contents change under its monitor, where the records are appended: FILE_BLOCK puts a
 * block at {@code index} (the file's next block, or a replacement of an existing one), naming its
 * datanode by the id the registry keeps for it ({@link DatanodeRegistry#RECORD}); FILE_SIZE is a
 * size its writer reported stored (hsync, or with a block request); FILE_CLOSE ends construction
 * at a size, by the writer or by lease recovery ({@code recoveredFrom} the client whose lease
 * expired); FILE_REOPEN is an append. Blocks a file gives up (a close below them, a replacement, a
 * delete) are freed after its record, so a block's next allocation is always recorded after the
 * record that freed it. Free lists are not recorded: replay rebuilds them from the blocks the
 * surviving files hold, and each block's generation from the highest FILE_BLOCK record of it.
 */
final class NamespaceEdits {
    static final int MKDIR = 1;
    static final int CREATE_FILE = 2;
    static final int DELETE_FILE = 3;
    static final int RMDIR = 4;
    static final int DELETE_TREE = 5;
    static final int RENAME = 6;
    static final int SET_ATTR = 7;
    static final int SET_REPLICATION = 8;
    static final int ROOT = 9;
    static final int FILE_BLOCK = 10;
    static final int FILE_SIZE = 11;
    static final int FILE_CLOSE = 12;
    static final int FILE_REOPEN = 13;
    static final int IDS = 15;
    static final int GENERATIONS = 16;
    static final int FILE_GROUP_BLOCK = 18;
    static final int DIR_INTENT = 19;
    static final int DIR_DONE = 20;
    static final int MOVE_BEGIN = 21;
    static final int MOVE_COMMIT = 22;
    static final int MOVE_ABORT = 23;
    static final int BLOCKS_RETURNED = 24;
    static final int LENT = 25;
    static final int ADOPT = 26;
    static final int ADOPTION = 27;
    static final int ADOPTION_SETTLED = 28;
    static final int FILE_FOREIGN_BLOCK = 29;
    /** The block token key of a replicated namenode group, recorded by its first leader. */
    static final int TOKENS = 31;

    private NamespaceEdits() {
    }

    static void mkdir(EditLog log, DirectoryInode parent, String name, DirectoryInode dir, long time) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf b = link(parent, name, dir.id(), time);
        NamenodeProtocol.writeOwnership(b, dir.ownership());
        log.append(MKDIR, b);
    }

    /** No file replaced: {@code replacedId} of a CREATE_FILE that linked a new name. */
    static final long NONE = -1;

    static void createFile(EditLog log, DirectoryInode parent, String name, FileInode file, long clientId,
                           long replacedId) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf b = link(parent, name, file.id(), file.creationTime());
        NamenodeProtocol.writeOwnership(b, file.ownership());
        b.writeInt(file.blockSize());
        b.writeInt(file.storageClass());
        b.writeInt(file.replication());
        b.writeLong(clientId);
        b.writeLong(replacedId);
        log.append(CREATE_FILE, b);
    }

    /** DELETE_FILE, RMDIR or DELETE_TREE of entry {@code id} linked as {@code name} in {@code parent}. */
    static void unlink(EditLog log, int type, DirectoryInode parent, String name, long id, long time) {
        if (log.enabled()) {
            log.append(type, link(parent, name, id, time));
        }
    }

    static void rename(EditLog log, Inode node, DirectoryInode from, String fromName, DirectoryInode to,
                       String toName, long time) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf b = Unpooled.buffer(64);
        b.writeLong(node.id());
        b.writeLong(from.id());
        Wire.writeString(b, fromName);
        b.writeLong(to.id());
        Wire.writeString(b, toName);
        b.writeLong(time);
        log.append(RENAME, b);
    }

    /** The attributes {@code node} has now (caller holds its monitor). */
    static void setAttributes(EditLog log, Inode node) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf b = Unpooled.buffer(48);
        b.writeLong(node.id());
        NamenodeProtocol.writeOwnership(b, node.ownership());
        b.writeLong(node.modificationTime());
        b.writeLong(node.accessTime());
        log.append(SET_ATTR, b);
    }

    static void setReplication(EditLog log, Inode node, int factor) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf b = Unpooled.buffer(12);
        b.writeLong(node.id());
        b.writeInt(factor);
        log.append(SET_REPLICATION, b);
    }

    /** The root as it is now (caller holds its monitor). */
    static void root(EditLog log, DirectoryInode root) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf b = Unpooled.buffer(64);
        b.writeLong(root.creationTime());
        b.writeLong(root.modificationTime());
        b.writeLong(root.accessTime());
        NamenodeProtocol.writeOwnership(b, root.ownership());
        b.writeInt(root.replication());
        log.append(ROOT, b);
    }

    /** Block {@code b} is now block {@code index} of file {@code fileId} (caller holds the file's monitor). */
    static void block(EditLog log, long fileId, int index, Block b) {
        if (!log.enabled()) {
            return;
        }
        if (b.replicated()) {
            groupBlock(log, fileId, index, b);
            return;
        }
        if (b.foreign()) {
            ByteBuf out = Unpooled.buffer(80);
            out.writeLong(fileId);
            out.writeInt(index);
            writeBlock(out, b);
            log.append(FILE_FOREIGN_BLOCK, out);
            return;
        }
        ByteBuf out = Unpooled.buffer(32);
        out.writeLong(fileId);
        out.writeInt(index);
        out.writeInt(b.datanode().id());
        out.writeInt(b.incarnation());
        out.writeInt(b.regionId());
        out.writeInt(b.regionBlock());
        out.writeInt(b.generation());
        log.append(FILE_BLOCK, out);
    }

    /** Slot {@code b} of a block group is now block {@code index} of file {@code fileId} (caller holds its monitor). */
    static void groupBlock(EditLog log, long fileId, int index, Block b) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf out = Unpooled.buffer(28);
        out.writeLong(fileId);
        out.writeInt(index);
        out.writeLong(b.group().id());
        out.writeInt(b.regionBlock());
        out.writeInt(b.generation());
        log.append(FILE_GROUP_BLOCK, out);
    }

    static void size(EditLog log, long fileId, long size) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf out = Unpooled.buffer(16);
        out.writeLong(fileId);
        out.writeLong(size);
        log.append(FILE_SIZE, out);
    }

    static void close(EditLog log, long fileId, long size, long time, long recoveredFrom) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf out = Unpooled.buffer(32);
        out.writeLong(fileId);
        out.writeLong(size);
        out.writeLong(time);
        out.writeLong(recoveredFrom);
        log.append(FILE_CLOSE, out);
    }

    static void reopen(EditLog log, long fileId, long clientId) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf out = Unpooled.buffer(16);
        out.writeLong(fileId);
        out.writeLong(clientId);
        log.append(FILE_REOPEN, out);
    }

    /** The directory coordinator's next change (see the layouts); returns its sequence number. */
    static long directoryIntent(EditLog log, byte[] change) {
        if (!log.enabled()) {
            return 0;
        }
        ByteBuf b = Unpooled.buffer(change.length);
        b.writeBytes(change);
        return log.append(DIR_INTENT, b);
    }

    /** The directory coordinator's change ended (on every namenode, or refused). */
    static void directoryDone(EditLog log) {
        if (log.enabled()) {
            log.append(DIR_DONE, Unpooled.buffer(0));
        }
    }

    /** A block as ADOPT, LENT and FILE_FOREIGN_BLOCK hold it (see the layouts). */
    static void writeBlock(ByteBuf out, Block b) {
        out.writeInt(b.datanode().id());
        out.writeInt(b.incarnation());
        out.writeInt(b.regionId());
        out.writeInt(b.regionBlock());
        out.writeInt(b.generation());
        Block.Foreign h = b.home();
        out.writeByte(h == null ? 0 : 1);
        if (h != null) {
            out.writeInt(h.partition());
            out.writeLong(h.epoch());
            out.writeInt(h.datanodeId());
            out.writeInt(h.incarnation());
            out.writeLong(h.readToken());
            out.writeLong(h.writeToken());
        }
    }

    /** The sender began moving {@code move}'s file (caller holds its monitor). */
    static long moveBegin(EditLog log, long fileId, long ticket, int to, String targetParent, String targetName) {
        if (!log.enabled()) {
            return 0;
        }
        ByteBuf out = Unpooled.buffer(64);
        out.writeLong(fileId);
        out.writeLong(ticket);
        out.writeInt(to);
        Wire.writeString(out, targetParent);
        Wire.writeString(out, targetName);
        return log.append(MOVE_BEGIN, out);
    }

    /** The move of {@code fileId} committed: adopted as {@code newId} (caller holds the file's monitor). */
    static long moveCommit(EditLog log, long fileId, long newId, long time) {
        if (!log.enabled()) {
            return 0;
        }
        ByteBuf out = Unpooled.buffer(24);
        out.writeLong(fileId);
        out.writeLong(newId);
        out.writeLong(time);
        return log.append(MOVE_COMMIT, out);
    }

    static void moveAbort(EditLog log, long fileId) {
        if (log.enabled()) {
            log.append(MOVE_ABORT, Unpooled.buffer(8).writeLong(fileId));
        }
    }

    /** Lent blocks given back by the namenode that held them, and freed here. */
    static void blocksReturned(EditLog log, List<LentBlocks.Place> places) {
        if (!log.enabled() || places.isEmpty()) {
            return;
        }
        ByteBuf out = Unpooled.buffer(4 + 12 * places.size());
        out.writeInt(places.size());
        for (LentBlocks.Place p : places) {
            out.writeInt(p.datanodeId());
            out.writeInt(p.regionId());
            out.writeInt(p.regionBlock());
        }
        log.append(BLOCKS_RETURNED, out);
    }

    /** TOKENS: the key every member of a namenode group issues block tokens under. */
    static void tokens(EditLog log, BlockTokens tokens) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf b = Unpooled.buffer(16);
        b.writeLong(tokens.key0()).writeLong(tokens.key1());
        log.append(TOKENS, b);
    }

    static void lent(EditLog log, Block b) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf out = Unpooled.buffer(64);
        writeBlock(out, b);
        log.append(LENT, out);
    }

    /** A file adopted from another namenode, linked as {@code name} in {@code parent} (caller holds its monitor). */
    static void adopt(EditLog log, DirectoryInode parent, String name, FileInode f, long ticket, long time) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf out = link(parent, name, f.id(), time);
        out.writeLong(f.adoptedFrom());
        out.writeLong(ticket);
        out.writeLong(f.leaseHolder());
        out.writeLong(f.size());
        out.writeInt(f.blockSize());
        out.writeInt(f.storageClass());
        out.writeInt(f.replication());
        out.writeLong(f.creationTime());
        out.writeLong(f.modificationTime());
        out.writeLong(f.accessTime());
        NamenodeProtocol.writeOwnership(out, f.ownership());
        Block[] blocks = f.blocks();
        out.writeInt(blocks.length);
        for (Block b : blocks) {
            writeBlock(out, b);
        }
        log.append(ADOPT, out);
    }

    /** A ledger entry of the receiver: the move with {@code ticket} adopted as {@code newId}, or -1: never. */
    static void adoption(EditLog log, long ticket, long newId) {
        if (!log.enabled()) {
            return;
        }
        ByteBuf out = Unpooled.buffer(16);
        out.writeLong(ticket);
        out.writeLong(newId);
        log.append(ADOPTION, out);
    }

    static void adoptionSettled(EditLog log, long ticket) {
        if (log.enabled()) {
            log.append(ADOPTION_SETTLED, Unpooled.buffer(8).writeLong(ticket));
        }
    }

    private static ByteBuf link(DirectoryInode parent, String name, long id, long time) {
        ByteBuf b = Unpooled.buffer(64);
        b.writeLong(parent.id());
        Wire.writeString(b, name);
        b.writeLong(id);
        b.writeLong(time);
        return b;
    }
}
