package io.tarn.namenode.namespace;

import io.netty.buffer.ByteBuf;
import io.tarn.namenode.journal.EditLog;
import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ReplicationException;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.security.BlockTokens;
import io.tarn.common.fs.Replication;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.PeerProtocol.DirectorySnapshot;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.namenode.security.Caller;
import io.tarn.namenode.Clock;
import io.tarn.namenode.Partitioning;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.lease.LeaseManager;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
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
    /** Group of the root directory, inherited by entries created without a group (as in HDFS). */
    public static final String ROOT_GROUP = "supergroup";

    private final FileTable files;
    private final NamespaceCounts counts = new NamespaceCounts();
    private final PathWalker paths;
    private final Permissions permissions;
    private final Creator creator;
    private final Deleter deleter;
    private final Renamer renamer;
    private final TreeCopy treeCopy;
    private final Partitioning partitioning;
    private final Clock clock;
    private final LeaseManager leases;
    private final int defaultReplication;
    private final BlockAllocator allocator;
    private final EditLog log;
    /**
     * The directory coordinator's change that began (DIR_INTENT) and did not end before the
     * journal was last closed, as replay found it; null when none.
     */
    private final AtomicReference<byte[]> unfinishedDirectoryChange = new AtomicReference<>();
    /** Files other namenodes moved here, by their id there, until their sender settles them. */
    private final AdoptionLedger ledger = new AdoptionLedger();
    /** This namenode's blocks that files moved to other namenodes hold. */
    private final LentBlocks lent = new LentBlocks();
    /** Answers of client calls applied once ({@code Opcode.ONCE}). */
    private final RetryCache retryCache = new RetryCache();
    /** The block token key, recorded in images and by a group's first leader; null when unknown. */
    private volatile BlockTokens tokens;
    /** Moves of files to other namenodes begun and not yet ended, by file id. */
    private final Map<Long, MoveIntent> openMoves = new ConcurrentHashMap<>();
    /** Held by renames and recursive deletes only (and a snapshot of the tree). */
    private final ReentrantLock structureLock = new ReentrantLock();

    /** A single namenode's namespace (partition 0 of 1), whose files have replication 1 by default. */
    public Namespace(Clock clock, int blockSize, FileTable files, BlockAllocator allocator, LeaseManager leases) {
        this(clock, blockSize, files, allocator, leases,
                Partitioning.single(new HostPort("127.0.0.1", 0)), Replication.ONE);
    }

    /**
     * The part of the namespace one partition serves: every directory, and the files whose names
     * hash to {@code partitioning.partition()}. Until the directory coordinator exists
     * (docs/partitioning.md), a namespace of several partitions refuses directory changes with
     * NOT_SUPPORTED; files in existing directories (the root) work. Files whose directories set no
     * replication default get {@code defaultReplication} ({@code tarn.replication.default}).
     */
    public Namespace(Clock clock, int blockSize, FileTable files, BlockAllocator allocator, LeaseManager leases,
                     Partitioning partitioning, int defaultReplication) {
        this(clock, blockSize, files, allocator, leases, partitioning, defaultReplication, EditLog.NONE);
    }

    /**
     * As {@link #Namespace(Clock, int, FileTable, BlockAllocator, LeaseManager, Partitioning, int)},
     * recording every mutation to {@code log} ({@link NamespaceEdits}).
     */
    public Namespace(Clock clock, int blockSize, FileTable files, BlockAllocator allocator, LeaseManager leases,
                     Partitioning partitioning, int defaultReplication, EditLog log) {
        this.log = log;
        this.files = files;
        this.partitioning = partitioning;
        this.clock = clock;
        this.leases = leases;
        this.allocator = allocator;
        Ownership rootOwnership = new Ownership(System.getProperty("user.name", "tarn"), ROOT_GROUP,
                Ownership.DIRECTORY_DEFAULT);
        this.paths = new PathWalker(new DirectoryInode(FileIds.directory(0), "", null, clock.millis(), rootOwnership));
        this.permissions = new Permissions(paths, files);
        this.deleter = new Deleter(clock, paths, structureLock, files, allocator, leases, counts, log);
        if (!Replication.valid(defaultReplication)) {
            throw new IllegalArgumentException("tarn.replication.default = " + defaultReplication + ": must be 1 or 3");
        }
        this.defaultReplication = defaultReplication;
        this.creator = new Creator(clock, blockSize, paths, files, leases, deleter, counts,
                partitioning.count() == 1, allocator, defaultReplication, log);
        this.renamer = new Renamer(clock, paths, structureLock, log);
        this.treeCopy = new TreeCopy(paths, structureLock, creator, renamer, deleter, log);
    }

    /**
     * A replayer that rebuilds this namespace from the records of {@link NamespaceEdits}: for a
     * namespace that was just created and serves nothing yet; call {@link NamespaceReplay#finish}
     * after the last record.
     */
    /** The block token key of this namespace's namenode: images record it, a group's replay sets it. */
    public void tokens(BlockTokens key) {
        this.tokens = key;
    }

    /** The block token key, or null when none was given. */
    public BlockTokens tokens() {
        return tokens;
    }

    /**
     * Records the block token key: the first leader of a namenode group does, so that every member
     * issues and checks tokens under one key, and a new leader's tokens are those of the last.
     */
    public void recordTokens() {
        NamespaceEdits.tokens(log, tokens);
    }

    /** The answers of the client calls applied once here ({@code Opcode.ONCE}). */
    public RetryCache retryCache() {
        return retryCache;
    }

    /** Records and keeps the answer of call {@code key} ({@link RetryCache#keep}) before it is sent. */
    public void keepAnswer(RetryCache.Key key, ByteBuf answer) {
        retryCache.keep(key, answer, log, clock.millis());
    }

    public NamespaceReplay replay() {
        return new NamespaceReplay(paths.root(), files, counts, leases, creator, allocator.datanodes(),
                allocator.groups(), unfinishedDirectoryChange, ledger, lent, openMoves, retryCache, tokens);
    }

    /**
     * Records the root directory as it is, as the first record of a new journal: a replay then
     * gives it back its times and ownership.
     */
    public void recordRoot() {
        DirectoryInode root = paths.root();
        synchronized (root) {
            NamespaceEdits.root(log, root);
        }
    }

    /** The root directory (tests compare whole trees). */
    /** For the checkpoint image (see NamespaceImage). */
    Creator creator() {
        return creator;
    }

    /** The datanodes its blocks are on. */
    BlockAllocator allocator() {
        return allocator;
    }

    DirectoryInode root() {
        return paths.root();
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

    /** The permission checks of client operations on this namespace. */
    public Permissions permissions() {
        return permissions;
    }

    // ------------------------------------------------------------------ lookups

    /** The status of a file or directory. */
    public FileStatus getFile(String path) throws TarnException {
        return entry(path).status();
    }

    /**
     * The entry at {@code path}, for GET_FILE to write its status straight into the answer
     * ({@link Inode#writeStatus}); RETRY while a file moves to another namenode.
     */
    public Inode entry(String path) throws TarnException {
        return entry(path, Caller.UNCHECKED);
    }

    /** {@link #entry(String)}, each directory on the way searched only if {@code caller} may. */
    public Inode entry(String path, Caller caller) throws TarnException {
        Inode node = paths.lookup(path, caller);
        if (node instanceof FileInode f && f.moving()) {
            throw FileInode.movingRetry("look up", TarnPath.normalize(path));
        }
        return node;
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
        // Every partition lists the directories too (each holds them all); the client merges them,
        // taking the latest of their modification times.
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

    /** The file at {@code path}; IS_A_DIRECTORY for a directory. */
    public FileInode file(String path) throws TarnException {
        return lookup(path, FileInode.class, ErrorCode.IS_A_DIRECTORY, "a directory");
    }

    /** The entry at {@code path} if it is a {@code type}; {@code wrong} ("... is {@code what}") otherwise. */
    private <T extends Inode> T lookup(String path, Class<T> type, ErrorCode wrong, String what) throws TarnException {
        Inode node = paths.lookup(path, TarnPath.components(path));
        if (type.isInstance(node)) {
            return type.cast(node);
        }
        throw new TarnException(wrong, "'" + TarnPath.normalize(path) + "' is " + what);
    }

    /** {@link #mkdirs(String, Ownership)} with the namenode's default ownership. */
    public FileStatus mkdirs(String path) throws TarnException {
        return mkdirs(path, Ownership.UNSPECIFIED);
    }

    /**
     * Creates every missing directory of the path; fine when it exists as a directory (its
     * ownership is then left as it is). See {@link Creator} for how ownership is filled in.
     */
    public FileStatus mkdirs(String path, Ownership ownership) throws TarnException {
        return creator.mkdirs(path, ownership);
    }

    /** {@link #create(String, FileType, boolean, boolean, int, int, long, Ownership)}: defaults. */
    public FileStatus create(String path, FileType type, boolean overwrite, boolean createParents, int storageClass,
                             long clientId) throws TarnException {
        return create(path, type, overwrite, createParents, storageClass, clientId, Ownership.UNSPECIFIED);
    }

    /** {@link #create(String, FileType, boolean, boolean, int, int, long, Ownership)}, replication inherited. */
    public FileStatus create(String path, FileType type, boolean overwrite, boolean createParents, int storageClass,
                             long clientId, Ownership ownership) throws TarnException {
        return create(path, type, overwrite, createParents, storageClass, Replication.INHERIT, clientId, ownership);
    }

    /**
     * Creates a file under construction, leased to {@code clientId}, or (type DIRECTORY) the
     * directory at exactly this path. A file gets {@code replication} (1 or 3), or with
     * {@link Replication#INHERIT} the default of its nearest directory that sets one, else the
     * cluster's; INVALID_REPLICATION for another number, NOT_ENOUGH_DATANODES when fewer datanodes
     * are alive than it needs.
     */
    public FileStatus create(String path, FileType type, boolean overwrite, boolean createParents, int storageClass,
                             int replication, long clientId, Ownership ownership) throws TarnException {
        if (type == FileType.FILE) {
            checkOwned(path);
        }
        return creator.create(path, type, overwrite, createParents, storageClass, replication, clientId, ownership);
    }

    /**
     * SET_REPLICATION. On a file: its replication, only while it holds no data (no block allocated,
     * nothing reported stored; REPLICATION_FIXED after, as the blocks already placed could not
     * follow). On a directory: the default of the files created below it from now on (files that
     * exist keep theirs); {@link Replication#INHERIT} removes it. INVALID_REPLICATION for another
     * number.
     *
     * @return DONE with the new status; with several namenodes, COORDINATOR for a directory
     */
    public Route setReplication(String path, int factor) throws TarnException {
        String norm = TarnPath.normalize(path);
        Inode node = paths.lookup(path, TarnPath.components(path));
        if (node instanceof DirectoryInode dir) {
            checkDirectoryReplication(factor, norm);
            if (partitioning.count() > 1) {
                return Route.toCoordinator("setting the replication of directory '" + norm + "' goes through "
                        + partitioning.describe(0));
            }
            setDirectoryReplication(dir, factor);
            return Route.done(dir.status());
        }
        FileInode f = (FileInode) node;
        Replication.check(factor, norm);
        synchronized (f) {
            if (f.moving()) {
                throw FileInode.movingRetry("set the replication of", norm);
            }
            if (f.replication() != factor) {
                if (!f.holdsNoData()) {
                    throw new ReplicationException(ErrorCode.REPLICATION_FIXED, "cannot change the replication of '"
                            + norm + "' from " + f.replication() + " to " + factor + ": it holds data already ("
                            + f.blocks().length + " block(s)); a file's replication is set while it is new or empty. "
                            + "Copy it to a file created with replication " + factor + " instead");
                }
                allocator.checkPlacement(factor, "'" + norm + "'");
                f.setReplication(factor);
                NamespaceEdits.setReplication(log, f, factor);
            }
        }
        return Route.done(f.status());
    }

    /** DIR_SET_REPLICATION, and the coordinator's own part of it: a directory's default, as on every namenode. */
    public FileStatus applySetReplication(String path, int factor) throws TarnException {
        DirectoryInode dir = directory(path);
        checkDirectoryReplication(factor, TarnPath.normalize(path));
        setDirectoryReplication(dir, factor);
        return dir.status();
    }

    private void setDirectoryReplication(DirectoryInode dir, int factor) {
        synchronized (dir) { // after its creation's record
            dir.setReplication(factor);
            NamespaceEdits.setReplication(log, dir, factor);
        }
    }

    private static void checkDirectoryReplication(int factor, String path) throws TarnException {
        if (factor != Replication.INHERIT) {
            Replication.check(factor, path);
        }
    }

    /**
     * GET_REPLICATION: a file's replication; for a directory or a path where nothing exists, the
     * replication a file created there without asking for one would get (the default of the
     * nearest existing directory on the path that sets one, else the cluster's).
     */
    public int replicationAt(String path) throws TarnException {
        List<String> comps = TarnPath.components(path);
        for (int depth = comps.size(); depth >= 0; depth--) {
            Inode node = paths.find(comps, depth);
            if (node instanceof FileInode f) {
                if (depth == comps.size()) {
                    return f.replication();
                }
                throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "no file can be created at '"
                        + TarnPath.normalize(path) + "': '" + PathWalker.prefix(comps, depth) + "' is a file");
            }
            if (node instanceof DirectoryInode d) {
                return d.inheritedReplication(defaultReplication);
            }
        }
        return defaultReplication;
    }

    /**
     * Changes the owner, group, permission and times named by the request's mask (who may is
     * {@link Permissions}'s to check). INVALID_ARGUMENT for an empty owner or group, the default permission
     * marker, or a negative time.
     *
     * @return DONE with the new status; with several namenodes, COORDINATOR for a directory
     */
    public Route setAttributes(SetAttributesRequest r) throws TarnException {
        checkAttributes(r);
        String path = r.path();
        Inode node = paths.lookup(path, TarnPath.components(path));
        if (node instanceof DirectoryInode && partitioning.count() > 1) {
            return Route.toCoordinator("changing the attributes of directory '" + TarnPath.normalize(path)
                    + "' goes through " + partitioning.describe(0));
        }
        return Route.done(change(node, r));
    }

    /** DIR_SET_ATTR, and the coordinator's own part of it: a directory's attributes, as on every namenode. */
    public FileStatus applySetAttributes(SetAttributesRequest r) throws TarnException {
        checkAttributes(r);
        return change(paths.lookup(r.path(), TarnPath.components(r.path())), r);
    }

    /** INVALID_ARGUMENT for an empty owner or group, the default permission marker, or a negative time. */
    private static void checkAttributes(SetAttributesRequest r) throws TarnException {
        String path = r.path();
        Ownership o = r.ownership();
        if (r.sets(NamenodeProtocol.SET_OWNER) && o.owner().isEmpty()
                || r.sets(NamenodeProtocol.SET_GROUP) && o.group().isEmpty()) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "cannot set an empty owner or group on '" + path + "'");
        }
        if (r.sets(NamenodeProtocol.SET_PERMISSION) && o.permission() == Ownership.DEFAULT_PERMISSION) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "no permission given to set on '" + path + "'");
        }
        if (r.sets(NamenodeProtocol.SET_MTIME) && r.modificationTime() < 0
                || r.sets(NamenodeProtocol.SET_ATIME) && r.accessTime() < 0) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "cannot set a time before 1970 on '" + path + "'");
        }
    }

    private FileStatus change(Inode node, SetAttributesRequest r) throws TarnException {
        Ownership o = r.ownership();
        synchronized (node) {
            if (node instanceof FileInode f && f.moving()) {
                throw FileInode.movingRetry("change", TarnPath.normalize(r.path()));
            }
            Ownership cur = node.ownership();
            node.setOwnership(new Ownership(r.sets(NamenodeProtocol.SET_OWNER) ? o.owner() : cur.owner(),
                    r.sets(NamenodeProtocol.SET_GROUP) ? o.group() : cur.group(),
                    r.sets(NamenodeProtocol.SET_PERMISSION) ? o.permission() : cur.permission()));
            if (r.sets(NamenodeProtocol.SET_MTIME)) {
                node.setModificationTime(r.modificationTime());
            }
            if (r.sets(NamenodeProtocol.SET_ATIME)) {
                node.setAccessTime(r.accessTime());
            }
            NamespaceEdits.setAttributes(log, node);
        }
        return node.status();
    }

    /**
     * Deletes a file, an empty directory, or (recursive) a directory and everything below it. The
     * root itself stays: a recursive delete of "/" empties it.
     *
     * @return DONE; with several namenodes, COORDINATOR for a directory
     */
    public Route delete(String path, boolean recursive) throws TarnException {
        if (partitioning.count() > 1 && paths.lookup(path, TarnPath.components(path)) instanceof DirectoryInode) {
            return Route.toCoordinator("deleting directory '" + TarnPath.normalize(path) + "' goes through "
                    + partitioning.describe(0));
        }
        deleter.delete(path, recursive);
        return Route.done();
    }

    /**
     * Renames with HDFS semantics: into {@code dst} when it is an existing directory, otherwise to
     * {@code dst} itself, whose parent must exist. Fails with FILE_EXISTS when the target exists,
     * RENAME_INVALID for the root or a directory moved into its own subtree; renaming a file onto
     * itself succeeds and changes nothing. The full rule table is in {@link Renamer}.
     *
     * <p>With several namenodes, a directory goes to the coordinator, and a file whose new name
     * another namenode owns starts to move there: the returned move is for the caller to carry out
     * (FILE_ADOPT at {@link FileMove#to()}) and end with {@link #commitMove} or {@link #abortMove}.
     *
     * @return DONE when the rename is done; COORDINATOR for a directory or MOVE (several namenodes)
     */
    public Route rename(String src, String dst) throws TarnException {
        if (partitioning.count() > 1) {
            Route elsewhere = routeAway(src, dst);
            if (elsewhere != null) {
                return elsewhere;
            }
        }
        renamer.rename(src, dst);
        return Route.done();
    }

    /**
     * Where renaming {@code src} to {@code dst} goes when not here: the coordinator for a directory,
     * a move to another partition for a file whose new name that partition owns; null when the
     * rename stays here (the new name is this partition's, or {@link Renamer} refuses it). Rules
     * that need the target itself (FILE_EXISTS) are checked by the partition that owns it.
     */
    private Route routeAway(String src, String dst) throws TarnException {
        List<String> s = TarnPath.components(src);
        if (s.isEmpty()) {
            return null; // the root: RENAME_INVALID
        }
        Inode node = paths.lookup(src, s);
        if (node instanceof DirectoryInode) {
            return Route.toCoordinator("renaming directory '" + TarnPath.normalize(src) + "' goes through "
                    + partitioning.describe(0));
        }
        List<String> d = TarnPath.components(dst);
        if (d.isEmpty() || paths.find(d, d.size()) instanceof DirectoryInode) {
            return null; // into a directory under the same name: this partition's
        }
        String name = d.get(d.size() - 1);
        if (partitioning.owns(name)) {
            return null;
        }
        // Every namenode holds every directory, so the new parent is checked here.
        String dstPath = TarnPath.normalize(dst);
        String parentPath = TarnPath.parent(dstPath);
        Inode parent = paths.find(d, d.size() - 1);
        if (parent == null) {
            throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot rename '" + TarnPath.normalize(src) + "' to '"
                    + dstPath + "': parent directory '" + parentPath + "' does not exist");
        }
        if (parent instanceof FileInode) {
            throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "cannot rename '" + TarnPath.normalize(src) + "' to '"
                    + dstPath + "': '" + parentPath + "' is a file");
        }
        return Route.move(renamer.beginMove(src, parentPath, name, partitioning.ownerOf(name)));
    }

    /**
     * Records that the move has begun (MOVE_BEGIN), before the receiver is asked to adopt the file;
     * returns the record's sequence number, to wait until it is on disk (0 without a journal).
     */
    public long recordMoveBegin(FileMove move) {
        FileInode f = move.file();
        synchronized (f) {
            openMoves.put(f.id(), new MoveIntent(f.id(), move.ticket(), move.to(), move.targetParent(),
                    move.targetName(), null));
            return NamespaceEdits.moveBegin(log, f.id(), move.ticket(), move.to(), move.targetParent(),
                    move.targetName());
        }
    }

    /**
     * The partition owning the new name adopted the file as {@code newId}: it is unlinked here and
     * retired without freeing its blocks (the adopted file holds them; they are lent until given
     * back). Its id stops working here. Returns the sequence number of the commit's record.
     */
    public long commitMove(FileMove move, long newId) {
        FileInode f = move.file();
        boolean retired;
        long writer;
        long seq;
        long now = clock.millis();
        synchronized (f) {
            if (!f.unlinkedWhileMoving()) {
                move.srcParent().children().remove(move.srcName(), f);
            }
            writer = f.writer();
            lent.lend(f.blocks()); // before retiring takes the blocks from the file
            retired = f.retireMoved();
            openMoves.remove(f.id());
            seq = NamespaceEdits.moveCommit(log, f.id(), newId, now);
        }
        if (retired) {
            if (writer != FileInode.NO_CLIENT) {
                leases.release(writer, f.id()); // the writer's lease is at the adopting namenode now
            }
            files.release(f.id());
            counts.fileRemoved();
        }
        move.srcParent().touch(now);
        return seq;
    }

    /**
     * The move failed: the file stays as it was, or, when a recursive delete took it out of its
     * directory meanwhile, it is deleted now.
     */
    public void abortMove(FileMove move) {
        FileInode f = move.file();
        boolean swept;
        synchronized (f) {
            swept = f.unlinkedWhileMoving();
            f.endMove();
            if (openMoves.remove(f.id()) != null) {
                NamespaceEdits.moveAbort(log, f.id());
            }
        }
        if (swept) {
            deleter.retire(f);
        }
    }

    /**
     * The moves this namenode began and had not ended when it stopped (found by replay): the
     * caller asks each receiver how it ended ({@link #resumeMove}, {@link #endSweptMove}).
     */
    public List<MoveIntent> openMoves() {
        return new ArrayList<>(openMoves.values());
    }

    /**
     * Marks the file of an open move (linked here) moving again and returns the move, to end it as
     * its receiver says; null when the file is not there any more.
     */
    public FileMove resumeMove(MoveIntent intent) {
        FileInode f = files.get(intent.fileId());
        if (f == null || intent.swept()) {
            return null;
        }
        synchronized (f) {
            if (!f.beginMove()) {
                return null;
            }
        }
        return new FileMove(f, f.parent(), f.name(), f.path(), intent.targetParent(), intent.targetName(),
                intent.to(), intent.ticket());
    }

    /**
     * Ends an open move whose file a recursive delete took here during the move: when the receiver
     * adopted it ({@code adopted}), its blocks stay lent to it; otherwise the delete came first and
     * they are freed.
     */
    public void endSweptMove(MoveIntent intent, long newId, boolean adopted) {
        synchronized (openMoves) {
            if (openMoves.remove(intent.fileId()) == null) {
                return;
            }
            if (adopted) {
                NamespaceEdits.moveCommit(log, intent.fileId(), newId, clock.millis());
                return;
            }
            NamespaceEdits.moveAbort(log, intent.fileId());
        }
        List<Block> back = lent.giveBackAll(intent.sweptBlocks());
        allocator.free(back.toArray(new Block[0]));
    }

    /** FREE_BLOCKS freed {@code places}, lent until now: recorded, and no longer lent. */
    public void blocksReturned(List<LentBlocks.Place> places) {
        if (places.isEmpty()) {
            return;
        }
        for (LentBlocks.Place p : places) {
            lent.giveBack(p);
        }
        NamespaceEdits.blocksReturned(log, places);
    }

    /**
     * FILE_ADOPT: links a closed file moving here from another partition as {@code name} in
     * {@code parent}, with {@code blocks} (see {@link Creator#adopt}). The same adoption asked again
     * (its answer was lost) is answered as before; one asked after its sender was told it never
     * happens ({@link #adoption}) is refused.
     */
    public FileStatus adopt(AdoptRequest r, Block[] blocks) throws TarnException {
        String parentPath = TarnPath.normalize(r.parent());
        String path = TarnPath.child(parentPath, r.name());
        checkOwned(path);
        Long known = ledger.begin(r.ticket());
        if (known != null) {
            return adoptedBefore(r, path, known);
        }
        boolean adopted = false;
        try {
            Inode parent = find(parentPath);
            if (parent == null) {
                throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "parent directory '" + parentPath
                        + "' does not exist");
            }
            if (!(parent instanceof DirectoryInode dir)) {
                throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "'" + parentPath + "' is a file");
            }
            FileStatus status = creator.adopt(dir, r, blocks, path, ledger, lent);
            adopted = true;
            return status;
        } finally {
            if (!adopted) {
                ledger.refused(r.ticket());
            }
        }
    }

    private FileStatus adoptedBefore(AdoptRequest r, String path, long known) throws TarnException {
        if (known == AdoptionLedger.PENDING) {
            throw new TarnException(ErrorCode.RETRY, "the move of a file to '" + path + "' is under way");
        }
        if (known == AdoptionLedger.ABANDONED) {
            throw new TarnException(ErrorCode.RENAME_INVALID, "cannot move a file to '" + path + "': its sender "
                    + "was told it would not happen");
        }
        FileInode f = files.get(known);
        if (f == null) {
            throw new TarnException(ErrorCode.FILE_NOT_FOUND, "the file moved to '" + path + "' was adopted as "
                    + FileIds.format(known) + " and is gone since");
        }
        return f.status();
    }

    /**
     * FILE_ADOPTION: the id the file of the move with {@code ticket} was adopted under, or -1 when it
     * was not; then it never will be (recorded before the answer). RETRY while its adoption is
     * under way.
     */
    public long adoption(long ticket) throws TarnException {
        Long known;
        synchronized (ledger) {
            known = ledger.decide(ticket);
            if (known == null) {
                NamespaceEdits.adoption(log, ticket, AdoptionLedger.ABANDONED);
                return AdoptionLedger.ABANDONED;
            }
        }
        if (known == AdoptionLedger.PENDING) {
            throw new TarnException(ErrorCode.RETRY, "the adoption of the file of move " + Long.toHexString(ticket)
                    + " is under way");
        }
        return known;
    }

    /** FILE_ADOPTION_SETTLED: the sender recorded the move's outcome; its ledger entry goes. */
    public void settleAdoption(long ticket) {
        synchronized (ledger) {
            if (ledger.settle(ticket)) {
                NamespaceEdits.adoptionSettled(log, ticket);
            }
        }
    }

    /** Ledger entries (moves here not yet settled by their sender) and lent blocks, for status and tests. */
    public int ledgerSize() {
        return ledger.size();
    }

    public int lentBlockCount() {
        return lent.size();
    }

    AdoptionLedger ledger() {
        return ledger;
    }

    LentBlocks lent() {
        return lent;
    }

    Map<Long, MoveIntent> openMovesMap() {
        return openMoves;
    }

    // ------------------------------------------------------------------ partitions

    /**
     * The directory coordinator records the change it is about to send to the other namenodes
     * (opaque to the namespace) and returns the record's sequence number, to wait until it is on
     * disk before sending (0 without a journal). At most one change is open at a time.
     */
    public long beginDirectoryChange(byte[] change) {
        unfinishedDirectoryChange.set(change);
        return NamespaceEdits.directoryIntent(log, change);
    }

    /** The directory coordinator's change begun last has ended (done everywhere, or refused). */
    public void endDirectoryChange() {
        unfinishedDirectoryChange.set(null);
        NamespaceEdits.directoryDone(log);
    }

    /**
     * The directory coordinator's change that began and had not ended when this namenode stopped
     * (found by replay), or null: the coordinator carries it through before any other.
     */
    public byte[] unfinishedDirectoryChange() {
        return unfinishedDirectoryChange.get();
    }

    /** A fresh directory id; only the coordinator hands them out. */
    public long newDirectoryId() {
        return creator.newDirectoryId();
    }

    /** Directory ids handed out from now on are above {@code id}'s (a change the coordinator carries through). */
    public void directoryIdsAbove(long id) {
        creator.directoryIdsAbove(FileIds.sequence(id));
    }

    /** The directory at {@code path}; FILE_NOT_FOUND, or NOT_A_DIRECTORY when it is a file. */
    public DirectoryInode directory(String path) throws TarnException {
        return lookup(path, DirectoryInode.class, ErrorCode.NOT_A_DIRECTORY, "a file");
    }

    /** The entry at {@code path}, or null. */
    public Inode find(String path) throws TarnException {
        List<String> comps = TarnPath.components(path);
        return paths.find(comps, comps.size());
    }

    /**
     * The ownership the coordinator gives a directory it creates under {@code parent}:
     * {@code requested} for the last component of a mkdirs, with owner write and search added for
     * the ones created on the way, unspecified parts from the parent and the defaults.
     */
    public static Ownership directoryOwnership(Ownership requested, DirectoryInode parent, boolean last) {
        return Creator.forDirectory(requested, parent, last);
    }

    /**
     * DIR_DELETE: deletes the directory at {@code path} and everything of this partition below it,
     * as the coordinator decided ("/" is emptied). A directory already gone is fine (a retried call).
     */
    public void applyDeleteTree(String path) throws TarnException {
        Inode node = find(path);
        if (node == null) {
            return;
        }
        if (!(node instanceof DirectoryInode)) {
            throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "'" + TarnPath.normalize(path) + "' is a file here, "
                    + "but a directory at the coordinator");
        }
        deleter.delete(path, true);
    }

    /**
     * Where a rename of {@code src} to {@code dst} puts it, by HDFS's rule: into {@code dst} when it is
     * an existing directory, else {@code dst} itself (normalized).
     */
    public String renameTarget(String src, String dst) throws TarnException {
        List<String> s = TarnPath.components(src);
        List<String> d = TarnPath.components(dst);
        Inode target = paths.find(d, d.size());
        String dstPath = TarnPath.normalize(dst);
        return target instanceof DirectoryInode && !s.isEmpty() ? TarnPath.child(dstPath, s.get(s.size() - 1))
                : dstPath;
    }

    /**
     * DIR_RENAME: moves a directory exactly as the coordinator decided ({@code dst} is the final
     * path). Done already (the source gone, a directory at the target) is fine: a namenode that
     * copied a tree with the rename in it and then gets the rename itself.
     */
    public void applyRename(String src, String dst) throws TarnException {
        if (find(src) == null && find(dst) instanceof DirectoryInode) {
            return;
        }
        renamer.rename(src, dst);
    }

    /**
     * DIR_SEAL, rmdir's first phase: from now on no entry may be added to the directory (inserts
     * answer RETRY); DIRECTORY_NOT_EMPTY, leaving it unsealed, when this namenode holds entries in
     * it. The sealer marks first and looks at the children after, inserters the other way round (as
     * with BUSY), so an entry is either seen here or taken back out by its inserter.
     */
    public void seal(String path) throws TarnException {
        DirectoryInode dir = directory(path);
        while (!dir.transition(DirectoryInode.ALIVE, DirectoryInode.SEALED)) {
            int state = dir.awaitStable();
            if (state == DirectoryInode.DELETED) {
                throw PathWalker.notFound(path, null);
            }
            if (state == DirectoryInode.SEALED) {
                break; // a retried seal
            }
        }
        if (!dir.children().isEmpty()) {
            dir.transition(DirectoryInode.SEALED, DirectoryInode.ALIVE);
            throw new TarnException(ErrorCode.DIRECTORY_NOT_EMPTY, "cannot delete directory '"
                    + TarnPath.normalize(path) + "': it is not empty (" + dir.childCount() + " entries on "
                    + partitioning.describe(partitioning.partition()) + "); delete recursively to remove it with "
                    + "its contents");
        }
    }

    /** DIR_UNSEAL: an rmdir gave up; the directory takes entries again. Fine when it is not sealed. */
    public void unseal(String path) throws TarnException {
        Inode node = find(path);
        if (node instanceof DirectoryInode dir) {
            dir.transition(DirectoryInode.SEALED, DirectoryInode.ALIVE);
        }
    }

    /** DIR_SNAPSHOT: every directory, parents first, with no rename or recursive delete half seen. */
    public DirectorySnapshot snapshot() {
        return treeCopy.snapshot();
    }

    /**
     * Makes this starting namenode's directory tree the coordinator's {@code snapshot}, by id,
     * through recorded changes (see {@link TreeCopy#reconcile}).
     */
    public Reconciled reconcile(DirectorySnapshot snapshot) throws TarnException {
        return treeCopy.reconcile(snapshot);
    }

    /**
     * What {@link #reconcile} did: directories created, moved to where the coordinator has them,
     * and deleted (with the files below them); names it could not place (a file in the way), and
     * directories it parked on their way.
     */
    public record Reconciled(int created, int moved, int deleted, int filesDeleted, int conflicts, int parked) {
        @Override
        public String toString() {
            return created + " created, " + moved + " moved, " + deleted + " deleted with " + filesDeleted
                    + " file(s) below them" + (conflicts > 0 ? ", " + conflicts + " not placed (see the log)" : "");
        }
    }

    /** DIR_MKDIR: links a directory exactly as the coordinator created it (see {@link Creator#linkReplica}). */
    public FileStatus applyMkdir(String parentPath, String name, long id, Ownership ownership, long time)
            throws TarnException {
        DirectoryInode parent = directory(parentPath);
        return creator.linkReplica(parent, name, id, ownership, time,
                TarnPath.child(TarnPath.normalize(parentPath), name));
    }

    /** WRONG_PARTITION unless files called like the last component of {@code path} belong here. */
    private void checkOwned(String path) throws TarnException {
        List<String> comps = TarnPath.components(path);
        if (comps.isEmpty() || partitioning.owns(comps.get(comps.size() - 1))) {
            return;
        }
        int owner = partitioning.ownerOf(comps.get(comps.size() - 1));
        throw new TarnException(ErrorCode.WRONG_PARTITION, "'" + TarnPath.normalize(path) + "' belongs to "
                + partitioning.describe(owner) + ", not to " + partitioning.describe(partitioning.partition())
                + ": the client's partition map is out of date", partitioning.redirectTo(owner));
    }
}
