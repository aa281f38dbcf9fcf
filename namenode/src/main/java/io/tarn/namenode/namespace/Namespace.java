package io.tarn.namenode.namespace;

import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.namenode.Clock;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.lease.LeaseManager;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The directory tree and the files in it, addressed by path, with full names (never hashes): the
 * namespace operations the namenode serves. Lookups and listings are answered here; creating,
 * deleting and renaming are delegated to {@link Creator}, {@link Deleter} and {@link Renamer}, which
 * share a {@link PathWalker} over one root.
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

    private final FileTable files;
    private final NamespaceCounts counts = new NamespaceCounts();
    private final PathWalker paths;
    private final Creator creator;
    private final Deleter deleter;
    private final Renamer renamer;

    public Namespace(Clock clock, int blockSize, FileTable files, BlockAllocator allocator, LeaseManager leases) {
        this.files = files;
        this.paths = new PathWalker(new DirectoryInode(FileIds.directory(0), "", null, clock.millis()));
        // The single structure lock: held by renames and recursive deletes only.
        ReentrantLock structureLock = new ReentrantLock();
        this.deleter = new Deleter(clock, paths, structureLock, files, allocator, leases, counts);
        this.creator = new Creator(clock, blockSize, paths, files, leases, deleter, counts);
        this.renamer = new Renamer(clock, paths, structureLock);
    }

    public long fileCount() {
        return counts.files();
    }

    /** Directories, the root included. */
    public long directoryCount() {
        return counts.directories();
    }

    public FileTable fileTable() {
        return files;
    }

    // ------------------------------------------------------------------ lookups

    /** The status of a file or directory. */
    public FileStatus getFile(String path) throws TarnException {
        return paths.lookup(path, TarnPath.components(path)).status();
    }

    /**
     * One page of a directory listing, sorted by name: up to {@code max} entries named after
     * {@code startAfter}. A file lists as itself.
     */
    public ListResponse list(String path, String startAfter, int max) throws TarnException {
        Inode node = paths.lookup(path, TarnPath.components(path));
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

    // ------------------------------------------------------------------ changes

    /** Creates every missing directory of the path; fine when it exists as a directory. */
    public FileStatus mkdirs(String path) throws TarnException {
        return creator.mkdirs(path);
    }

    /**
     * Creates a file under construction, leased to {@code clientId}, or (type DIRECTORY) the
     * directory at exactly this path.
     */
    public FileStatus create(String path, FileType type, boolean overwrite, boolean createParents, int storageClass,
                             long clientId) throws TarnException {
        return creator.create(path, type, overwrite, createParents, storageClass, clientId);
    }

    /**
     * Deletes a file, an empty directory, or (recursive) a directory and everything below it. The
     * root itself stays: a recursive delete of "/" empties it.
     */
    public void delete(String path, boolean recursive) throws TarnException {
        deleter.delete(path, recursive);
    }

    /**
     * Renames with HDFS semantics: into {@code dst} when it is an existing directory, otherwise to
     * {@code dst} itself, whose parent must exist. Fails with FILE_EXISTS when the target exists,
     * RENAME_INVALID for the root or a directory moved into its own subtree; renaming a file onto
     * itself succeeds and changes nothing. The full rule table is in {@link Renamer}.
     */
    public void rename(String src, String dst) throws TarnException {
        renamer.rename(src, dst);
    }
}
