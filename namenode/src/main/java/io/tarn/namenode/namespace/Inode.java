package io.tarn.namenode.namespace;

import io.netty.buffer.ByteBuf;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Ownership;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A namespace entry: a directory or a file, linked under a name in its parent directory.
 *
 * <p>{@code name} and {@code parent} change only by rename (and are volatile so the lock-free read
 * path sees a consistent recent value); the id never changes. Ownership (owner, group, permission)
 * is one immutable value swapped as a whole, so a reader never sees half of a change.
 */
public abstract sealed class Inode permits DirectoryInode, FileInode {
    private final long id;
    private volatile long creationTime;
    private volatile String name;
    private volatile DirectoryInode parent;
    private volatile long modificationTime;
    private volatile long accessTime;
    private volatile Ownership ownership;

    /** {@code ownership} must be resolved: owner and group named, permission not the default marker. */
    Inode(long id, String name, DirectoryInode parent, long now, Ownership ownership) {
        this(id, name, parent, now, now, now, ownership);
    }

    /** An entry with the times it had elsewhere (a file moving in from another namenode). */
    Inode(long id, String name, DirectoryInode parent, long creationTime, long modificationTime, long accessTime,
          Ownership ownership) {
        this.id = id;
        this.name = name;
        this.parent = parent;
        this.creationTime = creationTime;
        this.modificationTime = modificationTime;
        this.accessTime = accessTime;
        this.ownership = ownership;
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

    public final long accessTime() {
        return accessTime;
    }

    public final Ownership ownership() {
        return ownership;
    }

    /**
     * Moves the modification time up to {@code now} (never back): the changes below a directory
     * touch it from many threads at once, and the latest time wins whatever order they land in,
     * as it does when the journal replays them in its own order.
     */
    final void touch(long now) {
        long t = modificationTime;
        while (t < now && !MODIFICATION_TIME.compareAndSet(this, t, now)) {
            t = modificationTime;
        }
    }

    private static final VarHandle MODIFICATION_TIME;

    static {
        try {
            MODIFICATION_TIME = MethodHandles.lookup().findVarHandle(Inode.class, "modificationTime", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final void setModificationTime(long t) {
        modificationTime = t;
    }

    /** Only for the root, whose times come from the journal at a restart ({@link NamespaceReplay}). */
    final void setCreationTime(long t) {
        creationTime = t;
    }

    final void setAccessTime(long t) {
        accessTime = t;
    }

    final void setOwnership(Ownership o) {
        ownership = o;
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

    /** Writes {@link #status()} to {@code buf} without building it (the getFile hot path). */
    public abstract void writeStatus(ByteBuf buf);
}
