package io.tarn.namenode.namespace;

import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A directory: its children by full name (subdirectories and files in one map, so a name is
 * unique) and a life-cycle state that lets lock-free creates race deletes safely.
 *
 * <p>States and transitions:
 * <ul>
 *   <li>{@link #ALIVE} → {@link #BUSY}: a non-recursive delete checking emptiness, or a rename moving
 *       this directory. Held for O(1) work; then back to ALIVE, or on to DELETED.</li>
 *   <li>{@link #ALIVE} → {@link #DELETED}: a recursive delete (its sweep follows).</li>
 * </ul>
 * An inserter puts its child into {@link #children()} first and reads the state after
 * ({@link #awaitStable()}); a deleter sets BUSY/DELETED first and reads the children after. Both are
 * volatile accesses, so at least one side sees the other: either the delete finds the directory
 * non-empty, or the inserter sees it deleted and takes its child back out.
 */
public final class DirectoryInode extends Inode {
    public static final int ALIVE = 0;
    public static final int BUSY = 1;
    public static final int DELETED = 2;

    private final ConcurrentHashMap<String, Inode> children = new ConcurrentHashMap<>();
    private final AtomicInteger state = new AtomicInteger(ALIVE);

    DirectoryInode(long id, String name, DirectoryInode parent, long now, Ownership ownership) {
        super(id, name, parent, now, ownership);
    }

    ConcurrentHashMap<String, Inode> children() {
        return children;
    }

    public int childCount() {
        return children.size();
    }

    int state() {
        return state.get();
    }

    boolean transition(int from, int to) {
        return state.compareAndSet(from, to);
    }

    void setState(int to) {
        state.set(to);
    }

    /**
     * Second half of every insertion (create, mkdirs, the link step of a rename): keeps a child just
     * put into {@link #children()} when this directory is alive; takes it back out and returns false
     * when this directory was deleted meanwhile.
     */
    boolean commitInsert(String name, Inode child) {
        if (awaitStable() == ALIVE) {
            return true;
        }
        children.remove(name, child);
        return false;
    }

    /**
     * Waits out a transient {@link #BUSY} and returns ALIVE or DELETED. BUSY is held only for a
     * few map operations by a thread that waits on nothing held by the caller, so the wait is short.
     */
    int awaitStable() {
        int spins = 0;
        int s;
        while ((s = state.get()) == BUSY) {
            if (++spins < 100) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
        return s;
    }

    @Override
    public FileStatus status() {
        Ownership o = ownership();
        return new FileStatus(name(), id(), FileType.DIRECTORY, 0, 0, 0, creationTime(), modificationTime(),
                accessTime(), o.owner(), o.group(), o.permission(), false);
    }
}
