package io.tarn.namenode.namespace;

import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.TarnPath;
import io.tarn.namenode.PeerProtocol.DirectorySnapshot;
import io.tarn.namenode.journal.EditLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The directory tree as one namenode hands it to another that starts (DIR_SNAPSHOT): taking a
 * snapshot of every directory, and making a starting namenode's tree the snapshot's.
 *
 * <p>Called only through {@link Namespace#snapshot} and {@link Namespace#reconcile}. A snapshot is
 * taken under the namespace's structure lock, so no rename or recursive delete is half in it;
 * reconciling keeps every directory's id, and ids handed out afterwards come after the snapshot's.
 */
final class TreeCopy {
    private static final Logger LOG = LoggerFactory.getLogger(TreeCopy.class);

    private final PathWalker paths;
    private final ReentrantLock structureLock;
    private final Creator creator;
    private final Renamer renamer;
    private final Deleter deleter;
    private final EditLog log;

    TreeCopy(PathWalker paths, ReentrantLock structureLock, Creator creator, Renamer renamer, Deleter deleter,
             EditLog log) {
        this.paths = paths;
        this.structureLock = structureLock;
        this.creator = creator;
        this.renamer = renamer;
        this.deleter = deleter;
        this.log = log;
    }

    /**
     * DIR_SNAPSHOT: every directory, parents first, taken under the structure lock so that no rename
     * or recursive delete is half seen (a concurrent mkdir may or may not be in it; it is replayed).
     */
    DirectorySnapshot snapshot() {
        List<DirectorySnapshot.Directory> out = new ArrayList<>();
        structureLock.lock();
        try {
            ArrayDeque<DirectoryInode> queue = new ArrayDeque<>();
            ArrayDeque<Integer> indexes = new ArrayDeque<>();
            queue.add(paths.root());
            indexes.add(-1);
            while (!queue.isEmpty()) {
                DirectoryInode d = queue.poll();
                int parent = indexes.poll();
                if (d.state() == DirectoryInode.DELETED) {
                    continue;
                }
                int index = out.size();
                out.add(new DirectorySnapshot.Directory(parent, d.name(), d.id(), d.ownership(), d.creationTime(),
                        d.modificationTime(), d.accessTime(), d.replication()));
                for (Inode child : d.children().values()) {
                    if (child instanceof DirectoryInode sub) {
                        queue.add(sub);
                        indexes.add(index);
                    }
                }
            }
        } finally {
            structureLock.unlock();
        }
        return new DirectorySnapshot(out);
    }

    /** Prefix of the names under the root where {@link #reconcile} parks directories on their way. */
    static final String ASIDE = ".tarn-reconcile-";

    /**
     * Makes this namenode's directory tree the one of {@code snapshot} (the coordinator's), by
     * directory id, through the same recorded steps as any change: directories placed elsewhere
     * there are renamed to their place, missing ones created, ones it no longer has deleted with
     * everything below them (this namenode missed their recursive delete), and every directory's
     * attributes and replication default set to the coordinator's. A tree that is empty apart from
     * the root gets every directory created. Called while the namenode starts, before it serves
     * anything but datanodes; directory ids handed out here from now on come after the snapshot's.
     */
    Namespace.Reconciled reconcile(DirectorySnapshot snapshot) throws TarnException {
        List<DirectorySnapshot.Directory> dirs = snapshot.directories();
        int n = dirs.size();
        Map<Long, Integer> wanted = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            wanted.put(dirs.get(i).id(), i);
        }
        DirectoryInode root = paths.root();
        Map<Long, DirectoryInode> local = new HashMap<>();
        List<DirectoryInode> order = new ArrayList<>();
        ArrayDeque<DirectoryInode> queue = new ArrayDeque<>();
        queue.add(root);
        while (!queue.isEmpty()) {
            DirectoryInode d = queue.poll();
            if (d.state() == DirectoryInode.DELETED) {
                continue;
            }
            local.put(d.id(), d);
            if (d != root) {
                order.add(d);
            }
            for (Inode child : d.children().values()) {
                if (child instanceof DirectoryInode sub) {
                    queue.add(sub);
                }
            }
        }
        local.put(dirs.get(0).id(), root);
        // 1. Park every directory that is not where the coordinator has it (or that it lacks) under
        //    the root, so that no name of the coordinator's tree is held by the wrong one.
        int parked = 0;
        for (DirectoryInode d : order) {
            Integer i = wanted.get(d.id());
            if (i == null && !wanted.containsKey(d.parent().id())) {
                continue; // goes with its parent, which the coordinator lacks too
            }
            boolean placed = i != null && i > 0 && d.name().equals(dirs.get(i).name())
                    && d.parent().id() == dirs.get(dirs.get(i).parent()).id();
            if (!placed) {
                renamer.rename(d.path(), "/" + ASIDE + FileIds.format(d.id()));
                parked++;
            }
        }
        // 2. Place the coordinator's directories, parents first: moved from where they were parked, or created.
        int created = 0;
        int moved = 0;
        int conflicts = 0;
        long highest = 0;
        for (int i = 1; i < n; i++) {
            DirectorySnapshot.Directory s = dirs.get(i);
            highest = Math.max(highest, FileIds.sequence(s.id()));
            DirectoryInode parent = local.get(dirs.get(s.parent()).id());
            DirectoryInode have = local.get(s.id());
            if (parent == null) {
                local.remove(s.id());
                continue; // its parent could not be placed (logged there)
            }
            String path = TarnPath.child(parent.path(), s.name());
            try {
                if (have == null) {
                    creator.linkReplica(parent, s.name(), s.id(), s.ownership(), s.creationTime(), path);
                    local.put(s.id(), (DirectoryInode) parent.children().get(s.name()));
                    created++;
                } else if (have.parent() != parent || !have.name().equals(s.name())) {
                    renamer.rename(have.path(), path);
                    moved++;
                }
            } catch (TarnException e) {
                // Only a file of this namenode holding the name can be in the way, which the arbiter
                // protocol rules out; keep the file and say so.
                LOG.error("Cannot place directory '{}' (id {}) of the coordinator's tree: {}", path,
                        FileIds.format(s.id()), e.getMessage());
                local.remove(s.id());
                conflicts++;
            }
        }
        // 3. What is still parked is gone at the coordinator: delete it with everything below it.
        int deleted = 0;
        int filesDeleted = 0;
        for (Map.Entry<String, Inode> e : new ArrayList<>(root.children().entrySet())) {
            if (e.getKey().startsWith(ASIDE) && e.getValue() instanceof DirectoryInode d) {
                int files = countFiles(d);
                if (files > 0) {
                    LOG.warn("Directory {} is gone at the coordinator (a recursive delete this namenode missed): "
                            + "deleting it with {} file(s) below it", FileIds.format(d.id()), files);
                }
                deleter.delete(d.path(), true);
                deleted++;
                filesDeleted += files;
            }
        }
        // 4. Every directory's attributes and replication default as the coordinator has them.
        for (int i = 0; i < n; i++) {
            DirectorySnapshot.Directory s = dirs.get(i);
            DirectoryInode d = local.get(s.id());
            if (d != null) {
                copyAttributes(d, s);
            }
        }
        creator.directoryIdsAbove(highest);
        return new Namespace.Reconciled(created, moved, deleted, filesDeleted, conflicts, parked);
    }

    private void copyAttributes(DirectoryInode d, DirectorySnapshot.Directory s) {
        synchronized (d) {
            if (!d.ownership().equals(s.ownership()) || d.modificationTime() != s.modificationTime()
                    || d.accessTime() != s.accessTime()) {
                d.setOwnership(s.ownership());
                d.setModificationTime(s.modificationTime());
                d.setAccessTime(s.accessTime());
                NamespaceEdits.setAttributes(log, d);
            }
            if (d.replication() != s.replication()) {
                d.setReplication(s.replication());
                NamespaceEdits.setReplication(log, d, s.replication());
            }
        }
    }

    private static int countFiles(DirectoryInode top) {
        int files = 0;
        ArrayDeque<DirectoryInode> queue = new ArrayDeque<>();
        queue.add(top);
        while (!queue.isEmpty()) {
            for (Inode child : queue.poll().children().values()) {
                if (child instanceof DirectoryInode sub) {
                    queue.add(sub);
                } else {
                    files++;
                }
            }
        }
        return files;
    }
}
