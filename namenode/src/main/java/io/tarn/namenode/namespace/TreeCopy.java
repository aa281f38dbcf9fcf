package io.tarn.namenode.namespace;

import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileIds;
import io.tarn.namenode.PeerProtocol.DirectorySnapshot;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The directory tree as one namenode hands it to another that starts (DIR_SNAPSHOT): taking a
 * snapshot of every directory, and installing one in a namenode that holds none yet.
 *
 * <p>Called only through {@link Namespace#snapshot} and {@link Namespace#install}. A snapshot is
 * taken under the namespace's structure lock, so no rename or recursive delete is half in it;
 * installing keeps every directory's id, and ids handed out afterwards come after the snapshot's.
 */
final class TreeCopy {
    private final PathWalker paths;
    private final ReentrantLock structureLock;
    private final Creator creator;

    TreeCopy(PathWalker paths, ReentrantLock structureLock, Creator creator) {
        this.paths = paths;
        this.structureLock = structureLock;
        this.creator = creator;
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

    /**
     * Installs a snapshot another namenode took (this one is starting and holds no directory yet):
     * the root's attributes and every directory, with their ids. Directory ids handed out here
     * from now on come after the snapshot's.
     */
    void install(DirectorySnapshot snapshot) throws TarnException {
        List<DirectorySnapshot.Directory> dirs = snapshot.directories();
        DirectoryInode[] made = new DirectoryInode[dirs.size()];
        DirectoryInode root = paths.root();
        DirectorySnapshot.Directory top = dirs.get(0);
        root.setOwnership(top.ownership());
        root.setModificationTime(top.modificationTime());
        root.setAccessTime(top.accessTime());
        root.setReplication(top.replication());
        made[0] = root;
        long highest = 0;
        for (int i = 1; i < made.length; i++) {
            DirectorySnapshot.Directory d = dirs.get(i);
            DirectoryInode parent = made[d.parent()];
            made[i] = creator.linkCopy(parent, d);
            highest = Math.max(highest, FileIds.sequence(d.id()));
        }
        creator.directoryIdsAbove(highest);
    }
}
