package io.tarn.namenode.namespace;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Replication;
import io.tarn.common.protocol.NamenodeProtocol;

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
 *   <li>{@link #ALIVE} → {@link #SEALED}: the first phase of an rmdir with several namenodes; then
 *       back to ALIVE (another namenode holds entries in it) or on to DELETED. Held across a round
 *       trip, so inserters do not wait for it: they take their entry back out and answer RETRY.</li>
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
    /** rmdir with several namenodes, between its two phases: inserts are refused with RETRY. */
    public static final int SEALED = 3;

    private final ConcurrentHashMap<String, Inode> children = new ConcurrentHashMap<>();
    private final AtomicInteger state = new AtomicInteger(ALIVE);
    /**
     * Replication of files created below it that ask for none, or {@link Replication#INHERIT}:
     * the nearest ancestor's, else the cluster's. Set only as the coordinator decides (one
     * namenode, or DIR_SET_REPLICATION), so every namenode's tree holds the same value.
     */
    private volatile int replication = Replication.INHERIT;

    DirectoryInode(long id, String name, DirectoryInode parent, long now, Ownership ownership) {
        super(id, name, parent, now, ownership);
    }

    /**
     * A directory being created, {@link #BUSY} from the start: nothing can be linked into it, and it
     * can be neither moved nor deleted, until its creator has linked and recorded it and made it
     * {@link #ALIVE} (or {@link #DELETED} when its parent went away meanwhile). So no record that
     * names it as a parent, or moves or deletes it, precedes the record of its creation.
     */
    static DirectoryInode pending(long id, String name, DirectoryInode parent, long now, Ownership ownership) {
        DirectoryInode dir = new DirectoryInode(id, name, parent, now, ownership);
        dir.state.set(BUSY);
        return dir;
    }

    /** A copy of another namenode's directory, with its times. */
    DirectoryInode(long id, String name, DirectoryInode parent, long creationTime, long modificationTime,
                   long accessTime, Ownership ownership) {
        super(id, name, parent, creationTime, modificationTime, accessTime, ownership);
    }

    ConcurrentHashMap<String, Inode> children() {
        return children;
    }

    public int childCount() {
        return children.size();
    }

    public int state() {
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
     * put into {@link #children()} when this directory is alive and returns ALIVE; otherwise takes
     * it back out and returns DELETED or SEALED, for the caller to undo the rest and fail with
     * {@link #refused}.
     */
    int commitInsert(String name, Inode child) {
        int s = awaitStable();
        if (s != ALIVE) {
            children.remove(name, child);
        }
        return s;
    }

    /** The error for an insertion that {@link #commitInsert} refused in state {@code state}. */
    static TarnException refused(int state, String what) {
        if (state == SEALED) {
            return new TarnException(ErrorCode.RETRY, what + ": its directory is being deleted; try again");
        }
        return new TarnException(ErrorCode.PARENT_NOT_FOUND, what + ": its parent directory was deleted meanwhile");
    }

    /**
     * Waits out a transient {@link #BUSY} and returns ALIVE, DELETED or SEALED. BUSY is held only for a
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

    /** This directory's own default ({@link Replication#INHERIT} when it sets none). */
    public int replication() {
        return replication;
    }

    void setReplication(int factor) {
        replication = factor;
    }

    /** The replication a file created here without asking for one gets: see {@link #replication}. */
    int inheritedReplication(int clusterDefault) {
        for (DirectoryInode d = this; d != null; d = d.parent()) {
            int r = d.replication;
            if (r != Replication.INHERIT) {
                return r;
            }
        }
        return clusterDefault;
    }

    @Override
    public void writeStatus(ByteBuf buf) {
        Ownership o = ownership();
        NamenodeProtocol.writeStatus(buf, name(), id(), FileType.DIRECTORY, false, 0, 0, 0, creationTime(),
                modificationTime(), accessTime(), o.owner(), o.group(), o.permission(), replication);
    }

    @Override
    public FileStatus status() {
        Ownership o = ownership();
        return new FileStatus(name(), id(), FileType.DIRECTORY, 0, 0, 0, creationTime(), modificationTime(),
                accessTime(), o.owner(), o.group(), o.permission(), false, replication);
    }
}
