package io.tarn.namenode.namespace;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.fs.Replication;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.journal.EditLog;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A namespace written out as the records that rebuild it (a checkpoint's content): replayed into an
 * empty namespace by {@link NamespaceReplay}, they give back every directory and file with its id,
 * name, times, ownership and replication, every file's blocks, size, lease and last writer, the
 * datanodes with their ids, layouts, incarnations and every block's generation, and the file table's
 * reuse counters and id high-waters, so ids handed out afterwards are new.
 *
 * <p>Written from a namespace nothing else changes (one rebuilt from disk for the checkpoint), in
 * this order: the root, the datanodes and their generations, the directories (parents first), the
 * files with their contents, then every entry's final attributes (linking touched the parents'
 * times), moves to other namenodes under way, blocks lent to them, the ledger of files moved here
 * and the id high-waters.
 */
public final class NamespaceImage {
    /** Pairs of (slot, counter) per IDS record, well below the journal's largest record. */
    private static final int SLOTS_PER_RECORD = 1 << 16;
    /** Generations per GENERATIONS record. */
    private static final int GENERATIONS_PER_RECORD = 1 << 18;

    private NamespaceImage() {
    }

    /** Appends the records that rebuild {@code ns} (and its datanodes) to {@code out}. */
    public static void write(Namespace ns, EditLog out) {
        DirectoryInode root = ns.root();
        NamespaceEdits.root(out, root);
        DatanodeRegistry datanodes = ns.allocator().datanodes();
        for (DatanodeInfo dn : datanodes.all()) {
            datanodes.record(dn, out);
            generations(out, dn);
        }
        ns.allocator().groups().record(out);
        List<DirectoryInode> dirs = new ArrayList<>();
        List<FileInode> files = new ArrayList<>();
        Deque<DirectoryInode> pending = new ArrayDeque<>();
        pending.add(root);
        while (!pending.isEmpty()) {
            DirectoryInode d = pending.poll();
            dirs.add(d);
            for (Inode child : d.children().values()) {
                if (child instanceof DirectoryInode sub) {
                    NamespaceEdits.mkdir(out, d, sub.name(), sub, sub.creationTime());
                    if (sub.replication() != Replication.INHERIT) {
                        NamespaceEdits.setReplication(out, sub, sub.replication());
                    }
                    pending.add(sub);
                } else {
                    files.add((FileInode) child);
                }
            }
        }
        for (FileInode f : files) {
            file(out, f);
        }
        for (DirectoryInode d : dirs) {
            NamespaceEdits.setAttributes(out, d);
        }
        for (FileInode f : files) {
            // A closed file's CREATE and CLOSE already leave these times, unless they were set since.
            if (f.underConstruction() || f.accessTime() != f.creationTime()
                    || f.modificationTime() < f.creationTime()) {
                NamespaceEdits.setAttributes(out, f);
            }
        }
        for (MoveIntent m : ns.openMovesMap().values()) {
            if (!m.swept()) { // a swept file is not in the image: its blocks stay lent
                NamespaceEdits.moveBegin(out, m.fileId(), m.ticket(), m.to(), m.targetParent(), m.targetName());
            }
        }
        for (Block b : ns.lent().all()) {
            NamespaceEdits.lent(out, b);
        }
        ns.ledger().forEach((from, to) -> NamespaceEdits.adoption(out, from, to));
        ids(out, ns);
        ns.retryCache().record(out);
        if (ns.tokens() != null) {
            NamespaceEdits.tokens(out, ns.tokens());
        }
        byte[] change = ns.unfinishedDirectoryChange();
        if (change != null) {
            NamespaceEdits.directoryIntent(out, change);
        }
    }

    /**
     * A file as records: created (by its last writer, or its lease holder), its blocks and size,
     * closed as it was; a file open again after a close is closed empty and reopened first, so that
     * its blocks past the last close's size stay.
     */
    private static void file(EditLog out, FileInode f) {
        long id = f.id();
        boolean open = f.underConstruction();
        boolean reopened = open && f.lastWriter() != f.leaseHolder();
        NamespaceEdits.createFile(out, f.parent(), f.name(), f, reopened || !open ? f.lastWriter() : f.leaseHolder(),
                NamespaceEdits.NONE);
        if (reopened) {
            NamespaceEdits.close(out, id, 0, f.modificationTime(), FileInode.NO_CLIENT);
            NamespaceEdits.reopen(out, id, f.leaseHolder());
        }
        Block[] blocks = f.blocks();
        for (int i = 0; i < blocks.length; i++) {
            NamespaceEdits.block(out, id, i, blocks[i]);
        }
        if (open && f.size() > 0) {
            NamespaceEdits.size(out, id, f.size());
        }
        if (!open) {
            NamespaceEdits.close(out, id, f.size(), f.modificationTime(), f.recoveredFrom());
        }
    }

    private static void generations(EditLog out, DatanodeInfo dn) {
        int[] all = dn.generationsCopy();
        for (int first = 0; first < all.length; first += GENERATIONS_PER_RECORD) {
            int n = Math.min(GENERATIONS_PER_RECORD, all.length - first);
            ByteBuf b = Unpooled.buffer(12 + 4 * n);
            b.writeInt(dn.id());
            b.writeInt(first);
            b.writeInt(n);
            for (int i = 0; i < n; i++) {
                b.writeInt(all[first + i]);
            }
            out.append(NamespaceEdits.GENERATIONS, b);
        }
    }

    private static void ids(EditLog out, Namespace ns) {
        FileTable table = ns.fileTable();
        int highWater = table.slotHighWater();
        long directories = ns.creator().directoryHighWater();
        List<int[]> retired = new ArrayList<>();
        table.forEachRetiredSlot((slot, counter) -> retired.add(new int[] {slot, counter}));
        int at = 0;
        do {
            int n = Math.min(SLOTS_PER_RECORD, retired.size() - at);
            ByteBuf b = Unpooled.buffer(16 + 8 * n);
            b.writeInt(highWater);
            b.writeLong(directories);
            b.writeInt(n);
            for (int i = 0; i < n; i++) {
                b.writeInt(retired.get(at + i)[0]);
                b.writeInt(retired.get(at + i)[1]);
            }
            out.append(NamespaceEdits.IDS, b);
            at += n;
        } while (at < retired.size());
    }
}
