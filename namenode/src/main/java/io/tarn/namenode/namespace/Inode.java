package io.tarn.namenode.namespace;

import io.tarn.common.fs.FileStatus;

/**
 * A namespace entry: a directory or a file, linked under a name in its parent directory.
 *
 * <p>{@code name} and {@code parent} change only by rename (and are volatile so the lock-free read
 * path sees a consistent recent value); the id never changes.
 */
public abstract sealed class Inode permits DirectoryInode, FileInode {
    private final long id;
    private final long creationTime;
    private volatile String name;
    private volatile DirectoryInode parent;
    private volatile long modificationTime;

    Inode(long id, String name, DirectoryInode parent, long now) {
        this.id = id;
        this.name = name;
        this.parent = parent;
        this.creationTime = now;
        this.modificationTime = now;
    }

    public final long id() {
        return id;
    }

    public final String name() {
        return name;
    }

    public final DirectoryInode parent() {
        return parent;
    }

    public final long creationTime() {
        return creationTime;
    }

    public final long modificationTime() {
        return modificationTime;
    }

    final void touch(long now) {
        modificationTime = now;
    }

    final void moveTo(DirectoryInode newParent, String newName) {
        this.parent = newParent;
        this.name = newName;
    }

    /** The absolute path, rebuilt from parent links (for messages; racy against concurrent renames). */
    public final String path() {
        if (parent == null) {
            return "/";
        }
        StringBuilder sb = new StringBuilder();
        for (Inode n = this; n.parent() != null; n = n.parent()) {
            sb.insert(0, n.name()).insert(0, '/');
        }
        return sb.toString();
    }

    /** A snapshot of this entry's metadata. */
    public abstract FileStatus status();
}
