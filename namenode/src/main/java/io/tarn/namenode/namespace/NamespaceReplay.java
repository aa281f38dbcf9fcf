package io.tarn.namenode.namespace;

import io.tarn.common.security.BlockTokens;
import io.netty.buffer.ByteBuf;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.Wire;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.BlockGroups;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.blocks.GroupInfo;
import io.tarn.namenode.journal.JournalCorruptException;
import io.tarn.namenode.journal.JournalReplayer;
import io.tarn.namenode.lease.LeaseManager;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Applies the records of {@link NamespaceEdits} to a namespace being rebuilt at start-up, before it
 * serves anything (single-threaded). Each record is applied as its mutation decided, without the
 * checks the mutation made; a record whose directory or entry is gone (a recursive delete came
 * first) is skipped. A record that contradicts the namespace (a name taken, a rename's target
 * missing) means the journal does not describe this namespace: replay fails with the record's
 * sequence number rather than build something that never existed.
 */
public final class NamespaceReplay implements JournalReplayer {
    /** The head every link and unlink record starts with. */
    private record Link(long parentId, String name, long id, long time) {
        static Link read(ByteBuf b) {
            return new Link(b.readLong(), Wire.readString(b), b.readLong(), b.readLong());
        }
    }

    private final long rootId;
    private final FileTable files;
    private final DatanodeRegistry datanodes;
    private final BlockGroups groups;
    private final NamespaceCounts counts;
    private final LeaseManager leases;
    private final Creator creator;
    private final Map<Long, DirectoryInode> directories = new HashMap<>();
    private final AtomicReference<byte[]> unfinishedDirectoryChange;
    private final AdoptionLedger ledger;
    private final LentBlocks lent;
    private final Map<Long, MoveIntent> openMoves;
    private final RetryCache retryCache;
    /** The key a TOKENS record sets, or null (a namespace without one ignores the record). */
    private final BlockTokens tokens;
    private long maxDirectory;
    private long applied;
    private long skipped;

    NamespaceReplay(DirectoryInode root, FileTable files, NamespaceCounts counts, LeaseManager leases,
                    Creator creator, DatanodeRegistry datanodes, BlockGroups groups,
                    AtomicReference<byte[]> unfinishedDirectoryChange, AdoptionLedger ledger, LentBlocks lent,
                    Map<Long, MoveIntent> openMoves, RetryCache retryCache, BlockTokens tokens) {
        this.retryCache = retryCache;
        this.tokens = tokens;
        this.unfinishedDirectoryChange = unfinishedDirectoryChange;
        this.ledger = ledger;
        this.lent = lent;
        this.openMoves = openMoves;
        this.files = files;
        this.datanodes = datanodes;
        this.groups = groups;
        this.counts = counts;
        this.leases = leases;
        this.creator = creator;
        this.rootId = root.id();
        directories.put(root.id(), root);
    }

    /** Records applied so far. */
    public long applied() {
        return applied;
    }

    /** Records skipped because what they changed was deleted by an earlier record. */
    public long skipped() {
        return skipped;
    }

    @Override
    public void replay(long seq, int type, ByteBuf body) throws IOException {
        try {
            boolean done = switch (type) {
                case NamespaceEdits.MKDIR -> mkdir(body);
                case NamespaceEdits.CREATE_FILE -> createFile(body);
                case NamespaceEdits.DELETE_FILE -> deleteFile(body);
                case NamespaceEdits.RMDIR, NamespaceEdits.DELETE_TREE -> deleteDirectory(body);
                case NamespaceEdits.RENAME -> rename(body);
                case NamespaceEdits.SET_ATTR -> setAttributes(body);
                case NamespaceEdits.SET_REPLICATION -> setReplication(body);
                case NamespaceEdits.ROOT -> root(body);
                case NamespaceEdits.FILE_BLOCK -> block(body);
                case NamespaceEdits.FILE_SIZE -> size(body);
                case NamespaceEdits.FILE_CLOSE -> close(body);
                case NamespaceEdits.FILE_REOPEN -> reopen(body);
                case NamespaceEdits.FILE_GROUP_BLOCK -> groupBlock(body);
                case GroupInfo.RECORD -> {
                    groups.replay(body);
                    yield true;
                }
                case NamespaceEdits.DIR_INTENT -> {
                    byte[] change = new byte[body.readableBytes()];
                    body.readBytes(change);
                    unfinishedDirectoryChange.set(change);
                    yield true;
                }
                case NamespaceEdits.DIR_DONE -> {
                    unfinishedDirectoryChange.set(null);
                    yield true;
                }
                case NamespaceEdits.MOVE_BEGIN -> moveBegin(body);
                case NamespaceEdits.MOVE_COMMIT -> moveCommit(body);
                case NamespaceEdits.MOVE_ABORT -> moveAbort(body);
                case NamespaceEdits.BLOCKS_RETURNED -> blocksReturned(body);
                case NamespaceEdits.LENT -> {
                    Block b = readBlock(body, "a lent block");
                    lent.restore(b);
                    yield true;
                }
                case NamespaceEdits.ADOPT -> adopt(body);
                case NamespaceEdits.ADOPTION -> {
                    ledger.restore(body.readLong(), body.readLong());
                    yield true;
                }
                case NamespaceEdits.ADOPTION_SETTLED -> {
                    ledger.forget(body.readLong());
                    yield true;
                }
                case NamespaceEdits.FILE_FOREIGN_BLOCK -> foreignBlock(body);
                case NamespaceEdits.IDS -> ids(body);
                case NamespaceEdits.GENERATIONS -> generations(body);
                case DatanodeRegistry.RECORD -> {
                    datanodes.replay(body);
                    yield true;
                }
                case NamespaceEdits.TOKENS -> {
                    long k0 = body.readLong();
                    long k1 = body.readLong();
                    if (tokens != null) {
                        tokens.rekey(k0, k1);
                    }
                    yield true;
                }
                case RetryCache.RECORD -> {
                    retryCache.replay(body, System.currentTimeMillis());
                    yield true;
                }
                default -> throw new JournalCorruptException("namespace journal record " + seq + " has type " + type
                        + ", which this namenode does not know");
            };
            Wire.end(body);
            if (done) {
                applied++;
            } else {
                skipped++;
            }
        } catch (MalformedMessageException | IllegalStateException e) {
            throw new JournalCorruptException("namespace journal record " + seq + " (type " + type
                    + ") cannot be applied: " + e.getMessage());
        }
    }

    /**
     * Ends the replay: free file slots rebuilt, directory ids handed out from above the highest
     * replayed, and every datanode's free list rebuilt from the blocks the files hold.
     */
    public void finish() {
        files.replayed();
        creator.directoryIdsAbove(maxDirectory);
        List<Block> held = new ArrayList<>();
        files.forEach(f -> held.addAll(Arrays.asList(f.blocks())));
        held.addAll(lent.all()); // files moved to other namenodes use them
        groups.finishReplay(held);
        datanodes.rebuildFreeLists(held);
    }

    /** IDS (checkpoints): reuse counters of empty file slots, and the id high-waters. */
    private boolean ids(ByteBuf b) {
        int highWater = b.readInt();
        long directories = b.readLong();
        int n = b.readInt();
        if (highWater < 0 || directories < 0 || n < 0 || n > b.readableBytes() / 8) {
            throw new IllegalStateException("ids record of " + n + " slots below " + highWater);
        }
        maxDirectory = Math.max(maxDirectory, directories);
        files.restoreHighWater(highWater);
        for (int i = 0; i < n; i++) {
            files.restoreSlot(b.readInt(), b.readInt(), highWater);
        }
        return true;
    }

    /** GENERATIONS (checkpoints): a datanode's block generations from a block number on. */
    private boolean generations(ByteBuf b) {
        int datanodeId = b.readInt();
        int first = b.readInt();
        int n = b.readInt();
        DatanodeInfo dn = datanodes.get(datanodeId);
        if (dn == null || first < 0 || n < 0 || n > b.readableBytes() / 4) {
            throw new IllegalStateException("generations of datanode " + datanodeId + " from block " + first);
        }
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = b.readInt();
        }
        dn.raiseGenerations(first, values);
        return true;
    }

    /** FILE_GROUP_BLOCK: the file's next block, a slot of a block group. */
    private boolean groupBlock(ByteBuf b) {
        long fileId = b.readLong();
        int index = b.readInt();
        long groupId = b.readLong();
        int slot = b.readInt();
        int generation = b.readInt();
        GroupInfo g = groups.get(groupId);
        if (g == null) {
            throw new IllegalStateException("block " + index + " of file " + FileIds.format(fileId) + " is in group "
                    + groupId + ", which no record names (or it was destroyed)");
        }
        g.raiseSlot(slot, generation);
        FileInode f = files.get(fileId);
        if (f == null) {
            return false;
        }
        GroupInfo.Member first = g.members().get(0);
        put(f, index, new Block(first.datanode(), first.incarnation(), first.regionId(), slot, generation, null, g));
        return true;
    }

    /** Block {@code index} of {@code f}: its next one, or a replacement. */
    private static void put(FileInode f, int index, Block block) {
        int count = f.blocks().length;
        if (index == count) {
            f.append(block);
        } else if (index < count) {
            f.replace(index, block);
        } else {
            throw new IllegalStateException("block " + index + " of file " + FileIds.format(f.id()) + ", which has "
                    + count + " block(s)");
        }
    }

    /** FILE_BLOCK: the file's next block, or a replacement of one it has. */
    private boolean block(ByteBuf b) {
        long fileId = b.readLong();
        int index = b.readInt();
        int datanodeId = b.readInt();
        int incarnation = b.readInt();
        int regionId = b.readInt();
        int regionBlock = b.readInt();
        int generation = b.readInt();
        DatanodeInfo dn = datanodes.get(datanodeId);
        if (dn == null) {
            throw new IllegalStateException("block " + index + " of file " + FileIds.format(fileId) + " is on datanode "
                    + datanodeId + ", which no record names");
        }
        dn.raiseGeneration(regionId, regionBlock, generation); // a block freed since still used this generation
        FileInode f = files.get(fileId);
        if (f == null) {
            return false;
        }
        put(f, index, new Block(dn, incarnation, regionId, regionBlock, generation));
        return true;
    }

    private boolean size(ByteBuf b) {
        long fileId = b.readLong();
        long size = b.readLong();
        FileInode f = files.get(fileId);
        if (f == null) {
            return false;
        }
        f.reportDurable(size);
        return true;
    }

    private boolean close(ByteBuf b) {
        long fileId = b.readLong();
        long size = b.readLong();
        long time = b.readLong();
        long recoveredFrom = b.readLong();
        FileInode f = files.get(fileId);
        if (f == null) {
            return false;
        }
        long holder = f.leaseHolder();
        f.finish(size, time, recoveredFrom); // the blocks it gives up are free once the free lists are rebuilt
        if (holder != FileInode.NO_CLIENT) {
            leases.release(holder, fileId);
        }
        return true;
    }

    private boolean reopen(ByteBuf b) {
        long fileId = b.readLong();
        long clientId = b.readLong();
        FileInode f = files.get(fileId);
        if (f == null) {
            return false;
        }
        leases.acquire(clientId, fileId);
        f.reopen(clientId);
        return true;
    }

    private boolean mkdir(ByteBuf b) {
        Link l = Link.read(b);
        Ownership ownership = NamenodeProtocol.readOwnership(b);
        maxDirectory = Math.max(maxDirectory, FileIds.sequence(l.id()));
        DirectoryInode parent = directories.get(l.parentId());
        if (parent == null) {
            return false;
        }
        DirectoryInode dir = new DirectoryInode(l.id(), l.name(), parent, l.time(), ownership);
        link(parent, l.name(), dir, "directory " + FileIds.format(l.id()));
        directories.put(l.id(), dir);
        counts.directoryAdded();
        parent.touch(l.time());
        return true;
    }

    private boolean createFile(ByteBuf b) {
        Link l = Link.read(b);
        long parentId = l.parentId();
        String name = l.name();
        long id = l.id();
        Ownership ownership = NamenodeProtocol.readOwnership(b);
        int blockSize = b.readInt();
        int storageClass = b.readInt();
        int replication = b.readInt();
        long clientId = b.readLong();
        long replacedId = b.readLong();
        DirectoryInode parent = directories.get(parentId);
        if (parent == null) {
            files.retireId(id);
            return false;
        }
        if (replacedId != NamespaceEdits.NONE) {
            FileInode old = files.get(replacedId);
            if (old == null || parent.children().get(name) != old) {
                Inode there = parent.children().get(name);
                throw new IllegalStateException("file " + FileIds.format(id) + " replaces "
                        + FileIds.format(replacedId) + ", which is not linked as '" + name + "' in "
                        + FileIds.format(parentId) + " (" + (old == null ? "it does not exist"
                        : "it is '" + old.name() + "' in " + FileIds.format(old.parent().id())) + "; the name holds "
                        + (there == null ? "nothing" : FileIds.format(there.id())) + ")");
            }
            parent.children().remove(name, old);
            retire(old);
        }
        FileInode file = new FileInode(id, name, parent, l.time(), ownership, blockSize, storageClass, replication,
                clientId);
        link(parent, name, file, "file " + FileIds.format(id));
        files.restore(file);
        leases.acquire(clientId, id);
        counts.fileAdded();
        parent.touch(l.time());
        return true;
    }

    private boolean deleteFile(ByteBuf b) {
        Link l = Link.read(b);
        FileInode f = files.get(l.id());
        if (f == null) {
            return false;
        }
        unlinkFrom(l, f);
        retire(f);
        return true;
    }

    /** Takes {@code node} out of the directory {@code l} names, where it must be linked; touches that directory. */
    private void unlinkFrom(Link l, Inode node) {
        DirectoryInode parent = directories.get(l.parentId());
        if (parent == null || !parent.children().remove(l.name(), node)) {
            throw new IllegalStateException(FileIds.format(l.id()) + " is not linked as '" + l.name() + "' in "
                    + FileIds.format(l.parentId()));
        }
        parent.touch(l.time());
    }

    /** RMDIR and DELETE_TREE: the directory and everything below it. */
    private boolean deleteDirectory(ByteBuf b) {
        Link l = Link.read(b);
        DirectoryInode dir = directories.get(l.id());
        if (dir == null) {
            return false;
        }
        unlinkFrom(l, dir);
        Deque<DirectoryInode> pending = new ArrayDeque<>();
        pending.push(dir);
        while (!pending.isEmpty()) {
            DirectoryInode d = pending.pop();
            d.setState(DirectoryInode.DELETED);
            directories.remove(d.id());
            counts.directoryRemoved();
            for (Inode child : d.children().values()) {
                if (child instanceof FileInode f) {
                    MoveIntent moving = openMoves.get(f.id());
                    if (moving != null) {
                        // Swept during its move: the move's outcome decides who has its blocks.
                        openMoves.put(f.id(), moving.swept(f.blocks()));
                        lent.lend(f.blocks());
                    }
                    retire(f);
                } else {
                    pending.push((DirectoryInode) child);
                }
            }
            d.children().clear();
        }
        return true;
    }

    private boolean rename(ByteBuf b) {
        long id = b.readLong();
        long fromId = b.readLong();
        String fromName = Wire.readString(b);
        long toId = b.readLong();
        String toName = Wire.readString(b);
        long time = b.readLong();
        Inode node = FileIds.isDirectory(id) ? directories.get(id) : files.get(id);
        if (node == null) {
            return false;
        }
        DirectoryInode from = directories.get(fromId);
        DirectoryInode to = directories.get(toId);
        if (from == null || to == null || !from.children().remove(fromName, node)) {
            throw new IllegalStateException("entry " + FileIds.format(id) + " cannot move from '" + fromName + "' in "
                    + FileIds.format(fromId) + " to '" + toName + "' in " + FileIds.format(toId));
        }
        link(to, toName, node, "entry " + FileIds.format(id));
        node.moveTo(to, toName);
        from.touch(time);
        to.touch(time);
        return true;
    }

    private boolean setAttributes(ByteBuf b) {
        long id = b.readLong();
        Ownership ownership = NamenodeProtocol.readOwnership(b);
        long mtime = b.readLong();
        long atime = b.readLong();
        Inode node = node(id);
        if (node == null) {
            return false;
        }
        node.setOwnership(ownership);
        node.setModificationTime(mtime);
        node.setAccessTime(atime);
        return true;
    }

    private boolean setReplication(ByteBuf b) {
        long id = b.readLong();
        int factor = b.readInt();
        Inode node = node(id);
        if (node instanceof DirectoryInode d) {
            d.setReplication(factor);
        } else if (node instanceof FileInode f) {
            f.setReplication(factor);
        }
        return node != null;
    }

    private boolean root(ByteBuf b) {
        DirectoryInode root = directories.get(rootId);
        root.setCreationTime(b.readLong());
        root.setModificationTime(b.readLong());
        root.setAccessTime(b.readLong());
        root.setOwnership(NamenodeProtocol.readOwnership(b));
        root.setReplication(b.readInt());
        return true;
    }

    /** MOVE_BEGIN: a move of a file to another namenode began. */
    private boolean moveBegin(ByteBuf b) {
        long fileId = b.readLong();
        long ticket = b.readLong();
        int to = b.readInt();
        String parent = Wire.readString(b);
        String name = Wire.readString(b);
        if (files.get(fileId) == null) {
            return false;
        }
        openMoves.put(fileId, new MoveIntent(fileId, ticket, to, parent, name, null));
        return true;
    }

    /** MOVE_COMMIT: the file went to its receiver, with its blocks (lent from now on). */
    private boolean moveCommit(ByteBuf b) {
        long fileId = b.readLong();
        b.readLong(); // its id at the receiver
        long time = b.readLong();
        MoveIntent intent = openMoves.remove(fileId);
        FileInode f = files.get(fileId);
        if (f == null) {
            return intent != null; // swept during the move: its blocks are lent already
        }
        DirectoryInode parent = f.parent();
        if (parent == null || !parent.children().remove(f.name(), f)) {
            throw new IllegalStateException("moved file " + FileIds.format(fileId) + " is not linked as '" + f.name()
                    + "'");
        }
        parent.touch(time);
        lent.lend(f.blocks());
        retire(f);
        return true;
    }

    /** MOVE_ABORT: the file stayed (or, swept during the move, its delete frees its blocks). */
    private boolean moveAbort(ByteBuf b) {
        MoveIntent intent = openMoves.remove(b.readLong());
        if (intent != null && intent.swept()) {
            lent.giveBackAll(intent.sweptBlocks());
        }
        return intent != null;
    }

    private boolean blocksReturned(ByteBuf b) {
        int n = b.readInt();
        if (n < 0 || n > b.readableBytes() / 12) {
            throw new IllegalStateException("blocks returned: " + n);
        }
        for (int i = 0; i < n; i++) {
            lent.giveBack(new LentBlocks.Place(b.readInt(), b.readInt(), b.readInt()));
        }
        return true;
    }

    /** A block as {@link NamespaceEdits#writeBlock} wrote it, on the datanode the registry has under its id. */
    private Block readBlock(ByteBuf b, String what) {
        int datanodeId = b.readInt();
        int incarnation = b.readInt();
        int regionId = b.readInt();
        int regionBlock = b.readInt();
        int generation = b.readInt();
        Block.Foreign home = null;
        if (b.readByte() != 0) {
            home = new Block.Foreign(b.readInt(), b.readLong(), b.readInt(), b.readInt(), b.readLong(), b.readLong());
        }
        DatanodeInfo dn = datanodes.get(datanodeId);
        if (dn == null) {
            throw new IllegalStateException(what + " is on datanode " + datanodeId + ", which no record names");
        }
        if (home == null) {
            dn.raiseGeneration(regionId, regionBlock, generation);
        }
        return new Block(dn, incarnation, regionId, regionBlock, generation, home);
    }

    /** FILE_FOREIGN_BLOCK (checkpoints): a block of another namenode's regions at {@code index}. */
    private boolean foreignBlock(ByteBuf b) {
        long fileId = b.readLong();
        int index = b.readInt();
        Block block = readBlock(b, "block " + index + " of file " + FileIds.format(fileId));
        FileInode f = files.get(fileId);
        if (f == null) {
            return false;
        }
        put(f, index, block);
        return true;
    }

    /** ADOPT: a file another namenode moved here, whole, and its ledger entry. */
    private boolean adopt(ByteBuf b) {
        Link l = Link.read(b);
        long fromId = b.readLong();
        long ticket = b.readLong();
        long writer = b.readLong();
        long size = b.readLong();
        int blockSize = b.readInt();
        int storageClass = b.readInt();
        int replication = b.readInt();
        long ctime = b.readLong();
        long mtime = b.readLong();
        long atime = b.readLong();
        Ownership ownership = NamenodeProtocol.readOwnership(b);
        int n = b.readInt();
        if (n < 0 || n > b.readableBytes() / 21) {
            throw new IllegalStateException("adopted file " + FileIds.format(l.id()) + " with " + n + " blocks");
        }
        Block[] blocks = new Block[n];
        for (int i = 0; i < n; i++) {
            blocks[i] = readBlock(b, "block " + i + " of adopted file " + FileIds.format(l.id()));
        }
        ledger.restore(ticket, l.id());
        lent.giveBackAll(blocks); // this namenode's own blocks, home again
        DirectoryInode parent = directories.get(l.parentId());
        if (parent == null) {
            files.retireId(l.id());
            return false;
        }
        FileInode file = new FileInode(l.id(), l.name(), parent, ctime, mtime, atime, ownership, blockSize,
                storageClass, replication, size, blocks, fromId, writer);
        link(parent, l.name(), file, "adopted file " + FileIds.format(l.id()));
        files.restore(file);
        if (writer != FileInode.NO_CLIENT) {
            leases.acquire(writer, l.id());
        }
        counts.fileAdded();
        parent.touch(l.time());
        return true;
    }

    private Inode node(long id) {
        return FileIds.isDirectory(id) ? directories.get(id) : files.get(id);
    }

    private static void link(DirectoryInode parent, String name, Inode node, String what) {
        Inode there = parent.children().putIfAbsent(name, node);
        if (there != null) {
            throw new IllegalStateException(what + " cannot be linked as '" + name + "' in "
                    + FileIds.format(parent.id()) + ": " + FileIds.format(there.id()) + " holds the name");
        }
    }

    /** Unlinked already: frees the file's lease and id as its removal did in memory. */
    private void retire(FileInode f) {
        long holder = f.leaseHolder();
        f.retire();
        if (holder != FileInode.NO_CLIENT) {
            leases.release(holder, f.id());
        }
        files.release(f.id());
        counts.fileRemoved();
    }
}
