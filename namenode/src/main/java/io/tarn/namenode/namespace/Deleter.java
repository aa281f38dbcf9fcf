package io.tarn.namenode.namespace;

import io.tarn.namenode.journal.EditLog;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.TarnPath;
import io.tarn.namenode.Clock;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.lease.LeaseManager;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Removes entries from the namespace and frees what they held: deletes of files, empty directories
 * and whole subtrees, and the reclaiming of a retired file's blocks, lease and id (also for files
 * replaced by an overwrite).
 *
 * <p>Deleting a file or an empty directory is lock-free: the file is unlinked under its own monitor
 * (so exactly one unlinker frees it), the directory is marked BUSY before its emptiness is checked
 * (see {@link DirectoryInode}). Recursive deletes hold the structure lock shared with renames.
 */
final class Deleter {
    private final Clock clock;
    private final PathWalker paths;
    private final ReentrantLock structureLock;
    private final FileTable files;
    private final BlockAllocator allocator;
    private final LeaseManager leases;
    private final NamespaceCounts counts;
    private final EditLog log;

    Deleter(Clock clock, PathWalker paths, ReentrantLock structureLock, FileTable files, BlockAllocator allocator,
            LeaseManager leases, NamespaceCounts counts, EditLog log) {
        this.log = log;
        this.clock = clock;
        this.paths = paths;
        this.structureLock = structureLock;
        this.files = files;
        this.allocator = allocator;
        this.leases = leases;
        this.counts = counts;
    }

    /** See {@link Namespace#delete}. */
    void delete(String path, boolean recursive) throws TarnException {
        List<String> comps = TarnPath.components(path);
        if (comps.isEmpty()) {
            deleteRootContents(recursive);
            return;
        }
        String name = comps.get(comps.size() - 1);
        while (true) {
            Inode p = paths.lookup(path, comps.subList(0, comps.size() - 1));
            if (!(p instanceof DirectoryInode parent)) {
                throw PathWalker.notFound(path, "'" + PathWalker.prefix(comps, comps.size() - 1) + "' is a file");
            }
            Inode node = parent.children().get(name);
            if (node == null) {
                throw PathWalker.notFound(path, null);
            }
            long now = clock.millis();
            boolean done;
            if (node instanceof FileInode f) {
                Unlinked u = unlinkFile(parent, name, f, false, now);
                if (u == Unlinked.MOVING) {
                    // Not deleted by name while it moves: the client retries and deletes it wherever it ends up.
                    throw FileInode.movingRetry("delete", TarnPath.normalize(path));
                }
                done = u == Unlinked.YES;
            } else if (recursive) {
                done = deleteRecursively(parent, name, (DirectoryInode) node, path, now);
            } else {
                done = removeEmptyDirectory(parent, name, (DirectoryInode) node, path, now);
            }
            if (done) {
                parent.touch(now);
                return;
            }
            // Renamed or replaced between lookup and delete: look again.
        }
    }

    private void deleteRootContents(boolean recursive) throws TarnException {
        DirectoryInode root = paths.root();
        if (!recursive) {
            if (!root.children().isEmpty()) {
                throw new TarnException(ErrorCode.DIRECTORY_NOT_EMPTY, "cannot delete '/': it is not empty ("
                        + root.childCount() + " entries); delete recursively to remove everything below it");
            }
            return;
        }
        structureLock.lock();
        try {
            // The root is not marked: entries created after the sweep passed them simply survive, so
            // each entry the sweep takes is recorded on its own.
            long now = clock.millis();
            sweep(root, now);
            root.touch(now);
        } finally {
            structureLock.unlock();
        }
    }

    /**
     * Deletes {@code dir} if it is still linked as {@code name} in {@code parent} and is empty; false
     * when it moved.
     */
    private boolean removeEmptyDirectory(DirectoryInode parent, String name, DirectoryInode dir, String path,
                                         long now) throws TarnException {
        // The directory's monitor: every BUSY holder takes it first, and its creation is recorded under it.
        synchronized (dir) {
            return removeIfEmpty(parent, name, dir, path, now);
        }
    }

    private boolean removeIfEmpty(DirectoryInode parent, String name, DirectoryInode dir, String path, long now)
            throws TarnException {
        while (!dir.transition(DirectoryInode.ALIVE, DirectoryInode.BUSY)) {
            int state = dir.awaitStable();
            if (state == DirectoryInode.DELETED) {
                throw PathWalker.notFound(path, null);
            }
            if (state == DirectoryInode.SEALED) {
                throw new TarnException(ErrorCode.RETRY, "cannot delete '" + TarnPath.normalize(path)
                        + "' now: it is being deleted");
            }
        }
        // BUSY pins the directory's name and parent: a rename of it waits for us.
        if (dir.parent() != parent || !dir.name().equals(name)) {
            dir.setState(DirectoryInode.ALIVE);
            return false;
        }
        if (!dir.children().isEmpty()) {
            dir.setState(DirectoryInode.ALIVE);
            throw new TarnException(ErrorCode.DIRECTORY_NOT_EMPTY, "cannot delete directory '"
                    + TarnPath.normalize(path) + "': it is not empty (" + dir.childCount()
                    + " entries); delete recursively to remove it with its contents");
        }
        dir.setState(DirectoryInode.DELETED);
        counts.directoryRemoved();
        // Recorded while the name is still taken: whoever links it next is recorded after.
        NamespaceEdits.unlink(log, NamespaceEdits.RMDIR, parent, name, dir.id(), now);
        parent.children().remove(name, dir);
        return true;
    }

    /** Deletes {@code dir} and its subtree if it is still linked as {@code name} in {@code parent}. */
    private boolean deleteRecursively(DirectoryInode parent, String name, DirectoryInode dir, String path, long now)
            throws TarnException {
        structureLock.lock();
        try {
            // Renames are excluded now, so this check stays true until we are done.
            if (parent.children().get(name) != dir) {
                return false;
            }
            synchronized (dir) { // after its creation's record
                if (!markDeleted(dir)) {
                    throw PathWalker.notFound(path, null);
                }
                NamespaceEdits.unlink(log, NamespaceEdits.DELETE_TREE, parent, name, dir.id(), now);
            }
            sweep(dir, now);
            parent.children().remove(name, dir);
            return true;
        } finally {
            structureLock.unlock();
        }
    }

    /**
     * ALIVE or SEALED (an rmdir's commit) → DELETED, waiting out BUSY; false when someone else deleted
     * it. Counts the directory.
     */
    private boolean markDeleted(DirectoryInode dir) {
        while (true) {
            if (dir.transition(DirectoryInode.ALIVE, DirectoryInode.DELETED)
                    || dir.transition(DirectoryInode.SEALED, DirectoryInode.DELETED)) {
                counts.directoryRemoved();
                return true;
            }
            if (dir.awaitStable() == DirectoryInode.DELETED) {
                return false;
            }
        }
    }

    /**
     * Unlinks and frees everything below {@code top}, iteratively (deep trees do not overflow the
     * stack). Subdirectories are marked DELETED before they are emptied, so a create racing the sweep
     * into them takes its own entry back out.
     */
    private void sweep(DirectoryInode top, long now) {
        // Below a deleted directory the record of its delete covers everything; the root is not
        // deleted, so what is taken out of it directly is recorded entry by entry.
        boolean recordEach = top.parent() == null;
        Deque<DirectoryInode> pending = new ArrayDeque<>();
        pending.push(top);
        while (!pending.isEmpty()) {
            DirectoryInode dir = pending.pop();
            boolean record = recordEach && dir == top;
            for (Map.Entry<String, Inode> e : dir.children().entrySet()) {
                Inode child = e.getValue();
                if (child instanceof FileInode f) {
                    unlinkFile(dir, e.getKey(), f, true, record ? now : NOT_RECORDED);
                } else {
                    DirectoryInode sub = (DirectoryInode) child;
                    synchronized (sub) {
                        if (markDeleted(sub)) {
                            pending.push(sub);
                            if (record) {
                                NamespaceEdits.unlink(log, NamespaceEdits.DELETE_TREE, dir, e.getKey(), sub.id(), now);
                            }
                        }
                    }
                    dir.children().remove(e.getKey(), sub);
                }
            }
        }
    }

    /** A time for {@link #unlinkFile} that means "covered by the record of a directory's delete". */
    private static final long NOT_RECORDED = Long.MIN_VALUE;

    /** What {@link #unlinkFile} did. */
    private enum Unlinked { YES, NOT_THERE, MOVING }

    /**
     * Unlinks a file under its monitor and frees it; NOT_THERE when it was no longer linked there.
     * A file moving to another namenode is left alone (MOVING), except by a recursive delete
     * ({@code sweeping}), which takes it out of the directory and leaves the rest to the move: if the
     * move fails, the file is freed then; if it succeeds, the file escaped the delete (the rename
     * came first).
     */
    private Unlinked unlinkFile(DirectoryInode dir, String name, FileInode f, boolean sweeping, long now) {
        Block[] freed;
        long holder;
        synchronized (f) {
            if (f.retired()) {
                return Unlinked.NOT_THERE;
            }
            if (f.moving()) {
                if (sweeping && dir.children().remove(name, f)) {
                    f.unlinkWhileMoving();
                }
                return Unlinked.MOVING;
            }
            // Every unlinker of f holds its monitor, so whether it is linked there holds until we let go.
            if (dir.children().get(name) != f) {
                return Unlinked.NOT_THERE;
            }
            // Recorded while the name is still taken: whoever links it next is recorded after.
            if (now != NOT_RECORDED) {
                NamespaceEdits.unlink(log, NamespaceEdits.DELETE_FILE, dir, name, f.id(), now);
            }
            dir.children().remove(name, f);
            holder = f.leaseHolder();
            freed = f.retire();
        }
        reclaim(f, freed, holder);
        return Unlinked.YES;
    }

    /** Retires a file that is no longer linked anywhere (idempotent). */
    void retire(FileInode f) {
        Block[] freed;
        long holder;
        synchronized (f) {
            holder = f.leaseHolder();
            freed = f.retire();
        }
        reclaim(f, freed, holder);
    }

    /**
     * Frees what a just-retired file held: its blocks, its lease, its id. {@code freed} is what
     * {@link FileInode#retire()} returned, so null (already retired) frees nothing a second time.
     */
    void reclaim(FileInode f, Block[] freed, long leaseHolder) {
        if (freed == null) {
            return;
        }
        allocator.free(freed);
        if (leaseHolder != FileInode.NO_CLIENT) {
            leases.release(leaseHolder, f.id());
        }
        files.release(f.id());
        counts.fileRemoved();
    }
}
