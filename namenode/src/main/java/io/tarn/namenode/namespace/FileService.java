package io.tarn.namenode.namespace;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail.MovedTo;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.namenode.PeerProtocol;
import io.tarn.namenode.PeerProtocol.MovedBlock;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.Clock;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.blocks.GroupInfo;
import io.tarn.namenode.journal.EditLog;
import io.tarn.namenode.lease.LeaseManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Operations on one file by id: block lookup and allocation, close, and lease recovery.
 *
 * <p>Reading a block is lock-free (a table lookup and a volatile array read). Writing, closing and
 * recovery lock only the file itself; allocation then locks only the chosen datanode's free list.
 */
public final class FileService {
    private static final Logger LOG = LoggerFactory.getLogger(FileService.class);

    private final Clock clock;
    private final FileTable files;
    private final BlockAllocator allocator;
    private final DatanodeRegistry datanodes;
    private final LeaseManager leases;
    private final BlockTokens tokens;
    private final EditLog log;
    private final ConcurrentHashMap<Long, Forward> forwards = new ConcurrentHashMap<>();
    private final LongAdder replacedBlocks = new LongAdder();

    public FileService(Clock clock, FileTable files, BlockAllocator allocator, DatanodeRegistry datanodes,
                       LeaseManager leases, BlockTokens tokens) {
        this(clock, files, allocator, datanodes, leases, tokens, EditLog.NONE);
    }

    /** As the other constructor, recording every change of a file's contents to {@code log} (see NamespaceEdits). */
    public FileService(Clock clock, FileTable files, BlockAllocator allocator, DatanodeRegistry datanodes,
                       LeaseManager leases, BlockTokens tokens, EditLog log) {
        this.log = log;
        this.clock = clock;
        this.files = files;
        this.allocator = allocator;
        this.datanodes = datanodes;
        this.leases = leases;
        this.tokens = tokens;
    }

    /**
     * The block at {@code index} of a file. Reading returns an existing block with a read token.
     * Writing requires the lease; {@code index == block count} allocates the next block (blocks are
     * written in order), a lower index returns the existing block with a write token.
     */
    public BlockRef getBlock(long fileId, int index, boolean write, long clientId, String clientHost)
            throws TarnException {
        return getBlock(fileId, index, write, clientId, clientHost, -1);
    }

    /**
     * As {@link #getBlock(long, int, boolean, long, String)}; a writer also reports
     * {@code durableSize}, the bytes it knows are stored (-1: nothing to report).
     */
    public BlockRef getBlock(long fileId, int index, boolean write, long clientId, String clientHost,
                             long durableSize) throws TarnException {
        FileInode f = file(fileId);
        if (!write) {
            Block[] blocks = f.blocks();
            if (f.retired()) {
                throw new TarnException(ErrorCode.FILE_NOT_FOUND, "'" + f.path() + "' was deleted");
            }
            if (index >= blocks.length) {
                throw new TarnException(ErrorCode.BLOCK_NOT_FOUND, "file '" + f.path() + "' has " + blocks.length
                        + " block(s); block " + index + " does not exist");
            }
            return ref(f, index, blocks[index], false);
        }
        synchronized (f) {
            checkWriterReporting(f, clientId, durableSize);
            return writeRef(f, index, clientHost);
        }
    }

    /** Caller holds the file's monitor: checks the writer and records the size it reports stored, if any. */
    private void checkWriterReporting(FileInode f, long clientId, long durableSize) throws TarnException {
        checkWriter(f, clientId);
        if (durableSize >= 0) {
            checkWithinBlocks(f, durableSize, "report");
            if (f.reportDurable(durableSize)) {
                NamespaceEdits.size(log, f.id(), durableSize);
            }
        }
    }

    /**
     * Caller holds the file's monitor and has checked the writer: the write reference of block
     * {@code index}, allocated when it is the file's next one.
     */
    private BlockRef writeRef(FileInode f, int index, String clientHost) throws TarnException {
        Block[] blocks = f.blocks();
        if (index < blocks.length) {
            return ref(f, index, blocks[index], true);
        }
        if (index > blocks.length) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "blocks of '" + f.path()
                    + "' are written in order: it has " + blocks.length + " block(s), so the next is "
                    + blocks.length + ", not " + index);
        }
        Block b = allocator.allocate(f.storageClass(), f.replication(), clientHost);
        f.append(b);
        NamespaceEdits.block(log, f.id(), index, b);
        return ref(f, index, b, true);
    }

    /** A REPLACE_BLOCK answer, and the datanode it newly reported unreachable (for the other namenodes), or null. */
    public record Replacement(BlockRef ref, DatanodeInfo reported) {
    }

    /**
     * REPLACE_BLOCK: the file's writer could not reach the datanode holding block {@code index}
     * ({@code datanodeId} as its reference named it) before writing any of it. That datanode is
     * left out of allocation at once ({@link DatanodeRegistry#reportUnreachable}); the block is
     * freed and a new one, elsewhere, takes its place. When the block is no longer on that datanode
     * (another write of the same block asked first), its current reference is the answer.
     * INVALID_ARGUMENT when the writer reported bytes of this block stored: those are not given up
     * silently.
     */
    public Replacement replaceBlock(long fileId, int index, int datanodeId, long clientId, String clientHost)
            throws TarnException {
        FileInode f = file(fileId);
        Block old;
        Replacement answer;
        synchronized (f) {
            checkWriter(f, clientId);
            Block[] blocks = f.blocks();
            if (index >= blocks.length) {
                throw new TarnException(ErrorCode.INVALID_ARGUMENT, "cannot replace block " + index + " of '"
                        + f.path() + "': it has " + blocks.length + " block(s)");
            }
            old = blocks[index];
            if (old.replicated()) {
                throw new TarnException(ErrorCode.INVALID_ARGUMENT, "cannot replace block " + index + " of '"
                        + f.path() + "': it is a block of replication 3 in " + old.group() + ", whose members "
                        + "are not replaced by REPLACE_BLOCK; write to another member, which forwards to the "
                        + "group's leader");
            }
            DatanodeInfo dn = old.datanode();
            if (refDatanodeId(old) != datanodeId || old.foreign()) {
                return new Replacement(ref(f, index, old, true), null); // replaced already, or not ours to move
            }
            boolean reported = datanodes.reportUnreachable(dn, "client " + Long.toHexString(clientId) + " ("
                    + clientHost + ") writing '" + f.path() + "'");
            if (f.size() > (long) index * f.blockSize()) {
                throw new TarnException(ErrorCode.INVALID_ARGUMENT, "cannot replace block " + index + " of '"
                        + f.path() + "' on " + dn.describe() + ": its writer reported " + f.size()
                        + " bytes of the file stored, some of them in this block");
            }
            Block b = allocator.allocate(f.storageClass(), f.replication(), clientHost);
            f.replace(index, b);
            NamespaceEdits.block(log, f.id(), index, b);
            answer = new Replacement(ref(f, index, b, true), reported ? dn : null);
        }
        replacedBlocks.increment();
        allocator.free(old);
        return answer;
    }

    /** Blocks replaced because their writer could not reach their datanode (REPLACE_BLOCK), since start. */
    public long replacedBlocks() {
        return replacedBlocks.sum();
    }

    /** The datanode id a block's reference names: the home namenode's for a foreign block. */
    private static int refDatanodeId(Block b) {
        return b.foreign() ? b.home().datanodeId() : b.datanode().id();
    }

    /**
     * Write references of {@code count} consecutive blocks from {@code first} on for the file's
     * writer, allocating those the file does not have yet, as that many write
     * {@link #getBlock(long, int, boolean, long, String, long)} calls would in one round trip (at
     * most {@link NamenodeProtocol#MAX_BLOCKS_PER_CALL}). When storage runs out part-way, the
     * blocks allocated so far are returned; NO_SPACE only when not even block {@code first} can be
     * had. Blocks past the size the file is closed at are freed then, as any block asked ahead is.
     */
    public List<BlockRef> allocateBlocks(long fileId, int first, int count, long clientId, String clientHost,
                                         long durableSize) throws TarnException {
        int n = Math.min(count, NamenodeProtocol.MAX_BLOCKS_PER_CALL);
        List<BlockRef> refs = new ArrayList<>(n);
        FileInode f = file(fileId);
        synchronized (f) {
            checkWriterReporting(f, clientId, durableSize);
            refs.add(writeRef(f, first, clientHost));
            for (int i = first + 1; i < first + n; i++) {
                try {
                    refs.add(writeRef(f, i, clientHost));
                } catch (TarnException e) {
                    if (e.code() != ErrorCode.NO_SPACE) {
                        throw e;
                    }
                    break; // the writer asks again for the next block when it gets there
                }
            }
        }
        return refs;
    }

    /**
     * Read references of up to {@code count} blocks from block {@code first} on (at most
     * {@link NamenodeProtocol#MAX_BLOCKS_PER_CALL}); fewer, possibly none, at the end of the file.
     * Lock-free like a single read {@link #getBlock}, and failing the same way when one of them is
     * on a dead datanode.
     */
    public List<BlockRef> getBlocks(long fileId, int first, int count) throws TarnException {
        FileInode f = file(fileId);
        Block[] blocks = f.blocks();
        if (f.retired()) {
            throw new TarnException(ErrorCode.FILE_NOT_FOUND, "'" + f.path() + "' was deleted");
        }
        int end = (int) Math.min(blocks.length, (long) first + Math.min(count, NamenodeProtocol.MAX_BLOCKS_PER_CALL));
        List<BlockRef> refs = new ArrayList<>(Math.max(0, end - first));
        for (int i = first; i < end; i++) {
            refs.add(ref(f, i, blocks[i], false));
        }
        return refs;
    }

    /**
     * hsync: the writer reports its first {@code durableSize} bytes stored. Readers see that size
     * while the file is open, and lease recovery keeps it.
     */
    public FileStatus sync(long fileId, long clientId, long durableSize) throws TarnException {
        FileInode f = file(fileId);
        synchronized (f) {
            checkWriter(f, clientId);
            checkWithinBlocks(f, durableSize, "sync");
            if (f.reportDurable(durableSize)) {
                NamespaceEdits.size(log, f.id(), durableSize);
            }
        }
        return f.status();
    }

    /** Caller holds the file's monitor. */
    private static void checkWithinBlocks(FileInode f, long size, String what) throws TarnException {
        if (size < 0) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "cannot " + what + " '" + f.path() + "' at " + size
                    + " bytes: a size is never negative");
        }
        long capacity = (long) f.blocks().length * f.blockSize();
        if (size > capacity) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "cannot " + what + " '" + f.path() + "' at " + size
                    + " bytes: only " + f.blocks().length + " block(s) of " + f.blockSize() + " bytes were allocated");
        }
    }

    /**
     * Append: reopens closed file {@code f} for writing by {@code clientId} at its current end,
     * leased to that client. LEASE_CONFLICT while anyone (this client included) still has it open
     * for writing.
     */
    public FileStatus reopen(FileInode f, long clientId) throws TarnException {
        synchronized (f) {
            if (f.retired()) {
                throw new TarnException(ErrorCode.FILE_NOT_FOUND, "'" + f.path() + "' was deleted");
            }
            if (f.moving()) {
                throw FileInode.movingRetry("append to", f.path());
            }
            if (f.underConstruction()) {
                long holder = f.leaseHolder();
                throw new TarnException(ErrorCode.LEASE_CONFLICT, "cannot append to '" + f.path() + "': it is "
                        + (holder == clientId ? "already open for writing by this client"
                        : "being written by client " + Long.toHexString(holder) + " (its lease expires "
                        + leases.timeoutMs() + " ms after its last renewal)"));
            }
            // Lease first: from the moment the file is open again, it is leased.
            leases.acquire(clientId, f.id());
            f.reopen(clientId);
            NamespaceEdits.reopen(log, f.id(), clientId);
        }
        return f.status();
    }

    /** Closes a file at {@code size}: publishes the size, frees blocks beyond it, releases the lease. */
    public FileStatus close(long fileId, long clientId, long size) throws TarnException {
        FileInode f = file(fileId);
        Block[] surplus;
        synchronized (f) {
            if (f.moving()) {
                throw FileInode.movingRetry("close", f.path());
            }
            if (!f.underConstruction()) {
                if (f.recoveredFrom() == clientId) {
                    throw leaseExpired(f, clientId);
                }
                if (f.lastWriter() == clientId && f.size() == size) {
                    return f.status();
                }
                throw new TarnException(ErrorCode.FILE_CLOSED, "'" + f.path() + "' is already closed");
            }
            checkWriter(f, clientId);
            checkWithinBlocks(f, size, "close");
            long now = clock.millis();
            surplus = f.finish(size, now, FileInode.NO_CLIENT);
            NamespaceEdits.close(log, fileId, size, now, FileInode.NO_CLIENT);
        }
        leases.release(clientId, fileId);
        allocator.free(surplus);
        return f.status();
    }

    /**
     * Lease recovery: closes a file still held by {@code clientId} at the length its writer last
     * reported stored (hsync or getBlock), freeing blocks beyond it. Later writes and closes by that
     * client fail with LEASE_EXPIRED. No-op when the file is gone, closed, or held by someone else.
     */
    public void recover(long fileId, long clientId, long silenceMs) {
        FileInode f = files.get(fileId);
        if (f == null) {
            return;
        }
        Block[] surplus;
        synchronized (f) {
            if (f.retired() || f.moving() || !f.underConstruction() || f.leaseHolder() != clientId) {
                return; // moving: the lease goes with the file; if the move fails, the next pass recovers it
            }
            long now = clock.millis();
            surplus = f.finish(f.size(), now, clientId);
            NamespaceEdits.close(log, fileId, f.size(), now, clientId);
        }
        allocator.free(surplus);
        LOG.info("Lease of client {} expired after {} ms of silence: closed '{}' at {} bytes",
                Long.toHexString(clientId), silenceMs, f.path(), f.size());
    }

    private FileInode file(long fileId) throws TarnException {
        FileInode f = files.get(fileId);
        if (f == null) {
            Forward to = forwards.get(fileId);
            if (to != null) {
                throw new TarnException(ErrorCode.MOVED, "file " + FileIds.format(fileId) + " was renamed to '"
                        + to.path() + "', a name another namenode owns, where its id is " + FileIds.format(to.id()),
                        new MovedTo(to.id()));
            }
            throw new TarnException(ErrorCode.FILE_NOT_FOUND, "no file with id " + FileIds.format(fileId)
                    + " (it was deleted, or the id is stale)");
        }
        return f;
    }

    /** Where a moved file went: its id there and its new path (for messages), until {@code expires}. */
    private record Forward(long id, String path, long expires) {
    }

    /**
     * Remembers that file {@code oldId} moved to another namenode as {@code newId}, so that its
     * writer and readers, who hold the old id, are told where it went (MOVED, then WHERE_MOVED) for
     * twice the lease timeout: long enough for a writer that keeps its lease to come back.
     */
    public void forward(long oldId, long newId, String path) {
        forwards.put(oldId, new Forward(newId, path, clock.millis() + 2 * leases.timeoutMs()));
    }

    /** WHERE_MOVED: the new id of a file that moved away; FILE_NOT_FOUND when none is known. */
    public long whereMoved(long oldId) throws TarnException {
        Forward to = forwards.get(oldId);
        if (to == null) {
            throw new TarnException(ErrorCode.FILE_NOT_FOUND, "no file with id " + FileIds.format(oldId)
                    + " moved away from this namenode recently");
        }
        return to.id();
    }

    /** Forgets forwards past their time (maintenance). */
    public void expireForwards() {
        long now = clock.millis();
        forwards.values().removeIf(f -> f.expires() <= now);
    }

    // ------------------------------------------------------------------ files moving between namenodes

    /**
     * The blocks of moving file {@code f} as they travel to another namenode: each with its home
     * (this namenode, partition {@code self}, for its own blocks) and the home's read and write
     * tokens. DATA_LOST when one of them is lost (the file then stays here).
     */
    public List<MovedBlock> movedBlocks(FileInode f, int self) throws TarnException {
        Block[] blocks = f.blocks();
        if (blocks.length > PeerProtocol.MAX_MOVED_BLOCKS) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "'" + f.path() + "' has " + blocks.length
                    + " blocks; a file moves to another namenode with at most " + PeerProtocol.MAX_MOVED_BLOCKS
                    + " (rename it within its namenode, or copy it)");
        }
        List<MovedBlock> out = new ArrayList<>(blocks.length);
        for (int i = 0; i < blocks.length; i++) {
            Block b = blocks[i];
            DatanodeInfo dn = b.datanode();
            if (b.replicated()) {
                throw new TarnException(ErrorCode.INVALID_ARGUMENT, "cannot move '" + f.path() + "' to another "
                        + "namenode: files of replication 3 stay with the namenode that placed their block groups; "
                        + "rename it to a name this namenode owns, or copy it");
            }
            if (!dn.holds(b)) {
                throw new TarnException(ErrorCode.DATA_LOST, "cannot move '" + f.path() + "' to another namenode: "
                        + "block " + i + " is lost (" + dn.describe() + " restarted without its data)");
            }
            if (b.foreign()) {
                Block.Foreign h = b.home();
                out.add(new MovedBlock(dn.host(), dn.port(), h.partition(), h.epoch(), h.datanodeId(),
                        h.incarnation(), b.regionId(), b.regionBlock(), b.generation(), h.readToken(), h.writeToken()));
            } else {
                long stamp = tokens.stamp();
                int region = b.regionId();
                out.add(new MovedBlock(dn.host(), dn.port(), self, epoch(), dn.id(), b.incarnation(), region,
                        b.regionBlock(), b.generation(),
                        tokens.issue(dn.id(), region, b.regionBlock(), b.generation(), BlockTokens.READ, stamp),
                        tokens.issue(dn.id(), region, b.regionBlock(), b.generation(), BlockTokens.WRITE, stamp)));
            }
        }
        return out;
    }

    /**
     * The blocks of a file moving here (FILE_ADOPT) as this namenode holds them: its own (home
     * {@code self}) as they were allocated, the others as foreign blocks on this namenode's record
     * of the same datanode. UNKNOWN_DATANODE when a datanode has not registered here (yet).
     */
    public Block[] adoptedBlocks(List<MovedBlock> moved, int self) throws TarnException {
        Block[] out = new Block[moved.size()];
        for (int i = 0; i < out.length; i++) {
            MovedBlock m = moved.get(i);
            if (m.homePartition() == self) {
                DatanodeInfo dn = datanodes.byAddress(m.host(), m.port());
                if (dn == null) {
                    throw unknownDatanode(m);
                }
                // Allocated by an earlier run of this namenode: the place may be in use again, so the
                // block counts as lost (an incarnation that never matches), never as ours to free.
                int incarnation = m.homeEpoch() == epoch() && dn.id() == m.homeDatanodeId() ? m.homeIncarnation() : -1;
                out[i] = new Block(dn, incarnation, m.regionId(), m.regionBlock(), m.generation());
            } else {
                DatanodeInfo dn = datanodes.byAddress(m.host(), m.port());
                if (dn == null) {
                    throw unknownDatanode(m);
                }
                out[i] = new Block(dn, dn.incarnation(), m.regionId(), m.regionBlock(), m.generation(),
                        new Block.Foreign(m.homePartition(), m.homeEpoch(), m.homeDatanodeId(), m.homeIncarnation(),
                                m.readToken(), m.writeToken()));
            }
        }
        return out;
    }

    private static TarnException unknownDatanode(MovedBlock m) {
        return new TarnException(ErrorCode.UNKNOWN_DATANODE, "datanode " + m.host() + ":" + m.port()
                + " has not registered with this namenode (yet), so it cannot take a file with blocks there");
    }

    /**
     * Which run of this namenode allocated a block: its token key, random at every start. A block
     * of another run is never freed here (that run's allocations are forgotten and the place may be
     * in use again).
     */
    private long epoch() {
        return tokens.key0();
    }

    /**
     * FREE_BLOCKS: this namenode's blocks given back by one a file had moved to. Returns the places
     * freed (for the namespace to record and strike from its lent blocks); a block of an earlier run,
     * already freed or allocated again since, is left alone.
     */
    public List<LentBlocks.Place> freeReturned(List<MovedBlock> blocks) {
        List<LentBlocks.Place> freed = new ArrayList<>();
        for (MovedBlock m : blocks) {
            if (m.homeEpoch() != epoch()) {
                continue;
            }
            DatanodeInfo dn = datanodes.get(m.homeDatanodeId());
            if (dn != null && dn.releaseReturned(m.homeIncarnation(), m.regionId(), m.regionBlock(), m.generation())) {
                freed.add(new LentBlocks.Place(dn.id(), m.regionId(), m.regionBlock()));
            }
        }
        return freed;
    }

    /** How a foreign block travels back to its home for freeing (tokens are not needed there). */
    public static MovedBlock returned(Block b) {
        Block.Foreign h = b.home();
        DatanodeInfo dn = b.datanode();
        return new MovedBlock(dn.host(), dn.port(), h.partition(), h.epoch(), h.datanodeId(), h.incarnation(),
                b.regionId(), b.regionBlock(), b.generation(), 0, 0);
    }

    /** Caller holds the file's monitor. */
    private void checkWriter(FileInode f, long clientId) throws TarnException {
        if (f.retired()) {
            throw new TarnException(ErrorCode.FILE_NOT_FOUND, "'" + f.path() + "' was deleted");
        }
        if (f.moving()) {
            throw FileInode.movingRetry("write", f.path());
        }
        if (f.recoveredFrom() == clientId) {
            throw leaseExpired(f, clientId);
        }
        if (!f.underConstruction()) {
            throw new TarnException(ErrorCode.FILE_CLOSED, "'" + f.path() + "' is closed; closed files are immutable");
        }
        if (f.leaseHolder() != clientId) {
            throw new TarnException(ErrorCode.LEASE_CONFLICT, "'" + f.path() + "' is being written by client "
                    + Long.toHexString(f.leaseHolder()) + ", not by client " + Long.toHexString(clientId));
        }
    }

    private TarnException leaseExpired(FileInode f, long clientId) {
        return new TarnException(ErrorCode.LEASE_EXPIRED, "the lease of client " + Long.toHexString(clientId)
                + " on '" + f.path() + "' expired (not renewed within " + leases.timeoutMs()
                + " ms); the file was closed at " + f.size() + " bytes");
    }

    private BlockRef ref(FileInode f, int index, Block b, boolean write) throws TarnException {
        if (b.replicated()) {
            return groupRef(f, index, b, write);
        }
        DatanodeInfo dn = b.datanode();
        if (!dn.holds(b)) {
            DatanodeInfo.Lost l = dn.lostData(b);
            throw new TarnException(ErrorCode.DATA_LOST, "block " + index + " of '" + f.path() + "' is lost: "
                    + dn.describe() + (l == null ? " restarted or was shut down without keeping its data"
                    : l.held() == DatanodeInfo.Lost.REGION_OUT_OF_SERVICE ? " took the block's region "
                    + b.regionId() + " out of service, its memory gone (" + dn.regionFailure(b.regionId()) + ")"
                    : " kept its storage, but its block report shows generation " + l.held() + " in the block's "
                    + "slot, not " + l.generation() + ": the data never reached it or was overwritten"));
        }
        switch (dn.liveness()) {
            case ALIVE -> { }
            case STOPPED -> throw new TarnException(ErrorCode.DATANODE_DEAD, "block " + index + " of '" + f.path()
                    + "' is on " + dn.describe() + ", which stopped: it was shut down " + datanodes.silenceMs(dn)
                    + " ms ago and kept its data, which is unavailable until the datanode starts again");
            case SILENT -> throw new TarnException(ErrorCode.DATANODE_DEAD, "block " + index + " of '" + f.path()
                    + "' is on " + dn.describe() + ", which is dead (silent for " + datanodes.silenceMs(dn) + " ms)");
        }
        // A block in another namenode's region (a file adopted from it) too: the stamp names this
        // namenode as the issuer, and the datanode checks the token with this namenode's keys.
        long stamp = tokens.stamp();
        long token = tokens.issue(dn.id(), b.regionId(), b.regionBlock(), b.generation(),
                write ? BlockTokens.WRITE : BlockTokens.READ, stamp);
        return new BlockRef(dn.id(), dn.host(), dn.port(), dn.storageClass(), b.regionId(), b.regionBlock(),
                f.blockSize(), b.generation(), token, stamp, write);
    }

    /**
     * The reference of a block of a group: the group with every member's token for its replica,
     * the reference's own fields naming the member believed to lead, or when its datanode is down
     * the first member that is up, and the members that are not up (dead, or restarted without the
     * group's data) marked down. DATA_LOST when every member lost its data, DATANODE_DEAD when no
     * member with the data is alive.
     */
    private BlockRef groupRef(FileInode f, int index, Block b, boolean write) throws TarnException {
        GroupInfo g = b.group();
        GroupInfo.Membership current = g.membership();
        int mode = write ? BlockTokens.WRITE : BlockTokens.READ;
        GroupInfo.Member main = current.member(g.leaderMemberId());
        if (main == null || !g.up(main)) {
            main = null;
            for (GroupInfo.Member m : current.members()) { // up first, else alive with the data
                if (g.up(m) || main == null && m.live()) {
                    main = m;
                    if (g.up(m)) {
                        break;
                    }
                }
            }
        }
        if (main == null) {
            if (g.lost()) {
                throw new TarnException(ErrorCode.DATA_LOST, "block " + index + " of '" + f.path() + "' is lost: "
                        + "every member of its " + g + " restarted or was shut down without keeping its data");
            }
            throw new TarnException(ErrorCode.DATANODE_DEAD, "block " + index + " of '" + f.path() + "' is in " + g
                    + ", and no member with its data is alive");
        }
        int slot = b.regionBlock();
        int generation = b.generation();
        long stamp = tokens.stamp();
        List<GroupMember> members = new ArrayList<>(current.members().size());
        int down = 0;
        for (GroupInfo.Member m : current.members()) {
            DatanodeInfo dn = m.datanode();
            if (!g.up(m)) {
                down |= 1 << members.size();
            }
            members.add(new GroupMember(m.memberId(), dn.id(), dn.host(), dn.port(), m.regionId(),
                    tokens.issue(dn.id(), m.regionId(), slot, generation, mode, stamp)));
        }
        DatanodeInfo dn = main.datanode();
        long token = tokens.issue(dn.id(), main.regionId(), slot, generation, mode, stamp);
        return new BlockRef(dn.id(), dn.host(), dn.port(), dn.storageClass(), main.regionId(), slot, f.blockSize(),
                generation, token, stamp, write, new BlockGroup(g.id(), current.version(), main.memberId(), members),
                down);
    }
}
