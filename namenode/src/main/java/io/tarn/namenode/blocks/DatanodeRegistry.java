package io.tarn.namenode.blocks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.AdminProtocol.BlockReport;
import io.tarn.common.protocol.AdminProtocol.LostRegion;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.Wire;
import io.tarn.namenode.Clock;
import io.tarn.namenode.journal.EditLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The datanodes known to this namenode: registration, heartbeats, deregistration and liveness.
 *
 * <p>Every datanode serves every namenode and registers with each the share of its regions that
 * namenode manages ({@code firstRegion}, {@code regionStride}, {@code regionCount}); this registry
 * allocates only there. Ids, liveness and incarnations are per namenode: a datanode has one id with
 * each namenode, and one that this namenode declares dead is dead for this namenode's blocks only.
 *
 * <p>Registration and deregistration are rare and serialized on this object; heartbeats and
 * lookups are lock-free (concurrent maps). The datanodes of each storage class are published as an
 * immutable array that the allocator reads without locking.
 *
 * <p>Registration rules: a new storage id gets a new datanode id and all its blocks free
 * ({@code resetGenerations}); a known storage id keeps its datanode id and has its address updated;
 * when it reports itself {@code intact} with the same layout its blocks are kept, otherwise its data
 * is gone: a new incarnation starts with every block free and blocks of existing files on it become
 * lost.
 *
 * <p>Deregistration (a clean stop) marks the datanode {@linkplain DatanodeInfo.Liveness#STOPPED
 * stopped} at once: it is left out of allocation, its blocks are refused as DATANODE_DEAD, and
 * heartbeats are answered UNKNOWN_DATANODE until it registers again. When it did not keep its data,
 * its data is dropped as for a re-registration without data (its blocks become lost and its regions
 * free for its next registration).
 */
public final class DatanodeRegistry {
    /** Storage classes are 0..15 (a u8 on the wire, bounded by configuration). */
    public static final int MAX_STORAGE_CLASSES = 16;
    /**
     * The journal record of a datanode's durable state, appended (under this registry's monitor)
     * whenever its id is given or its layout or incarnation change: {@code id[i32]
     * storageIdHigh[i64] storageIdLow[i64] storageClass[i32] regionSize[i64] firstRegion[i32]
     * regionStride[i32] regionCount[i32] incarnation[i32] host[string] port[u16]}, the address being
     * where it served when recorded (shown until it registers again). Datanode ids are inside block tokens and
     * file records, and incarnations tell which blocks a datanode still holds, so both outlive a
     * namenode restart; a generation is never handed out twice because replay raises each block's
     * generation to the highest its allocations were recorded with.
     */
    public static final int RECORD = 14;

    private static final Logger LOG = LoggerFactory.getLogger(DatanodeRegistry.class);
    private static final DatanodeInfo[] NONE = new DatanodeInfo[0];

    private final int blockSize;
    private final Clock clock;
    private final long timeoutMs;
    private long claimGraceMs = 2_000;
    private long expiryMs = 3_600_000;
    private final Map<Integer, DatanodeInfo> byId = new ConcurrentHashMap<>();
    private final Map<StorageId, DatanodeInfo> byStorageId = new ConcurrentHashMap<>();
    private final DatanodeInfo[][] byClass = new DatanodeInfo[MAX_STORAGE_CLASSES][];
    private volatile int highestClass = -1;
    private final LongAdder unreachableReports = new LongAdder();
    private int nextId = 1;
    private volatile EditLog log = EditLog.NONE;
    /** Until when datanodes known from the journal are expected to register again (see {@link #startServing}). */
    private volatile long registrationGraceUntil = Long.MIN_VALUE;

    /** Outcome of a registration. */
    public record Registration(DatanodeInfo datanode, boolean resetGenerations) {
    }

    public DatanodeRegistry(int blockSize, Clock clock, long timeoutMs) {
        this.blockSize = blockSize;
        this.clock = clock;
        this.timeoutMs = timeoutMs;
        Arrays.fill(byClass, NONE);
    }

    /**
     * How recently a live datanode must have been heard for its address to be refused to another
     * storage (twice the heartbeat interval): a datanode that restarted without its memory takes
     * longer than that to come back, while its old entry is still alive until the timeout.
     */
    public void addressClaimGrace(long ms) {
        this.claimGraceMs = ms;
    }

    /**
     * The namenode starts serving a namespace rebuilt from its journal (a restart, or a group member
     * taking the lead): for one datanode timeout, datanodes the journal names but that have not
     * registered again are expected to, so an allocation that finds no room answers RETRY rather
     * than NO_SPACE ({@link #awaitingRegistrations}).
     */
    public void startServing() {
        registrationGraceUntil = clock.millis() + timeoutMs;
    }

    /**
     * How many datanodes the journal names have not registered since the namenode started serving,
     * while it still expects them to (within a datanode timeout of {@link #startServing}); else 0.
     */
    public int awaitingRegistrations() {
        if (clock.millis() >= registrationGraceUntil) {
            return 0;
        }
        int n = 0;
        for (DatanodeInfo dn : byId.values()) {
            if (dn.awaitingRegistration()) {
                n++;
            }
        }
        return n;
    }

    /** Records every change of a datanode's durable state to {@code editLog} ({@link #RECORD}); set before serving. */
    public void recordTo(EditLog editLog) {
        this.log = editLog;
    }

    /** Caller holds this monitor: the journal record of {@code dn} as it is now. */
    private void record(DatanodeInfo dn) {
        record(dn, log);
    }

    /** Appends the {@link #RECORD} of {@code dn} as it is now to {@code l} (a checkpoint's content). */
    public void record(DatanodeInfo dn, EditLog l) {
        if (!l.enabled()) {
            return;
        }
        ByteBuf b = Unpooled.buffer(52);
        b.writeInt(dn.id());
        b.writeLong(dn.storageId().high());
        b.writeLong(dn.storageId().low());
        b.writeInt(dn.storageClass());
        b.writeLong(dn.regionSize());
        RegionSet regions = dn.regions();
        b.writeInt(regions.first());
        b.writeInt(regions.stride());
        b.writeInt(regions.count());
        b.writeInt(dn.incarnation());
        Wire.writeString(b, dn.host());
        b.writeShort(dn.port());
        l.append(RECORD, b);
    }

    /**
     * Replays one {@link #RECORD} at start-up (before anything is served): the datanode as it was,
     * {@linkplain DatanodeInfo#awaitingRegistration awaiting its registration}.
     */
    public synchronized void replay(ByteBuf b) {
        int id = b.readInt();
        StorageId sid = new StorageId(b.readLong(), b.readLong());
        int cls = b.readInt();
        long regionSize = b.readLong();
        RegionSet regions = new RegionSet(b.readInt(), b.readInt(), b.readInt());
        int incarnation = b.readInt();
        String host = Wire.readString(b);
        int port = b.readUnsignedShort();
        if (id <= 0 || cls < 0 || cls >= MAX_STORAGE_CLASSES || regionSize <= 0 || regionSize % blockSize != 0) {
            throw new IllegalStateException("datanode record of id " + id + " with storage class " + cls
                    + " and regions of " + regionSize + " bytes (block size " + blockSize + ")");
        }
        DatanodeInfo dn = byId.get(id);
        if (dn != null && !dn.storageId().equals(sid)) {
            throw new IllegalStateException("datanode id " + id + " is recorded for storage " + dn.storageId()
                    + " and for storage " + sid);
        }
        if (dn == null) {
            dn = new DatanodeInfo(id, sid, host, port, clock.millis());
            byId.put(id, dn);
            byStorageId.put(sid, dn);
        } else {
            removeFromClass(dn, dn.storageClass());
            dn.address(host, port);
        }
        dn.restore(cls, regionSize, regions, blockSize, incarnation, clock.millis());
        addToClass(dn, cls);
        nextId = Math.max(nextId, id + 1);
    }

    /**
     * Ends a replay: the free lists of every datanode, from the blocks the files still hold
     * ({@code held}: every block of every file, blocks of older incarnations included, which are ignored).
     */
    public synchronized void rebuildFreeLists(Iterable<Block> held) {
        Map<DatanodeInfo, BitSet> byDatanode = new HashMap<>();
        for (Block b : held) {
            DatanodeInfo dn = b.datanode();
            if (b.replicated() || b.foreign() || !dn.holds(b)) {
                continue;
            }
            int no = dn.blockNumber(b);
            if (no >= 0) {
                byDatanode.computeIfAbsent(dn, d -> new BitSet()).set(no);
            }
        }
        for (DatanodeInfo dn : byId.values()) {
            dn.rebuildFreeList(byDatanode.getOrDefault(dn, new BitSet()));
        }
    }

    /**
     * Checks a datanode's block report against the blocks the namespace names on it: returns those
     * whose slot holds another generation (their data is gone), by {@link DatanodeInfo#slot}, or
     * null when the report cannot be used (another block size). Called while the datanode is not
     * allocated on.
     */
    @FunctionalInterface
    public interface ReportChecker {
        /** With {@code closedOnly}, only the blocks of closed files (their writes were all answered). */
        Map<Long, DatanodeInfo.Lost> check(DatanodeInfo dn, RegionSet regions, BlockReport report, boolean closedOnly);
    }

    private volatile ReportChecker reportChecker;

    /** The block size this namenode carves regions into. */
    public int blockSize() {
        return blockSize;
    }

    /** Who checks block reports (the namenode's file table); without one reports are ignored. */
    public void reportChecker(ReportChecker checker) {
        this.reportChecker = checker;
    }

    /** Registers (or re-registers) a datanode; INVALID_ARGUMENT when its regions cannot hold whole blocks. */
    public synchronized Registration register(RegisterRequest r) throws TarnException {
        String where = r.host() + ":" + r.port();
        validate(r, where);
        StorageId sid = new StorageId(r.storageIdHigh(), r.storageIdLow());
        long now = clock.millis();
        claimAddress(r.host(), r.port(), sid, now);
        DatanodeInfo dn = byStorageId.get(sid);
        RegionSet regions = new RegionSet(r.firstRegion(), r.regionStride(), r.regionCount());
        if (dn == null) {
            dn = new DatanodeInfo(nextId++, sid, r.host(), r.port(), now);
            dn.reset(r.storageClass(), r.regionSize(), regions, blockSize);
            dn.shortCircuit(r.shortCircuit());
            byStorageId.put(sid, dn);
            byId.put(dn.id(), dn);
            addToClass(dn, r.storageClass());
            record(dn);
            applyLostRegions(dn, r.lostRegions());
            LOG.info("Registered {} storage {}: class {}, {} of {} bytes, {} blocks", dn.describe(), sid,
                    r.storageClass(), regions, r.regionSize(), dn.capacityBlocks());
            return new Registration(dn, true);
        }
        int oldClass = dn.storageClass();
        boolean restarted = dn.awaitingRegistration();
        boolean keeps = r.intact() && dn.sameLayout(r.storageClass(), r.regionSize(), regions);
        // Checked before it is revived. While it was not allocated on (this namenode restarted, or it
        // was dead or stopped), every block the namespace names there is older than the report; a
        // datanode that comes back while alive here (its process restarted within the timeout) may
        // have blocks allocated whose write is still on its way, so only closed files' are checked.
        ReportChecker checker = reportChecker;
        boolean quiet = restarted || dn.liveness() != DatanodeInfo.Liveness.ALIVE;
        Map<Long, DatanodeInfo.Lost> found = keeps && r.report() != null && checker != null
                ? checker.check(dn, regions, r.report(), !quiet) : null;
        // A slot behind the namespace (an older generation) may be a write still on its way when the
        // report was taken (writes go on while a namenode restarts or its group elects a leader): it
        // counts as lost only when the next report, asked for at the next heartbeat, confirms it. A
        // slot ahead of it was written again since: lost at once.
        Map<Long, DatanodeInfo.Lost> earlier = dn.takeSuspects();
        Map<Long, DatanodeInfo.Lost> lost = null;
        Map<Long, DatanodeInfo.Lost> behind = new HashMap<>();
        if (found != null) {
            lost = new HashMap<>();
            for (Map.Entry<Long, DatanodeInfo.Lost> e : found.entrySet()) {
                DatanodeInfo.Lost l = e.getValue();
                DatanodeInfo.Lost before = earlier.get(e.getKey());
                if (l.held() > l.generation() || before != null && before.generation() == l.generation()) {
                    lost.put(e.getKey(), l);
                } else {
                    behind.put(e.getKey(), l);
                }
            }
        }
        dn.address(r.host(), r.port());
        dn.shortCircuit(r.shortCircuit());
        dn.revive(now);
        boolean reset = false;
        if (keeps) {
            if (lost != null) {
                dn.lost(lost);
            }
            dn.suspect(behind);
            applyLostRegions(dn, r.lostRegions());
            LOG.info("{} re-registered with its data intact{}{}{}", dn.describe(),
                    restarted ? " (the first time since this namenode started): its blocks are served again" : "",
                    lost == null ? "" : lost.isEmpty() && behind.isEmpty()
                            ? "; its block report matches every block named there"
                            : lost.isEmpty() ? "" : "; its block report shows " + lost.size()
                            + " block(s) without their data",
                    behind.isEmpty() ? "" : "; " + behind.size() + " block(s) behind in its slots, to be "
                            + "confirmed by another report (asked for at its next heartbeat)");
        } else {
            reset = dn.reset(r.storageClass(), r.regionSize(), regions, blockSize);
            record(dn);
            applyLostRegions(dn, r.lostRegions());
            LOG.warn("{} re-registered without its data (intact={}, {}): blocks it held are lost, {} blocks free",
                    dn.describe(), r.intact(), regions, dn.capacityBlocks());
        }
        if (oldClass != r.storageClass()) {
            removeFromClass(dn, oldClass);
            addToClass(dn, r.storageClass());
        }
        return new Registration(dn, reset);
    }

    /**
     * Refuses a registration of storage {@code sid} at the address of another datanode that is alive
     * and was heard within {@link #addressClaimGrace}: two processes cannot serve one address, so
     * either the claim is false or the other one just died, which its silence shows soon. Past the
     * grace, the other one is marked dead at once: its address now serves another storage.
     */
    private void claimAddress(String host, int port, StorageId sid, long now) throws TarnException {
        for (DatanodeInfo other : byId.values()) {
            if (other.port() != port || !other.host().equals(host) || other.storageId().equals(sid)
                    || !other.alive()) {
                continue;
            }
            long silence = now - other.lastHeartbeat();
            if (silence < claimGraceMs) {
                LOG.warn("Refused the registration of storage {} at {}:{}: that is the address of {}, alive and "
                        + "heard {} ms ago", sid, host, port, other.describe(), silence);
                throw new TarnException(ErrorCode.INVALID_ARGUMENT, host + ":" + port + " is the address of "
                        + other.describe() + " (storage " + other.storageId() + "), alive and heard " + silence
                        + " ms ago: another storage cannot register there while it heartbeats. If it restarted "
                        + "without its memory, the registration succeeds once it has been silent for " + claimGraceMs
                        + " ms (twice tarn.datanode.heartbeat.interval)");
            }
            if (other.markSilent()) {
                LOG.warn("{} silent for {} ms while storage {} registers at its address: marked dead", other.describe(),
                        silence, sid);
            }
        }
    }

    private void validate(RegisterRequest r, String where) throws TarnException {
        if (r.storageClass() >= MAX_STORAGE_CLASSES) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "datanode " + where + " registered storage class "
                    + r.storageClass() + "; classes are 0.." + (MAX_STORAGE_CLASSES - 1));
        }
        if (r.regionSize() % blockSize != 0) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "datanode " + where + " offers regions of "
                    + r.regionSize() + " bytes, which is not a multiple of the block size " + blockSize
                    + " (tarn.blocksize); configure a region size that is a multiple of it");
        }
        long total = r.regionSize() / blockSize * r.regionCount();
        if (total > Integer.MAX_VALUE) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "datanode " + where + " offers " + total
                    + " blocks; at most " + Integer.MAX_VALUE + " per datanode (use a larger tarn.blocksize)");
        }
    }

    private void addToClass(DatanodeInfo dn, int cls) {
        DatanodeInfo[] old = byClass[cls];
        DatanodeInfo[] next = Arrays.copyOf(old, old.length + 1);
        next[old.length] = dn;
        publish(cls, next);
    }

    private void removeFromClass(DatanodeInfo dn, int cls) {
        publish(cls, Arrays.stream(byClass[cls]).filter(d -> d != dn).toArray(DatanodeInfo[]::new));
    }

    private void publish(int cls, DatanodeInfo[] list) {
        byClass[cls] = list;
        int high = -1;
        for (int c = 0; c < MAX_STORAGE_CLASSES; c++) {
            if (byClass[c].length > 0) {
                high = c;
            }
        }
        // The volatile write publishes the array stores above to readers that read highestClass first.
        highestClass = high;
    }

    /** Records a heartbeat; UNKNOWN_DATANODE when the id or storage id is not registered (register again). */
    public void heartbeat(int datanodeId, StorageId sid) throws TarnException {
        heartbeat(datanodeId, sid, List.of());
    }

    /**
     * Records a heartbeat and what changed in the datanode's storage since its registration: the
     * regions it took out of service ({@link DatanodeInfo#outOfService}). UNKNOWN_DATANODE when the
     * id or storage id is not registered (register again).
     */
    public void heartbeat(int datanodeId, StorageId sid, List<LostRegion> lostRegions) throws TarnException {
        DatanodeInfo dn = byId.get(datanodeId);
        if (dn == null || !dn.storageId().equals(sid)) {
            throw new TarnException(ErrorCode.UNKNOWN_DATANODE, "datanode id " + datanodeId + " with storage " + sid
                    + " is not registered with this namenode (it may have restarted); register again");
        }
        if (dn.expired()) {
            throw new TarnException(ErrorCode.UNKNOWN_DATANODE, dn.describe() + " was forgotten after being dead "
                    + "longer than tarn.namenode.datanode.expiry; register again (as a new datanode)");
        }
        DatanodeInfo.Liveness before = dn.heartbeat(clock.millis());
        if (before == null && dn.awaitingRegistration()) {
            throw new TarnException(ErrorCode.UNKNOWN_DATANODE, dn.describe() + " has not registered since this "
                    + "namenode restarted; register again, saying whether its regions kept their data");
        }
        if (before == null) {
            throw new TarnException(ErrorCode.UNKNOWN_DATANODE, dn.describe() + " deregistered (it was shut down); "
                    + "register again");
        }
        if (before != DatanodeInfo.Liveness.ALIVE) {
            LOG.info("{} is alive again", dn.describe());
        }
        if (dn.heartbeatAfterReport()) {
            LOG.info("{} heartbeats again after a client reported it unreachable: allocating on it again",
                    dn.describe());
        }
        applyLostRegions(dn, lostRegions);
    }

    /** Takes the regions a datanode lists as lost out of service here (and back in when no longer listed). */
    private static void applyLostRegions(DatanodeInfo dn, List<LostRegion> lostRegions) {
        if (lostRegions.isEmpty() && dn.regionsOutOfService() == 0) {
            return;
        }
        Map<Integer, String> now = new HashMap<>();
        for (LostRegion r : lostRegions) {
            now.put(r.regionId(), r.reason());
        }
        Map<Integer, Integer> newly = dn.outOfService(now);
        newly.forEach((region, blocks) -> LOG.error("{} took region {} out of service ({}): the {} block(s) "
                + "allocated there are lost (reads fail with DATA_LOST, 'tarn fsck' lists their files), nothing more "
                + "is allocated there until the datanode restarts", dn.describe(), region, now.get(region), blocks));
    }

    /**
     * A client could not reach {@code dn}: new blocks avoid it at once, on this namenode, until
     * it heartbeats again ({@link DatanodeInfo#HEARTBEATS_TO_CLEAR} heartbeats after the report) or
     * registers again, instead of until the liveness timeout.
     *
     * @param by who reported it, for the log
     * @return true when this is a new report (not one standing already)
     */
    public boolean reportUnreachable(DatanodeInfo dn, String by) {
        if (!dn.markUnreachable()) {
            return false;
        }
        unreachableReports.increment();
        LOG.warn("{} reported unreachable by {} (last heartbeat {} ms ago): left out of allocation until it "
                + "heartbeats again", dn.describe(), by, silenceMs(dn));
        return true;
    }

    /** Reports of unreachable datanodes taken since start (a datanode reported again while reported counts once). */
    public long unreachableReports() {
        return unreachableReports.sum();
    }

    /**
     * A clean stop: marks the datanode stopped at once and, unless {@code dataKept}, drops its data.
     * UNKNOWN_DATANODE when the id or storage id is not registered.
     */
    public synchronized void deregister(int datanodeId, StorageId sid, boolean dataKept) throws TarnException {
        DatanodeInfo dn = byId.get(datanodeId);
        if (dn == null || !dn.storageId().equals(sid)) {
            throw new TarnException(ErrorCode.UNKNOWN_DATANODE, "datanode id " + datanodeId + " with storage " + sid
                    + " is not registered with this namenode; nothing to deregister");
        }
        dn.markStopped(clock.millis());
        if (dataKept) {
            LOG.info("{} deregistered: shut down keeping its data; its blocks are unavailable until it registers "
                    + "again", dn.describe());
        } else {
            dn.dropData();
            record(dn);
            LOG.info("{} deregistered: shut down without keeping its data; blocks it held are lost", dn.describe());
        }
    }

    /**
     * Marks datanodes silent for longer than the timeout as dead, and forgets those dead for longer
     * than the expiry; returns how many were marked dead now.
     */
    public int checkLiveness() {
        long now = clock.millis();
        int marked = 0;
        List<DatanodeInfo> expiring = null;
        for (DatanodeInfo dn : byId.values()) {
            long silence = now - dn.lastHeartbeat();
            if (dn.alive() && silence > timeoutMs && dn.markSilent()) {
                marked++;
                LOG.warn("{} silent for {} ms (timeout {} ms): marked dead, left out of allocation", dn.describe(),
                        silence, timeoutMs);
            } else if (!dn.alive() && !dn.expired() && silence > expiryMs) {
                if (expiring == null) {
                    expiring = new ArrayList<>();
                }
                expiring.add(dn);
            }
        }
        if (expiring != null) {
            expire(expiring, now);
        }
        return marked;
    }

    /**
     * Sets {@code tarn.namenode.datanode.expiry}, raised to the time after which dead datanodes'
     * block group members are replaced ({@code replaceAfterMs}) plus the timeout, so that a datanode
     * is forgotten only once its groups moved elsewhere.
     */
    public void expireAfter(long ms, long replaceAfterMs) {
        this.expiryMs = Math.max(ms, replaceAfterMs + timeoutMs);
    }

    /**
     * Forgets datanodes dead past the expiry: not listed any more, their blocks lost for good, and
     * a storage that comes back registers as a new datanode. Each stays as a tombstone under its id,
     * which blocks of files and the journal name; registered again after a namenode restart (from
     * the journal), it is forgotten again one expiry later.
     */
    private synchronized void expire(List<DatanodeInfo> dead, long now) {
        for (DatanodeInfo dn : dead) {
            if (dn.alive() || dn.expired() || byStorageId.get(dn.storageId()) != dn) {
                continue; // registered again meanwhile
            }
            byStorageId.remove(dn.storageId());
            removeFromClass(dn, dn.storageClass());
            dn.expire();
            LOG.info("{} forgotten: dead for {} ms (tarn.namenode.datanode.expiry {} ms); its blocks are lost for "
                    + "good, and if it comes back it registers as a new datanode", dn.describe(),
                    now - dn.lastHeartbeat(), expiryMs);
        }
    }

    /** The namenode's clock now, in ms. */
    long now() {
        return clock.millis();
    }

    /** How long the datanode has been silent, in ms. */
    public long silenceMs(DatanodeInfo dn) {
        return Math.max(0, clock.millis() - dn.lastHeartbeat());
    }

    /** The datanodes of one storage class, in registration order; the caller must not modify the array. */
    DatanodeInfo[] ofClass(int cls) {
        return highestClass < 0 ? NONE : byClass[cls];
    }

    /** Highest storage class with a registered datanode, or -1. */
    int highestClass() {
        return highestClass;
    }

    public DatanodeInfo get(int id) {
        return byId.get(id);
    }

    /** The datanode registered from {@code host}:{@code port}, or null. */
    public DatanodeInfo byAddress(String host, int port) {
        for (DatanodeInfo dn : byId.values()) {
            if (dn.port() == port && dn.host().equals(host) && !dn.expired()) {
                return dn;
            }
        }
        return null;
    }

    /** All datanodes, ordered by id. */
    public List<DatanodeInfo> all() {
        List<DatanodeInfo> out = new ArrayList<>(byId.values());
        out.sort((a, b) -> Integer.compare(a.id(), b.id()));
        return out;
    }

    public int size() {
        return byId.size();
    }

    Collection<DatanodeInfo> values() {
        return byId.values();
    }
}
