package io.tarn.namenode.namespace;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.namenode.Clock;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.lease.LeaseManager;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The directory tree and the files in it, addressed by path, with full names (never hashes).
 *
 * <p>Concurrency:
 * <ul>
 *   <li>getFile and list take no lock: each directory keeps its children in a concurrent map.</li>
 *   <li>create, mkdirs, delete of a file and delete of an empty directory are lock-free with respect
 *       to each other: inserters put first and check the parent's state after, deleters mark the
 *       directory first and check emptiness after (see {@link DirectoryInode}). A file is only
 *       unlinked (delete, overwrite, rename, recursive sweep) under its own monitor, so exactly one
 *       unlinker frees it.</li>
 *   <li>rename and recursive delete serialize on one structure lock: they are rare, and this keeps
 *       the subtree check of a directory rename and the sweep of a recursive delete simple. They still
 *       run concurrently with the lock-free operations.</li>
 * </ul>
 * Files are keyed by (parent directory, name): the per-directory map holds the files this partition
 * owns next to the (replicated) subdirectories. With one namenode the partition is 0.
 *
 * <p>Errors: a path through a file reads as FILE_NOT_FOUND for lookups (like HDFS) and
 * NOT_A_DIRECTORY when creating below it.
 */
public final class Namespace {
    /** Largest page a listing returns, whatever the client asks for, so a response fits in a frame. */
    public static final int MAX_LIST_PAGE = 16_384;

    private final Clock clock;
    private final int defaultBlockSize;
    private final FileTable files;
    private final BlockAllocator allocator;
    private final LeaseManager leases;
    private final DirectoryInode root;
    private final AtomicLong nextDirectory = new AtomicLong(1);
    private final AtomicLong fileCount = new AtomicLong();
    private final AtomicLong directoryCount = new AtomicLong(1);
    private final ReentrantLock structureLock = new ReentrantLock();

    public Namespace(Clock clock, int blockSize, FileTable files, BlockAllocator allocator, LeaseManager leases) {
        this.clock = clock;
        this.defaultBlockSize = blockSize;
        this.files = files;
        this.allocator = allocator;
        this.leases = leases;
        this.root = new DirectoryInode(FileIds.directory(0), "", null, clock.millis());
    }

    public long fileCount() {
        return fileCount.get();
    }

    /** Directories, the root included. */
    public long directoryCount() {
        return directoryCount.get();
    }

    public FileTable fileTable() {
        return files;
    }

    // ------------------------------------------------------------------ lookups

    /** The status of a file or directory. */
    public FileStatus getFile(String path) throws TarnException {
        return lookup(path, TarnPath.components(path)).status();
    }

    /**
     * One page of a directory listing, sorted by name: up to {@code max} entries named after
     * {@code startAfter}. A file lists as itself.
     */
    public ListResponse list(String path, String startAfter, int max) throws TarnException {
        Inode node = lookup(path, TarnPath.components(path));
        if (node instanceof FileInode f) {
            boolean include = f.name().compareTo(startAfter) > 0;
            return new ListResponse(false, include ? List.of(f.status()) : List.of());
        }
        DirectoryInode dir = (DirectoryInode) node;
        int limit = Math.min(max, MAX_LIST_PAGE);
        // Keep the limit+1 smallest names after startAfter: O(n log limit), no full sort of big directories.
        PriorityQueue<Inode> smallest = new PriorityQueue<>(Comparator.comparing(Inode::name).reversed());
        for (Map.Entry<String, Inode> e : dir.children().entrySet()) {
            if (e.getKey().compareTo(startAfter) > 0) {
                smallest.add(e.getValue());
                if (smallest.size() > limit + 1) {
                    smallest.poll();
                }
            }
        }
        boolean hasMore = smallest.size() > limit;
        if (hasMore) {
            smallest.poll();
        }
        List<FileStatus> page = new ArrayList<>(smallest.size());
        while (!smallest.isEmpty()) {
            page.add(smallest.poll().status());
        }
        Collections.reverse(page);
        return new ListResponse(hasMore, page);
    }

    private Inode lookup(String path, List<String> comps) throws TarnException {
        Inode cur = root;
        for (int i = 0; i < comps.size(); i++) {
            if (!(cur instanceof DirectoryInode dir)) {
                throw notFound(path, "'" + prefix(comps, i) + "' is a file");
            }
            cur = dir.children().get(comps.get(i));
            if (cur == null) {
                throw notFound(path, null);
            }
        }
        return cur;
    }

    /** The inode at a path, or null when missing or below a file. */
    private Inode find(List<String> comps, int length) {
        Inode cur = root;
        for (int i = 0; i < length; i++) {
            if (!(cur instanceof DirectoryInode dir)) {
                return null;
            }
            cur = dir.children().get(comps.get(i));
            if (cur == null) {
                return null;
            }
        }
        return cur;
    }

    // ------------------------------------------------------------------ create, mkdirs

    /** Creates every missing directory of the path; fine when it exists as a directory. */
    public FileStatus mkdirs(String path) throws TarnException {
        List<String> comps = TarnPath.components(path);
        DirectoryInode dir = root;
        for (int i = 0; i < comps.size(); i++) {
            Inode child = linkDirectory(dir, comps.get(i), comps, i + 1);
            if (child instanceof FileInode) {
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot create directory '" + TarnPath.normalize(path)
                        + "': '" + prefix(comps, i + 1) + "' exists and is a file");
            }
            dir = (DirectoryInode) child;
        }
        return dir.status();
    }

    /**
     * Creates a file under construction, leased to {@code clientId}, or (type DIRECTORY) the
     * directory at exactly this path.
     */
    public FileStatus create(String path, FileType type, boolean overwrite, boolean createParents, int storageClass,
                             long clientId) throws TarnException {
        List<String> comps = TarnPath.components(path);
        String norm = TarnPath.normalize(path);
        if (comps.isEmpty()) {
            if (type == FileType.DIRECTORY) {
                return root.status();
            }
            throw new TarnException(ErrorCode.IS_A_DIRECTORY, "cannot create file '/': it is the root directory");
        }
        DirectoryInode parent = parentForCreate(comps, norm, createParents);
        String name = comps.get(comps.size() - 1);
        if (type == FileType.DIRECTORY) {
            Inode child = linkDirectory(parent, name, comps, comps.size());
            if (child instanceof FileInode) {
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot create directory '" + norm
                        + "': a file exists there");
            }
            return child.status();
        }
        return createFile(parent, name, norm, overwrite, storageClass, clientId);
    }

    private FileStatus createFile(DirectoryInode parent, String name, String path, boolean overwrite,
                                  int storageClass, long clientId) throws TarnException {
        while (true) {
            Inode existing = parent.children().get(name);
            if (existing instanceof DirectoryInode) {
                throw new TarnException(ErrorCode.IS_A_DIRECTORY, "cannot create file '" + path
                        + "': it is a directory");
            }
            if (existing != null && !overwrite) {
                throw new TarnException(ErrorCode.FILE_EXISTS, "'" + path
                        + "' already exists; create it with overwrite to replace it");
            }
            FileInode file = newFile(parent, name, storageClass, clientId);
            boolean linked;
            if (existing == null) {
                linked = parent.children().putIfAbsent(name, file) == null;
            } else {
                linked = replace(parent, name, (FileInode) existing, file, path, clientId);
            }
            if (!linked) {
                discard(file, clientId);
                continue;
            }
            if (!commitLink(parent, name, file)) {
                retire(file);
                throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot create '" + path
                        + "': its parent directory was deleted meanwhile");
            }
            parent.touch(clock.millis());
            return file.status();
        }
    }

    /** Replaces {@code old} by {@code file} unless another live client is writing it. */
    private boolean replace(DirectoryInode parent, String name, FileInode old, FileInode file, String path,
                            long clientId) throws TarnException {
        Block[] freed;
        long oldHolder;
        synchronized (old) {
            if (old.retired()) {
                return false;
            }
            oldHolder = old.leaseHolder();
            boolean conflict = old.underConstruction() && oldHolder != clientId && leases.isLive(oldHolder);
            if (conflict || !parent.children().replace(name, old, file)) {
                freed = null;
            } else {
                freed = old.retire();
            }
            if (conflict) {
                discardAfter(file, clientId);
                throw new TarnException(ErrorCode.LEASE_CONFLICT, "cannot overwrite '" + path
                        + "': it is being written by client " + Long.toHexString(oldHolder)
                        + " (lease renewed " + leases.silenceMs(oldHolder) + " ms ago; it expires after "
                        + leases.timeoutMs() + " ms without renewal)");
            }
        }
        if (freed == null) {
            return false;
        }
        reclaim(old, freed, oldHolder);
        return true;
    }

    private FileInode newFile(DirectoryInode parent, String name, int storageClass, long clientId)
            throws TarnException {
        long id = files.reserve();
        FileInode file = new FileInode(id, name, parent, clock.millis(), defaultBlockSize, storageClass, clientId);
        // Lease first: from the moment the file is visible, another writer sees it as leased.
        leases.acquire(clientId, id);
        files.publish(file);
        fileCount.incrementAndGet();
        return file;
    }

    /** Undoes {@link #newFile} for a file that was never linked (so no other thread can reach it by path). */
    private void discard(FileInode file, long clientId) {
        synchronized (file) {
            file.retire();
        }
        discardAfter(file, clientId);
    }

    private void discardAfter(FileInode file, long clientId) {
        leases.release(clientId, file.id());
        files.release(file.id());
        fileCount.decrementAndGet();
    }

    private DirectoryInode parentForCreate(List<String> comps, String path, boolean createParents)
            throws TarnException {
        DirectoryInode dir = root;
        for (int i = 0; i < comps.size() - 1; i++) {
            Inode next = dir.children().get(comps.get(i));
            if (next == null) {
                if (!createParents) {
                    throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot create '" + path
                            + "': parent directory '" + prefix(comps, i + 1)
                            + "' does not exist (create it first, or ask to create parents)");
                }
                next = linkDirectory(dir, comps.get(i), comps, i + 1);
            }
            if (next instanceof FileInode) {
                throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "cannot create '" + path + "': '"
                        + prefix(comps, i + 1) + "' is a file, not a directory");
            }
            dir = (DirectoryInode) next;
        }
        return dir;
    }

    /** The child called {@code name}: the existing entry (of either kind), or a new directory. */
    private Inode linkDirectory(DirectoryInode parent, String name, List<String> comps, int depth)
            throws TarnException {
        while (true) {
            Inode existing = parent.children().get(name);
            if (existing != null) {
                return existing;
            }
            DirectoryInode dir = new DirectoryInode(FileIds.directory(nextDirectory.getAndIncrement()), name, parent,
                    clock.millis());
            if (parent.children().putIfAbsent(name, dir) != null) {
                continue;
            }
            directoryCount.incrementAndGet();
            if (!commitLink(parent, name, dir)) {
                abandon(dir);
                throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot create directory '"
                        + prefix(comps, depth) + "': its parent directory was deleted meanwhile");
            }
            parent.touch(clock.millis());
            return dir;
        }
    }

    /**
     * Deletes a directory whose link into a deleted parent was taken back. Other creators may have
     * found it while it was linked and put entries into it, believing them created; those are swept
     * like the rest of the deleted parent (their creates linearize before the delete). If the
     * parent's sweep found the directory first, it already did this. Rare (only when racing a
     * recursive delete), so it may wait for the structure lock.
     */
    private void abandon(DirectoryInode dir) {
        structureLock.lock();
        try {
            if (markDeleted(dir)) {
                sweep(dir);
            }
        } finally {
            structureLock.unlock();
        }
    }

    /**
     * Second half of every insertion: keeps a child just put into {@code parent}'s map when the
     * parent is alive; takes it back out and returns false when the parent was deleted.
     */
    private static boolean commitLink(DirectoryInode parent, String name, Inode child) {
        if (parent.awaitStable() == DirectoryInode.ALIVE) {
            return true;
        }
        parent.children().remove(name, child);
        return false;
    }

    // ------------------------------------------------------------------ delete

    /**
     * Deletes a file, an empty directory, or (recursive) a directory and everything below it. The
     * root itself stays: a recursive delete of "/" empties it.
     */
    public void delete(String path, boolean recursive) throws TarnException {
        List<String> comps = TarnPath.components(path);
        if (comps.isEmpty()) {
            deleteRootContents(recursive);
            return;
        }
        String name = comps.get(comps.size() - 1);
        while (true) {
            Inode p = lookup(path, comps.subList(0, comps.size() - 1));
            if (!(p instanceof DirectoryInode parent)) {
                throw notFound(path, "'" + prefix(comps, comps.size() - 1) + "' is a file");
            }
            Inode node = parent.children().get(name);
            if (node == null) {
                throw notFound(path, null);
            }
            boolean done;
            if (node instanceof FileInode f) {
                done = unlinkFile(parent, name, f);
            } else if (recursive) {
                done = deleteRecursively(parent, name, (DirectoryInode) node, path);
            } else {
                done = removeEmptyDirectory(parent, name, (DirectoryInode) node, path);
            }
            if (done) {
                parent.touch(clock.millis());
                return;
            }
            // Renamed or replaced between lookup and delete: look again.
        }
    }

    private void deleteRootContents(boolean recursive) throws TarnException {
        if (!recursive) {
            if (!root.children().isEmpty()) {
                throw new TarnException(ErrorCode.DIRECTORY_NOT_EMPTY, "cannot delete '/': it is not empty ("
                        + root.childCount() + " entries); delete recursively to remove everything below it");
            }
            return;
        }
        structureLock.lock();
        try {
            // The root is not marked: entries created after the sweep passed them simply survive.
            sweep(root);
        } finally {
            structureLock.unlock();
        }
    }

    /** Deletes {@code dir} if it is still linked as {@code name} in {@code parent} and is empty; false when it moved. */
    private boolean removeEmptyDirectory(DirectoryInode parent, String name, DirectoryInode dir, String path)
            throws TarnException {
        while (!dir.transition(DirectoryInode.ALIVE, DirectoryInode.BUSY)) {
            if (dir.awaitStable() == DirectoryInode.DELETED) {
                throw notFound(path, null);
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
        directoryCount.decrementAndGet();
        parent.children().remove(name, dir);
        return true;
    }

    /** Deletes {@code dir} and its subtree if it is still linked as {@code name} in {@code parent}. */
    private boolean deleteRecursively(DirectoryInode parent, String name, DirectoryInode dir, String path)
            throws TarnException {
        structureLock.lock();
        try {
            // Renames are excluded now, so this check stays true until we are done.
            if (parent.children().get(name) != dir) {
                return false;
            }
            if (!markDeleted(dir)) {
                throw notFound(path, null);
            }
            sweep(dir);
            parent.children().remove(name, dir);
            return true;
        } finally {
            structureLock.unlock();
        }
    }

    /** ALIVE → DELETED (waiting out BUSY); false when someone else deleted it. Counts the directory. */
    private boolean markDeleted(DirectoryInode dir) {
        while (true) {
            if (dir.transition(DirectoryInode.ALIVE, DirectoryInode.DELETED)) {
                directoryCount.decrementAndGet();
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
    private void sweep(DirectoryInode top) {
        Deque<DirectoryInode> pending = new ArrayDeque<>();
        pending.push(top);
        while (!pending.isEmpty()) {
            DirectoryInode dir = pending.pop();
            for (Map.Entry<String, Inode> e : dir.children().entrySet()) {
                Inode child = e.getValue();
                if (child instanceof FileInode f) {
                    unlinkFile(dir, e.getKey(), f);
                } else {
                    DirectoryInode sub = (DirectoryInode) child;
                    if (markDeleted(sub)) {
                        pending.push(sub);
                    }
                    dir.children().remove(e.getKey(), sub);
                }
            }
        }
    }

    /** Unlinks a file under its monitor and frees it; false when it was no longer linked there. */
    private boolean unlinkFile(DirectoryInode dir, String name, FileInode f) {
        Block[] freed;
        long holder;
        synchronized (f) {
            if (f.retired() || !dir.children().remove(name, f)) {
                return false;
            }
            holder = f.leaseHolder();
            freed = f.retire();
        }
        reclaim(f, freed, holder);
        return true;
    }

    /** Retires a file that is no longer linked anywhere (idempotent). */
    private void retire(FileInode f) {
        Block[] freed;
        long holder;
        synchronized (f) {
            holder = f.leaseHolder();
            freed = f.retire();
        }
        reclaim(f, freed, holder);
    }

    /** Frees what a just-retired file held: its blocks, its lease, its id. */
    private void reclaim(FileInode f, Block[] freed, long leaseHolder) {
        if (freed == null) {
            return;
        }
        for (Block b : freed) {
            allocator.free(b);
        }
        if (leaseHolder != FileInode.NO_CLIENT) {
            leases.release(leaseHolder, f.id());
        }
        files.release(f.id());
        fileCount.decrementAndGet();
    }

    // ------------------------------------------------------------------ rename

    /**
     * Renames with HDFS semantics: into {@code dst} when it is an existing directory, otherwise to
     * {@code dst} itself, whose parent must exist. Fails with FILE_EXISTS when the target exists,
     * RENAME_INVALID for the root or a directory moved into its own subtree; renaming a file onto
     * itself succeeds and changes nothing.
     */
    public void rename(String src, String dst) throws TarnException {
        List<String> sc = TarnPath.components(src);
        List<String> dc = TarnPath.components(dst);
        String srcPath = TarnPath.normalize(src);
        String dstPath = TarnPath.normalize(dst);
        if (sc.isEmpty()) {
            throw new TarnException(ErrorCode.RENAME_INVALID, "cannot rename the root directory");
        }
        structureLock.lock();
        try {
            Inode source = find(sc, sc.size());
            if (source == null) {
                throw new TarnException(ErrorCode.FILE_NOT_FOUND, "cannot rename '" + srcPath
                        + "': it does not exist");
            }
            DirectoryInode srcParent = source.parent();
            String srcName = source.name();
            Inode target = find(dc, dc.size());
            DirectoryInode targetDir;
            String targetName;
            if (target instanceof DirectoryInode d) {
                targetDir = d;
                targetName = srcName;
            } else if (target != null) {
                if (target == source) {
                    return;
                }
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot rename '" + srcPath + "' to '" + dstPath
                        + "': the destination exists");
            } else {
                Inode p = find(dc, dc.size() - 1);
                if (p == null) {
                    throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot rename '" + srcPath + "' to '"
                            + dstPath + "': parent directory '" + TarnPath.parent(dstPath) + "' does not exist");
                }
                if (p instanceof FileInode) {
                    throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "cannot rename '" + srcPath + "' to '"
                            + dstPath + "': '" + TarnPath.parent(dstPath) + "' is a file");
                }
                targetDir = (DirectoryInode) p;
                targetName = dc.get(dc.size() - 1);
            }
            Inode occupant = targetDir.children().get(targetName);
            if (occupant == source) {
                return;
            }
            String targetPath = TarnPath.child(targetDir.path(), targetName);
            if (occupant != null) {
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot rename '" + srcPath + "' to '" + targetPath
                        + "': the destination exists");
            }
            if (source instanceof DirectoryInode sd && isSelfOrAncestor(sd, targetDir)) {
                throw new TarnException(ErrorCode.RENAME_INVALID, "cannot move directory '" + srcPath
                        + "' into its own subtree '" + targetPath + "'");
            }
            if (source instanceof FileInode f) {
                moveFile(f, srcParent, srcName, targetDir, targetName, srcPath, targetPath);
            } else {
                moveDirectory((DirectoryInode) source, srcParent, srcName, targetDir, targetName, srcPath,
                        targetPath);
            }
            long now = clock.millis();
            srcParent.touch(now);
            targetDir.touch(now);
        } finally {
            structureLock.unlock();
        }
    }

    private static boolean isSelfOrAncestor(DirectoryInode dir, DirectoryInode of) {
        for (DirectoryInode d = of; d != null; d = d.parent()) {
            if (d == dir) {
                return true;
            }
        }
        return false;
    }

    /**
     * Links the file at the target first and unlinks it at the source after, so a reader always finds
     * it under one of the names. Holding the file's monitor keeps deletes and overwrites out.
     */
    private void moveFile(FileInode f, DirectoryInode srcParent, String srcName, DirectoryInode targetDir,
                          String targetName, String srcPath, String targetPath) throws TarnException {
        synchronized (f) {
            if (f.retired() || srcParent.children().get(srcName) != f) {
                throw new TarnException(ErrorCode.FILE_NOT_FOUND, "cannot rename '" + srcPath
                        + "': it was deleted meanwhile");
            }
            link(f, targetDir, targetName, srcPath, targetPath);
            f.moveTo(targetDir, targetName);
            srcParent.children().remove(srcName, f);
        }
    }

    /** Pins the directory (BUSY) so a concurrent rmdir of it waits, then moves it like a file. */
    private void moveDirectory(DirectoryInode dir, DirectoryInode srcParent, String srcName,
                               DirectoryInode targetDir, String targetName, String srcPath, String targetPath)
            throws TarnException {
        while (!dir.transition(DirectoryInode.ALIVE, DirectoryInode.BUSY)) {
            if (dir.awaitStable() == DirectoryInode.DELETED) {
                throw new TarnException(ErrorCode.FILE_NOT_FOUND, "cannot rename '" + srcPath
                        + "': it was deleted meanwhile");
            }
        }
        try {
            link(dir, targetDir, targetName, srcPath, targetPath);
            dir.moveTo(targetDir, targetName);
            srcParent.children().remove(srcName, dir);
        } finally {
            dir.setState(DirectoryInode.ALIVE);
        }
    }

    private static void link(Inode node, DirectoryInode targetDir, String targetName, String srcPath,
                             String targetPath) throws TarnException {
        if (targetDir.children().putIfAbsent(targetName, node) != null) {
            throw new TarnException(ErrorCode.FILE_EXISTS, "cannot rename '" + srcPath + "' to '" + targetPath
                    + "': the destination was created meanwhile");
        }
        if (!commitLink(targetDir, targetName, node)) {
            throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot rename '" + srcPath + "' to '" + targetPath
                    + "': the destination directory was deleted meanwhile");
        }
    }

    // ------------------------------------------------------------------ helpers

    private static TarnException notFound(String path, String why) {
        String p;
        try {
            p = TarnPath.normalize(path);
        } catch (TarnException e) {
            p = path;
        }
        return new TarnException(ErrorCode.FILE_NOT_FOUND, "no such file or directory: '" + p + "'"
                + (why != null ? " (" + why + ")" : ""));
    }

    private static String prefix(List<String> comps, int n) {
        if (n == 0) {
            return "/";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append('/').append(comps.get(i));
        }
        return sb.toString();
    }
}
