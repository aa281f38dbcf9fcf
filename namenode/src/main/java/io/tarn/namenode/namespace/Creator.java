package io.tarn.namenode.namespace;

import io.tarn.namenode.journal.EditLog;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Replication;
import io.tarn.common.fs.TarnPath;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.Clock;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.lease.LeaseManager;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Adds entries to the namespace: files (leased to their writer, optionally replacing an existing
 * file) and directories, with their missing parents.
 *
 * <p>Lock-free. Every insertion puts the entry into its parent's map first and then checks that
 * the parent is still alive ({@link DirectoryInode#commitInsert}); when a delete won the race the
 * entry is taken back out and the create fails with PARENT_NOT_FOUND. An overwrite unlinks the old
 * file under that file's monitor, so it and a concurrent delete never both free it.
 *
 * <p>Ownership: what the request leaves unspecified comes from the parent directory (owner and
 * group, the BSD rule HDFS follows) and the defaults ({@link Ownership#FILE_DEFAULT},
 * {@link Ownership#DIRECTORY_DEFAULT}). Directories created on the way (missing parents) get the
 * request's owner and group, and its permission with owner write and search added (like HDFS), so
 * the creator can always go on below them.
 */
final class Creator {
    private final Clock clock;
    private final int defaultBlockSize;
    private final PathWalker paths;
    private final FileTable files;
    private final LeaseManager leases;
    private final Deleter deleter;
    private final NamespaceCounts counts;
    private final BlockAllocator allocator;
    /** {@code tarn.replication.default}: for files whose directories set no default. */
    private final int defaultReplication;
    private final AtomicLong nextDirectory = new AtomicLong(1);
    private final EditLog log;

    /** False with several partitions: new directories need the coordinator (not built yet). */
    private final boolean directoriesHere;

    Creator(Clock clock, int defaultBlockSize, PathWalker paths, FileTable files, LeaseManager leases,
            Deleter deleter, NamespaceCounts counts, boolean directoriesHere, BlockAllocator allocator,
            int defaultReplication, EditLog log) {
        this.log = log;
        this.directoriesHere = directoriesHere;
        this.allocator = allocator;
        this.defaultReplication = defaultReplication;
        this.clock = clock;
        this.defaultBlockSize = defaultBlockSize;
        this.paths = paths;
        this.files = files;
        this.leases = leases;
        this.deleter = deleter;
        this.counts = counts;
    }

    /** The highest directory sequence number handed out so far (0: none). */
    long directoryHighWater() {
        return nextDirectory.get() - 1;
    }

    /** Directory ids handed out from now on are above {@code sequence} (after taking a snapshot). */
    void directoryIdsAbove(long sequence) {
        nextDirectory.accumulateAndGet(sequence + 1, Math::max);
    }

    /** A fresh directory id (the coordinator hands ids out, so every namenode's tree has the same ones). */
    long newDirectoryId() {
        return FileIds.directory(nextDirectory.getAndIncrement());
    }

    /**
     * Links a directory exactly as the coordinator decided: id, ownership and time given. Idempotent
     * for the same id; FILE_EXISTS when a file holds the name (this namenode is the name's arbiter).
     */
    FileStatus linkReplica(DirectoryInode parent, String name, long id, Ownership ownership, long time, String path)
            throws TarnException {
        DirectoryInode dir = DirectoryInode.pending(id, name, parent, time, ownership);
        int state;
        synchronized (dir) { // until recorded: see NamespaceEdits
            Inode existing = parent.children().putIfAbsent(name, dir);
            if (existing instanceof FileInode) {
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot create directory '" + path
                        + "': a file exists there");
            }
            if (existing != null) {
                if (existing.id() != id) {
                    throw new TarnException(ErrorCode.INTERNAL, "directory '" + path + "' has id "
                            + FileIds.format(existing.id()) + " here but " + FileIds.format(id)
                            + " at the coordinator");
                }
                return existing.status();
            }
            counts.directoryAdded();
            state = parent.commitInsert(name, dir);
            settle(parent, name, dir, state, time);
        }
        if (state != DirectoryInode.ALIVE) {
            throw DirectoryInode.refused(state, "cannot create directory '" + path + "'");
        }
        return dir.status();
    }

    /**
     * FILE_ADOPT: links a closed file that another namenode is moving here as {@code path}, with the
     * attributes and blocks it had there and an id of this namenode. FILE_EXISTS when the name is
     * taken; PARENT_NOT_FOUND or RETRY when the directory is deleted or being deleted. The file is
     * marked moving until it is linked for good, so that a recursive delete racing the adoption
     * never frees blocks that the sender still holds.
     */
    FileStatus adopt(DirectoryInode parent, AdoptRequest r, Block[] blocks, String path, AdoptionLedger ledger,
                     LentBlocks lent) throws TarnException {
        if (parent.children().get(r.name()) != null) {
            throw new TarnException(ErrorCode.FILE_EXISTS, "'" + path + "' exists");
        }
        long id = files.reserve();
        FileInode file = new FileInode(id, r.name(), parent, r.creationTime(), r.modificationTime(), r.accessTime(),
                r.ownership(), r.blockSize(), r.storageClass(), r.replication(), r.size(), blocks, r.fromId(),
                r.writer());
        synchronized (file) {
            file.beginMove();
        }
        if (r.writer() != FileInode.NO_CLIENT) {
            leases.acquire(r.writer(), id); // the writer goes on here, under its lease here
        }
        files.publish(file);
        counts.fileAdded();
        if (parent.children().putIfAbsent(r.name(), file) != null) {
            dropAdopted(file);
            throw new TarnException(ErrorCode.FILE_EXISTS, "'" + path + "' exists (it was created meanwhile)");
        }
        int state = parent.commitInsert(r.name(), file);
        if (state != DirectoryInode.ALIVE) {
            dropAdopted(file);
            throw DirectoryInode.refused(state, "cannot move a file to '" + path + "'");
        }
        boolean sweptAfterLinking;
        long now = clock.millis();
        synchronized (file) {
            sweptAfterLinking = file.unlinkedWhileMoving();
            file.endMove();
            // Recorded with its blocks in one record, and in the ledger, before anyone answers the sender.
            ledger.adopted(r.ticket(), id);
            lent.giveBackAll(blocks); // blocks of this namenode's coming home with their file
            NamespaceEdits.adopt(log, parent, r.name(), file, r.ticket(), now);
        }
        if (sweptAfterLinking) {
            deleter.retire(file); // a recursive delete came right after: the rename went first, then it
        }
        parent.touch(now);
        return file.status();
    }

    /**
     * Takes back an adopted file that is unlinked (or was never linked): its blocks stay the
     * sender's, so nothing is freed.
     */
    void dropAdopted(FileInode file) {
        boolean retired;
        long writer;
        synchronized (file) {
            writer = file.leaseHolder();
            retired = file.retireMoved();
        }
        if (retired) {
            if (writer != FileInode.NO_CLIENT) {
                leases.release(writer, file.id());
            }
            files.release(file.id());
            counts.fileRemoved();
        }
    }

    /** The ownership a directory created by {@code requested} under {@code parent} gets; see the class comment. */
    static Ownership forDirectory(Ownership requested, DirectoryInode parent, boolean last) {
        return resolve(last ? requested : ancestor(requested), parent, Ownership.DIRECTORY_DEFAULT);
    }

    /** See {@link Namespace#mkdirs}. */
    FileStatus mkdirs(String path, Ownership requested) throws TarnException {
        List<String> comps = TarnPath.components(path);
        DirectoryInode dir = paths.root();
        for (int i = 0; i < comps.size(); i++) {
            Ownership own = i == comps.size() - 1 ? requested : ancestor(requested);
            Inode child = linkDirectory(dir, comps.get(i), comps, i + 1, own);
            if (child instanceof FileInode) {
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot create directory '" + TarnPath.normalize(path)
                        + "': '" + PathWalker.prefix(comps, i + 1) + "' exists and is a file");
            }
            dir = (DirectoryInode) child;
        }
        return dir.status();
    }

    /**
     * See {@link Namespace#create}. A file gets {@code replication}, or (for
     * {@link Replication#INHERIT}) its directories' default ({@link DirectoryInode#inheritedReplication});
     * INVALID_REPLICATION for another number, NOT_ENOUGH_DATANODES when too few datanodes are alive
     * for it ({@link BlockAllocator#checkPlacement}).
     */
    FileStatus create(String path, FileType type, boolean overwrite, boolean createParents, int storageClass,
                      int replication, long clientId, Ownership requested) throws TarnException {
        List<String> comps = TarnPath.components(path);
        String norm = TarnPath.normalize(path);
        if (comps.isEmpty()) {
            if (type == FileType.DIRECTORY) {
                return paths.root().status();
            }
            throw new TarnException(ErrorCode.IS_A_DIRECTORY, "cannot create file '/': it is the root directory");
        }
        if (type == FileType.FILE && replication != Replication.INHERIT) {
            Replication.check(replication, norm); // before any parent is created
        }
        DirectoryInode parent = parentForCreate(comps, norm, createParents, requested);
        String name = comps.get(comps.size() - 1);
        if (type == FileType.DIRECTORY) {
            Inode child = linkDirectory(parent, name, comps, comps.size(), requested);
            if (child instanceof FileInode) {
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot create directory '" + norm
                        + "': a file exists there");
            }
            return child.status();
        }
        int factor = replication == Replication.INHERIT ? parent.inheritedReplication(defaultReplication)
                : replication;
        allocator.checkPlacement(factor, "'" + norm + "'");
        return createFile(parent, name, norm, overwrite, storageClass, factor, clientId, requested);
    }

    /**
     * The ownership of a new entry under {@code parent}: unspecified owner and group from the
     * parent, an unspecified permission from {@code defaultPermission}.
     */
    static Ownership resolve(Ownership requested, DirectoryInode parent, int defaultPermission) {
        Ownership p = parent.ownership();
        return new Ownership(requested.owner().isEmpty() ? p.owner() : requested.owner(),
                requested.group().isEmpty() ? p.group() : requested.group(),
                requested.permission() == Ownership.DEFAULT_PERMISSION ? defaultPermission : requested.permission());
    }

    /** The ownership requested for a directory created on the way: owner write and search added. */
    private static Ownership ancestor(Ownership requested) {
        if (requested.permission() == Ownership.DEFAULT_PERMISSION) {
            return requested;
        }
        return requested.withPermission(requested.permission() | 0300);
    }

    private FileStatus createFile(DirectoryInode parent, String name, String path, boolean overwrite,
                                  int storageClass, int replication, long clientId, Ownership requested)
            throws TarnException {
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
            FileInode file = newFile(parent, name, storageClass, replication, clientId, requested);
            int state;
            Replaced replaced = null;
            synchronized (file) { // until recorded: see NamespaceEdits
                boolean linked;
                if (existing == null) {
                    linked = parent.children().putIfAbsent(name, file) == null;
                } else {
                    replaced = replace(parent, name, (FileInode) existing, file, path, clientId);
                    linked = replaced != null;
                }
                if (!linked) {
                    discard(file, clientId);
                    continue;
                }
                state = parent.commitInsert(name, file);
                if (state == DirectoryInode.ALIVE) {
                    parent.touch(file.creationTime());
                    NamespaceEdits.createFile(log, parent, name, file, clientId,
                            existing == null ? NamespaceEdits.NONE : existing.id());
                }
            }
            if (replaced != null) {
                deleter.reclaim(replaced.old(), replaced.freed(), replaced.holder());
            }
            if (state != DirectoryInode.ALIVE) {
                deleter.retire(file);
                throw DirectoryInode.refused(state, "cannot create '" + path + "'");
            }
            return file.status();
        }
    }

    /** What an overwrite took from the file it replaced, freed once the new file is recorded. */
    private record Replaced(FileInode old, Block[] freed, long holder) {
    }

    /**
     * Replaces {@code old} by {@code file} unless another live client is writing it; null when
     * {@code old} is no longer there. The caller frees what the result holds ({@link Deleter#reclaim})
     * after the record of {@code file}: an id or block freed before would be taken by another file
     * recorded first.
     */
    private Replaced replace(DirectoryInode parent, String name, FileInode old, FileInode file, String path,
                             long clientId) throws TarnException {
        Block[] freed;
        long oldHolder;
        synchronized (old) {
            if (old.retired()) {
                return null;
            }
            if (old.moving()) {
                discardAfter(file, clientId);
                throw FileInode.movingRetry("overwrite", path);
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
        return freed == null ? null : new Replaced(old, freed, oldHolder);
    }

    private FileInode newFile(DirectoryInode parent, String name, int storageClass, int replication, long clientId,
                              Ownership requested) throws TarnException {
        long id = files.reserve();
        FileInode file = new FileInode(id, name, parent, clock.millis(),
                resolve(requested, parent, Ownership.FILE_DEFAULT), defaultBlockSize, storageClass, replication,
                clientId);
        // Lease first: from the moment the file is visible, another writer sees it as leased.
        leases.acquire(clientId, id);
        files.publish(file);
        counts.fileAdded();
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
        counts.fileRemoved();
    }

    private DirectoryInode parentForCreate(List<String> comps, String path, boolean createParents,
                                           Ownership requested) throws TarnException {
        DirectoryInode dir = paths.root();
        for (int i = 0; i < comps.size() - 1; i++) {
            Inode next = dir.children().get(comps.get(i));
            if (next == null) {
                if (!createParents) {
                    throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot create '" + path
                            + "': parent directory '" + PathWalker.prefix(comps, i + 1)
                            + "' does not exist (create it first, or ask to create parents)");
                }
                next = linkDirectory(dir, comps.get(i), comps, i + 1,
                        new Ownership(requested.owner(), requested.group(), Ownership.DEFAULT_PERMISSION));
            }
            if (next instanceof FileInode) {
                throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "cannot create '" + path + "': '"
                        + PathWalker.prefix(comps, i + 1) + "' is a file, not a directory");
            }
            dir = (DirectoryInode) next;
        }
        return dir;
    }

    /**
     * The child called {@code name}: the existing entry (of either kind, ownership unchanged), or a
     * new directory with {@code requested} ownership.
     */
    private Inode linkDirectory(DirectoryInode parent, String name, List<String> comps, int depth,
                                Ownership requested) throws TarnException {
        while (true) {
            Inode existing = parent.children().get(name);
            if (existing != null) {
                return existing;
            }
            if (!directoriesHere) {
                // With several namenodes, directories come from the coordinator (DIR_MKDIR); the
                // client creates missing parents through it and tries again.
                throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "directory '" + PathWalker.prefix(comps, depth)
                        + "' does not exist (with several namenodes, create it through namenode 0 first)");
            }
            long now = clock.millis();
            DirectoryInode dir = DirectoryInode.pending(FileIds.directory(nextDirectory.getAndIncrement()), name,
                    parent, now, resolve(requested, parent, Ownership.DIRECTORY_DEFAULT));
            int state;
            synchronized (dir) { // until recorded: see NamespaceEdits
                if (parent.children().putIfAbsent(name, dir) != null) {
                    continue;
                }
                counts.directoryAdded();
                state = parent.commitInsert(name, dir);
                settle(parent, name, dir, state, now);
            }
            if (state != DirectoryInode.ALIVE) {
                throw DirectoryInode.refused(state, "cannot create directory '" + PathWalker.prefix(comps, depth)
                        + "'");
            }
            return dir;
        }
    }

    /**
     * Ends the creation of a {@link DirectoryInode#pending} directory (caller holds its monitor):
     * recorded and ALIVE when its parent took it; otherwise DELETED, as nothing could enter it.
     */
    private void settle(DirectoryInode parent, String name, DirectoryInode dir, int parentState, long now) {
        if (parentState == DirectoryInode.ALIVE) {
            parent.touch(now);
            NamespaceEdits.mkdir(log, parent, name, dir, now);
            dir.setState(DirectoryInode.ALIVE);
        } else {
            dir.setState(DirectoryInode.DELETED);
            counts.directoryRemoved();
        }
    }
}
