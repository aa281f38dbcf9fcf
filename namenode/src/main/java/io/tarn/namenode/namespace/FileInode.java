package io.tarn.namenode.namespace;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.namenode.blocks.Block;

import java.util.Arrays;

/**
 * A file: its blocks, size, and writer lease state.
 *
 * <p>Readers take no lock: the block array is copy-on-write and published through a volatile
 * field, and size and flags are volatile. Every change (allocating a block, close, lease recovery,
 * unlinking from the namespace) happens under this file's own monitor, so writers of different
 * files never contend.
 *
 * <p>With several namenodes a closed file renamed to a name another namenode owns moves there
 * (docs/partitioning.md): while it is <em>moving</em> it stays readable by id, but lookups by path
 * and every change answer RETRY; once the other namenode has it, it is retired here without
 * freeing its blocks, which the new file holds.
 */
public final class FileInode extends Inode {
    /** Client id meaning "nobody". */
    public static final long NO_CLIENT = 0;
    private static final Block[] NO_BLOCKS = new Block[0];

    private final int blockSize;
    private final int storageClass;
    /** 1 or 3; changes (under the monitor) only while the file holds no data. */
    private volatile int replication;

    private volatile Block[] blocks = NO_BLOCKS;
    /** Final size once closed; while under construction, the bytes the writer last reported stored. */
    private volatile long size;
    private volatile boolean underConstruction = true;
    private volatile boolean retired;
    private volatile boolean moving;
    /** For a file that moved in from another namenode: its id there (its ledger entry); else 0. */
    private final long adoptedFrom;
    // Guarded by this: a recursive delete unlinked the file while it was moving.
    private boolean unlinkedWhileMoving;
    // Guarded by this.
    private long leaseHolder;
    private long lastWriter;
    private long recoveredFrom = NO_CLIENT;

    FileInode(long id, String name, DirectoryInode parent, long now, Ownership ownership, int blockSize,
              int storageClass, int replication, long clientId) {
        super(id, name, parent, now, ownership);
        this.blockSize = blockSize;
        this.storageClass = storageClass;
        this.replication = replication;
        this.leaseHolder = clientId;
        this.lastWriter = clientId;
        this.adoptedFrom = 0;
    }

    /**
     * A file that moved in from another namenode, where its id was {@code adoptedFrom}: closed, or
     * (writer not {@link #NO_CLIENT}) under construction, leased to {@code writer}.
     */
    FileInode(long id, String name, DirectoryInode parent, long creationTime, long modificationTime, long accessTime,
              Ownership ownership, int blockSize, int storageClass, int replication, long size, Block[] blocks,
              long adoptedFrom, long writer) {
        super(id, name, parent, creationTime, modificationTime, accessTime, ownership);
        this.blockSize = blockSize;
        this.storageClass = storageClass;
        this.replication = replication;
        this.leaseHolder = writer;
        this.lastWriter = writer;
        this.size = size;
        this.blocks = blocks.length == 0 ? NO_BLOCKS : blocks.clone();
        this.underConstruction = writer != NO_CLIENT;
        this.adoptedFrom = adoptedFrom;
    }

    public int blockSize() {
        return blockSize;
    }

    public int storageClass() {
        return storageClass;
    }

    /** 1 or 3 ({@link io.tarn.common.fs.Replication}). */
    public int replication() {
        return replication;
    }

    /** True while no byte can have been written: no block allocated, nothing reported stored. */
    public boolean holdsNoData() {
        return blocks.length == 0 && size == 0;
    }

    /** Sets the replication of a file that holds no data (checked by the caller). Caller holds the monitor. */
    void setReplication(int factor) {
        replication = factor;
    }

    /** Puts {@code block} in place of block {@code index} (copy-on-write). Caller holds the monitor. */
    void replace(int index, Block block) {
        Block[] next = blocks.clone();
        next[index] = block;
        blocks = next;
    }

    /** The current blocks; the array must not be modified. */
    public Block[] blocks() {
        return blocks;
    }

    public long size() {
        return size;
    }

    public boolean underConstruction() {
        return underConstruction;
    }

    /** True once the file was unlinked from the namespace and its blocks freed. */
    public boolean retired() {
        return retired;
    }

    /** True while the file is moving to another namenode (see the class comment). */
    public boolean moving() {
        return moving;
    }

    long adoptedFrom() {
        return adoptedFrom;
    }

    /**
     * The client writing the file, or {@link #NO_CLIENT} when it is closed: what a move hands on.
     */
    public synchronized long writer() {
        return underConstruction ? leaseHolder : NO_CLIENT;
    }

    /**
     * Starts moving the file to another namenode: only a live file that is not moving already. Its
     * writer, if any, waits (RETRY) until the move ends. Caller holds the monitor.
     */
    boolean beginMove() {
        if (retired || moving) {
            return false;
        }
        moving = true;
        return true;
    }

    /** A recursive delete took the moving file out of its directory. Caller holds the monitor. */
    void unlinkWhileMoving() {
        unlinkedWhileMoving = true;
    }

    boolean unlinkedWhileMoving() {
        return unlinkedWhileMoving;
    }

    /** The move failed: the file stays here. Caller holds the monitor. */
    void endMove() {
        moving = false;
    }

    /**
     * The file now lives elsewhere with these very blocks (it moved, or an adoption was taken back):
     * retired here, with nothing to free. Caller holds the monitor.
     *
     * @return false when it was retired already
     */
    boolean retireMoved() {
        if (retired) {
            return false;
        }
        retired = true;
        moving = false;
        blocks = NO_BLOCKS;
        return true;
    }

    /** RETRY for an operation on a moving file: the client tries again in a moment. */
    static TarnException movingRetry(String what, String path) {
        return new TarnException(ErrorCode.RETRY, "cannot " + what + " '" + path
                + "' now: it is being renamed to a name another namenode owns");
    }

    synchronized long leaseHolder() {
        return leaseHolder;
    }

    synchronized long lastWriter() {
        return lastWriter;
    }

    synchronized long recoveredFrom() {
        return recoveredFrom;
    }

    /** Appends a block (copy-on-write). Caller holds the monitor. */
    void append(Block block) {
        Block[] old = blocks;
        Block[] next = Arrays.copyOf(old, old.length + 1);
        next[old.length] = block;
        blocks = next;
    }

    /**
     * Records that the writer's first {@code durableSize} bytes are stored: the size readers see
     * while the file is open and the size lease recovery keeps. Never shrinks. Caller holds the monitor.
     *
     * @return true when the size grew
     */
    boolean reportDurable(long durableSize) {
        if (durableSize > size) {
            size = durableSize;
            return true;
        }
        return false;
    }

    /**
     * Ends construction at {@code finalSize}, keeping only the blocks that size needs. Caller holds the
     * monitor.
     *
     * @return the surplus blocks, for the caller to free
     */
    Block[] finish(long finalSize, long now, long recoveredFromClient) {
        Block[] all = blocks;
        int needed = (int) ((finalSize + blockSize - 1) / blockSize);
        Block[] surplus = NO_BLOCKS;
        if (needed < all.length) {
            surplus = Arrays.copyOfRange(all, needed, all.length);
            blocks = Arrays.copyOf(all, needed);
        }
        size = finalSize;
        touch(now);
        lastWriter = leaseHolder;
        leaseHolder = NO_CLIENT;
        recoveredFrom = recoveredFromClient;
        underConstruction = false;
        return surplus;
    }

    /**
     * Reopens a closed file for appending by {@code clientId}: it is under construction again, at
     * its current size, with its blocks kept (the last one may be partly filled). Caller holds the
     * monitor and has checked that the file is closed and not retired.
     */
    void reopen(long clientId) {
        leaseHolder = clientId;
        recoveredFrom = NO_CLIENT;
        underConstruction = true;
    }

    /**
     * Marks the file gone and hands back everything it held. Caller holds the monitor.
     *
     * @return the blocks to free, or null when the file was already retired
     */
    Block[] retire() {
        if (retired) {
            return null;
        }
        retired = true;
        Block[] all = blocks;
        blocks = NO_BLOCKS;
        return all;
    }

    @Override
    public void writeStatus(ByteBuf buf) {
        Ownership o = ownership();
        NamenodeProtocol.writeStatus(buf, name(), id(), FileType.FILE, underConstruction, storageClass, blockSize,
                size, creationTime(), modificationTime(), accessTime(), o.owner(), o.group(), o.permission(),
                replication);
    }

    @Override
    public FileStatus status() {
        Ownership o = ownership();
        return new FileStatus(name(), id(), FileType.FILE, size, blockSize, storageClass, creationTime(),
                modificationTime(), accessTime(), o.owner(), o.group(), o.permission(), underConstruction,
                replication);
    }
}
