package io.tarn.namenode.blocks;

import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * What the namenode knows of one datanode: its address, liveness and its blocks (free list and
 * generations) in the regions this namenode manages there.
 *
 * <p>A datanode serves every namenode and gives each a share of its regions ({@link RegionSet});
 * everything here (liveness, incarnations, blocks) is this namenode's view of its own share only.
 * Blocks are numbered {@code local * blocksPerRegion + index} by the dense local index of their
 * region within the share, and leave as {@link Block}s carrying the datanode's real region id.
 *
 * <p>Block state is guarded by this object's monitor, so allocation on different datanodes never
 * contends; the critical sections are O(1). Address, liveness and counters are volatile (liveness
 * changes by compare-and-set) so status reports and the read path take no lock.
 *
 * <p>Liveness transitions:
 * <ul>
 *   <li>{@link Liveness#ALIVE} &rarr; {@link Liveness#SILENT}: no heartbeat within the timeout;</li>
 *   <li>{@link Liveness#ALIVE} or {@link Liveness#SILENT} &rarr; {@link Liveness#STOPPED}: the datanode
 *       deregistered (clean shutdown);</li>
 *   <li>{@link Liveness#SILENT} &rarr; {@link Liveness#ALIVE}: a heartbeat or a registration;</li>
 *   <li>{@link Liveness#STOPPED} &rarr; {@link Liveness#ALIVE}: only a registration (a heartbeat is
 *       refused, so the namenode learns whether the regions survived).</li>
 * </ul>
 */
public final class DatanodeInfo {
    /** Whether the namenode allocates on a datanode, and why not. */
    public enum Liveness {
        /** Heartbeating: blocks are allocated on it. */
        ALIVE,
        /** Dead: silent for longer than the datanode timeout. */
        SILENT,
        /** Dead: it said it was shutting down (DEREGISTER_DATANODE). */
        STOPPED
    }

    private final int id;
    private final StorageId storageId;

    private volatile String host;
    private volatile int port;
    private final AtomicReference<Liveness> liveness = new AtomicReference<>(Liveness.ALIVE);
    /** Forgotten after being dead past the expiry: kept only for the blocks the namespace still names. */
    private volatile boolean expired;
    private volatile long lastHeartbeat;
    /** Bumped whenever the datanode comes back without its data; blocks of older incarnations are lost. */
    private volatile int incarnation;
    private volatile int freeCount;
    private volatile int storageClass;
    private volatile long capacity;
    /**
     * Heartbeats still to come before a datanode that a client reported unreachable is allocated on
     * again; 0 when none was reported. Two, because the first may have left it before the report.
     */
    private final AtomicInteger unreachable = new AtomicInteger();
    /** Heartbeats that clear an unreachable report. */
    static final int HEARTBEATS_TO_CLEAR = 2;
    /** Whether it offers short-circuit access to clients on its host, as its last registration said. */
    private volatile boolean shortCircuit;
    /**
     * True from a journal replay until the datanode registers again: the namenode restarted and
     * knows its blocks, but not yet whether the datanode kept them.
     */
    private volatile boolean awaitingRegistration;
    /**
     * Blocks of the current incarnation whose data its block report showed gone (their slot holds
     * another generation), by slot ({@link #slot}) with the generation that is lost; immutable,
     * replaced whole. Empty almost always.
     */
    private volatile Map<Long, Lost> lost = Map.of();

    /**
     * A block the datanode's report showed without its data: the generation named, the one held
     * ({@link #REGION_OUT_OF_SERVICE} when the datanode took the block's whole region out of service).
     */
    public record Lost(int generation, int held) {
        /** {@link #held} of a block whose region the datanode took out of service. */
        public static final int REGION_OUT_OF_SERVICE = -1;
    }

    // Layout and block state; guarded by this.
    private long regionSize;
    private RegionSet regions;
    private int blocksPerRegion;
    private int[] generations;
    private int[] freeStack;
    private BitSet allocated;
    /** Free blocks per region (local index), to find whole free regions for block groups. */
    private int[] regionFree;
    /** Regions (local index) given to block groups: never on the free list while reserved. */
    private final BitSet reserved = new BitSet();
    /**
     * Regions (local index) the datanode took out of service (their memory is gone), with why: never
     * on the free list, and every block allocated there is lost. Read without the lock by
     * {@link #regionFailure}, so replaced whole.
     */
    private volatile Map<Integer, String> outOfService = Map.of();

    DatanodeInfo(int id, StorageId storageId, String host, int port, long now) {
        this.id = id;
        this.storageId = storageId;
        this.host = host;
        this.port = port;
        this.lastHeartbeat = now;
    }

    public int id() {
        return id;
    }

    public StorageId storageId() {
        return storageId;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** host:port for messages. */
    public String address() {
        return host + ":" + port;
    }

    /** "datanode 3 (host:port)" for error messages. */
    public String describe() {
        return "datanode " + id + " (" + address() + ")";
    }

    public int storageClass() {
        return storageClass;
    }

    /** Whether it offers short-circuit access to clients on its host (for status only). */
    public boolean shortCircuit() {
        return shortCircuit;
    }

    void shortCircuit(boolean offered) {
        shortCircuit = offered;
    }

    /** True when blocks may be allocated on it and its blocks are served. */
    /** True once the registry forgot it ({@code tarn.namenode.datanode.expiry}). */
    public boolean expired() {
        return expired;
    }

    /** Caller: the registry, under its monitor. Its data is dropped: its blocks are lost for good. */
    synchronized void expire() {
        expired = true;
        startIncarnation(generations.length);
    }

    public boolean alive() {
        return liveness.get() == Liveness.ALIVE;
    }

    /** True when new blocks may go there: alive, and not reported unreachable since its last heartbeats. */
    public boolean allocatable() {
        return alive() && unreachable.get() == 0;
    }

    /** True while a client's report that it cannot reach the datanode stands. */
    public boolean reportedUnreachable() {
        return unreachable.get() != 0;
    }

    /** A client could not reach it: no allocation until {@link #HEARTBEATS_TO_CLEAR} heartbeats; true if new. */
    boolean markUnreachable() {
        return unreachable.getAndSet(HEARTBEATS_TO_CLEAR) == 0;
    }

    /** Counts a heartbeat against an unreachable report; true when it clears the report now. */
    boolean heartbeatAfterReport() {
        while (true) {
            int left = unreachable.get();
            if (left == 0) {
                return false;
            }
            if (unreachable.compareAndSet(left, left - 1)) {
                return left == 1;
            }
        }
    }

    public Liveness liveness() {
        return liveness.get();
    }

    public long lastHeartbeat() {
        return lastHeartbeat;
    }

    public int incarnation() {
        return incarnation;
    }

    public long capacityBlocks() {
        return capacity;
    }

    public long freeBlocks() {
        return freeCount;
    }

    /** The datanode's regions this namenode allocates from. */
    public synchronized RegionSet regions() {
        return regions;
    }

    /**
     * True when the block was allocated in the current incarnation (its data still exists) and the
     * datanode's last block report did not show it gone.
     */
    public boolean holds(Block block) {
        return block.datanode() == this && block.incarnation() == incarnation && lostData(block) == null;
    }

    /** What the block report said of a block whose data it showed gone, or null. */
    public Lost lostData(Block block) {
        Map<Long, Lost> now = lost;
        if (now.isEmpty() || block.incarnation() != incarnation) {
            return null;
        }
        Lost l = now.get(slot(block.regionId(), block.regionBlock()));
        return l != null && l.generation() == block.generation() ? l : null;
    }

    /** Blocks the last block report showed gone. */
    public int lostBlocks() {
        return lost.size();
    }

    /** Replaces the blocks a block report showed gone (taken before this incarnation's allocations). */
    public void lost(Map<Long, Lost> found) {
        lost = Map.copyOf(found);
    }

    /**
     * Blocks a block report showed behind (an older generation in their slot) that a second report
     * must confirm before they count as lost: a write may have been on its way when the first was
     * taken. Guarded by this.
     */
    private Map<Long, Lost> suspects = Map.of();
    /** True until a heartbeat asked the datanode for the second report. Guarded by this. */
    private boolean askAgain;

    /** Records the blocks a report showed behind, to be confirmed by the next one (none: nothing to ask). */
    synchronized void suspect(Map<Long, Lost> behind) {
        suspects = Map.copyOf(behind);
        askAgain = !behind.isEmpty();
    }

    /** The blocks the last report showed behind (for the next report to confirm), then forgotten. */
    synchronized Map<Long, Lost> takeSuspects() {
        Map<Long, Lost> out = suspects;
        suspects = Map.of();
        askAgain = false;
        return out;
    }

    /** True once, after a report showed blocks behind: the datanode should send another report. */
    public synchronized boolean askForAnotherReport() {
        boolean ask = askAgain;
        askAgain = false;
        return ask;
    }

    /** A freed block's slot is no longer lost (a later allocation there takes a higher generation anyway). */
    private void forgetLost(int regionId, int regionBlock, int generation) {
        Map<Long, Lost> now = lost;
        Lost l = now.isEmpty() ? null : now.get(slot(regionId, regionBlock));
        if (l != null && l.generation() == generation) {
            Map<Long, Lost> rest = new HashMap<>(now);
            rest.remove(slot(regionId, regionBlock));
            lost = Map.copyOf(rest);
        }
    }

    /**
     * Makes {@code regions} (region id to why) exactly the regions of this datanode out of service,
     * as its registration or heartbeat lists them: a region newly listed leaves the free list and
     * every block allocated in it becomes lost; a region no longer listed (the datanode restarted
     * and made it whole again) serves new blocks again. Regions outside the layout are ignored.
     *
     * @return the regions newly taken out of service, with the blocks lost in each (for the log)
     */
    public synchronized Map<Integer, Integer> outOfService(Map<Integer, String> regionsNow) {
        if (regions == null || freeStack == null || regionsNow.isEmpty() && outOfService.isEmpty()) {
            return Map.of();
        }
        Map<Integer, String> next = new HashMap<>();
        Map<Integer, Integer> newly = new HashMap<>();
        Map<Long, Lost> lostNow = new HashMap<>(lost);
        for (Map.Entry<Integer, String> e : regionsNow.entrySet()) {
            int local = regions.local(e.getKey());
            if (local < 0) {
                continue;
            }
            next.put(local, e.getValue());
            int first = local * blocksPerRegion;
            int blocks = 0;
            for (int b = 0; b < blocksPerRegion; b++) {
                if (allocated.get(first + b)) {
                    blocks++;
                    lostNow.put(slot(e.getKey(), b), new Lost(generations[first + b], Lost.REGION_OUT_OF_SERVICE));
                }
            }
            if (!outOfService.containsKey(local)) {
                newly.put(e.getKey(), blocks);
                if (!reserved.get(local)) {
                    takeOffFreeList(local);
                }
            }
        }
        for (int local : outOfService.keySet()) {
            if (!next.containsKey(local) && !reserved.get(local)) {
                int first = local * blocksPerRegion;
                for (int b = blocksPerRegion - 1; b >= 0; b--) {
                    if (!allocated.get(first + b)) {
                        freeStack[freeCount++] = first + b;
                        regionFree[local]++;
                    }
                }
            }
        }
        outOfService = Map.copyOf(next);
        lost = Map.copyOf(lostNow);
        return newly;
    }

    /** Why the datanode took region {@code regionId} out of service, or null while it serves. */
    public String regionFailure(int regionId) {
        Map<Integer, String> now = outOfService;
        if (now.isEmpty()) {
            return null;
        }
        RegionSet set = regions;
        int local = set == null ? -1 : set.local(regionId);
        return local < 0 ? null : now.get(local);
    }

    /** How many of its regions the datanode took out of service. */
    public int regionsOutOfService() {
        return outOfService.size();
    }

    /** A block's slot as {@link #lost} keys it. */
    public static long slot(int regionId, int regionBlock) {
        return (long) regionId << 32 | (regionBlock & 0xFFFF_FFFFL);
    }

    void address(String newHost, int newPort) {
        this.host = newHost;
        this.port = newPort;
    }

    /**
     * Records a heartbeat, unless the datanode has stopped: only a registration undoes that.
     *
     * @return the liveness before the heartbeat, or null when refused because it stopped
     */
    Liveness heartbeat(long now) {
        while (true) {
            Liveness before = liveness.get();
            if (before == Liveness.STOPPED) {
                return null;
            }
            lastHeartbeat = now;
            if (before == Liveness.ALIVE || liveness.compareAndSet(before, Liveness.ALIVE)) {
                return before;
            }
        }
    }

    /**
     * True from a namenode restart until the datanode registers again (it is then
     * {@link Liveness#STOPPED}): its blocks are known, but not yet whether it kept them.
     */
    public boolean awaitingRegistration() {
        return awaitingRegistration;
    }

    /**
     * Restored from the namenode's journal: the layout and incarnation it had when the namenode
     * stopped, stopped until it registers again. Generations are kept when the layout is unchanged,
     * else start from zero; free lists are built by {@link #rebuildFreeList} once every block is known.
     */
    synchronized void restore(int cls, long rSize, RegionSet rSet, int blockSize, int restoredIncarnation, long now) {
        boolean keepGenerations = sameLayout(cls, rSize, rSet);
        storageClass = cls;
        regionSize = rSize;
        regions = rSet;
        blocksPerRegion = (int) (rSize / blockSize);
        if (!keepGenerations) {
            generations = new int[Math.multiplyExact(rSet.count(), blocksPerRegion)];
        }
        incarnation = restoredIncarnation;
        capacity = generations.length;
        awaitingRegistration = true;
        markStopped(now);
    }

    /**
     * During a journal replay: block {@code regionBlock} of region {@code regionId} was allocated
     * with {@code generation}, so its generation is at least that. Ignored outside the layout.
     */
    public synchronized void raiseGeneration(int regionId, int regionBlock, int generation) {
        int local = regions == null ? -1 : regions.local(regionId);
        if (local < 0 || regionBlock < 0 || regionBlock >= blocksPerRegion) {
            return;
        }
        int no = local * blocksPerRegion + regionBlock;
        generations[no] = Math.max(generations[no], generation);
    }

    /**
     * During a replay: a block group gave region {@code regionId} up; its blocks' generations are at
     * least the group's slots' (as {@link #releaseRegion} raises them). Ignored outside the layout.
     */
    synchronized void raiseRegionGenerations(int regionId, int[] slotGenerations) {
        int local = regions == null ? -1 : regions.local(regionId);
        if (local < 0) {
            return;
        }
        int first = local * blocksPerRegion;
        for (int b = 0; b < Math.min(blocksPerRegion, slotGenerations.length); b++) {
            generations[first + b] = Math.max(generations[first + b], slotGenerations[b]);
        }
    }

    /** During a replay: region {@code regionId} is a block group's, off the free list. Ignored outside the layout. */
    synchronized void reserveAt(int regionId) {
        int local = regions == null ? -1 : regions.local(regionId);
        if (local >= 0) {
            reserved.set(local);
        }
    }

    /** A copy of every block's generation, by block number (for a checkpoint). */
    public synchronized int[] generationsCopy() {
        return generations == null ? new int[0] : generations.clone();
    }

    /**
     * During a replay of a checkpoint: the generations of blocks {@code first ..} are at least
     * {@code values}. Ignored beyond the layout.
     */
    public synchronized void raiseGenerations(int first, int[] values) {
        int n = generations == null ? 0 : Math.min(values.length, generations.length - first);
        for (int i = 0; i < n; i++) {
            generations[first + i] = Math.max(generations[first + i], values[i]);
        }
    }

    /**
     * At the end of a journal replay: every block of the current incarnation that {@code held}
     * names is allocated, every other one free (blocks are handed out from region 0 upwards).
     */
    synchronized void rebuildFreeList(BitSet held) {
        int total = generations.length;
        freeStack = new int[total];
        regionFree = new int[regions.count()];
        allocated = new BitSet(total);
        int n = 0;
        for (int i = total - 1; i >= 0; i--) {
            if (held.get(i)) {
                allocated.set(i);
            } else if (!reserved.get(i / blocksPerRegion) && !outOfService.containsKey(i / blocksPerRegion)) {
                freeStack[n++] = i;
                regionFree[i / blocksPerRegion]++;
            }
        }
        freeCount = n;
        capacity = total;
    }

    /** The block number ({@code local region * blocks per region + index}) of a block here, or -1. */
    synchronized int blockNumber(Block b) {
        int local = regions == null ? -1 : regions.local(b.regionId());
        if (local < 0 || b.regionBlock() < 0 || b.regionBlock() >= blocksPerRegion) {
            return -1;
        }
        return local * blocksPerRegion + b.regionBlock();
    }

    /** A registration: alive (and reachable) whatever it was before. */
    void revive(long now) {
        awaitingRegistration = false;
        lastHeartbeat = now;
        unreachable.set(0);
        liveness.set(Liveness.ALIVE);
    }

    /** ALIVE &rarr; SILENT; false when it was not alive (a concurrent stop is not overwritten). */
    boolean markSilent() {
        return liveness.compareAndSet(Liveness.ALIVE, Liveness.SILENT);
    }

    /** The datanode said goodbye at {@code now}: dead until it registers again. */
    void markStopped(long now) {
        lastHeartbeat = now;
        liveness.set(Liveness.STOPPED);
    }

    /** True when the layout equals the given one (a returning datanode with the same regions). */
    synchronized boolean sameLayout(int cls, long rSize, RegionSet rSet) {
        return generations != null && storageClass == cls && regionSize == rSize && rSet.equals(regions);
    }

    /**
     * Starts a new incarnation with every block free. Generations survive when the layout is
     * unchanged, so new allocations stay above anything the datanode may remember.
     *
     * @return true when generations restarted from zero (the datanode must forget its own for these
     *         regions)
     */
    synchronized boolean reset(int cls, long rSize, RegionSet rSet, int blockSize) {
        boolean keepGenerations = sameLayout(cls, rSize, rSet);
        storageClass = cls;
        regionSize = rSize;
        regions = rSet;
        blocksPerRegion = (int) (rSize / blockSize);
        int total = Math.multiplyExact(rSet.count(), blocksPerRegion);
        if (!keepGenerations) {
            generations = new int[total];
            reserved.clear(); // another layout: the regions its groups had are not the same places
        }
        startIncarnation(total);
        return !keepGenerations;
    }

    /**
     * Its data is gone but its layout stays (a clean stop that did not keep the regions): a new
     * incarnation with every block free and the generations kept, exactly as a re-registration with
     * the same layout but without its data.
     */
    synchronized void dropData() {
        startIncarnation(generations.length);
    }

    /**
     * Caller holds the monitor. Blocks of the previous incarnations become lost. Regions reserved
     * for block groups stay reserved (their groups outlive the incarnation) and off the free list.
     */
    private void startIncarnation(int total) {
        lost = Map.of();
        outOfService = Map.of();
        freeStack = new int[total];
        regionFree = new int[regions.count()];
        int n = 0;
        // Pushed in reverse so blocks are handed out from region 0, block 0 upwards.
        for (int i = total - 1; i >= 0; i--) {
            int local = i / blocksPerRegion;
            if (!reserved.get(local)) {
                freeStack[n++] = i;
                regionFree[local]++;
            }
        }
        freeCount = n;
        capacity = total;
        allocated = new BitSet(total);
        incarnation++;
    }

    /**
     * A whole free region given to a block group: its id, its blocks' generations (the group's slots
     * start above them), and the datanode's incarnation.
     */
    public record RegionReservation(int regionId, int[] generations, int incarnation) {
    }

    /** True when a whole region is free here, so a block group could take it. */
    public synchronized boolean hasFreeRegion() {
        return firstFreeRegion() >= 0;
    }

    /** Caller holds the monitor: the local index of a wholly free, unreserved region, or -1. */
    private int firstFreeRegion() {
        if (regionFree == null) {
            return -1;
        }
        // From the top: blocks are handed out from region 0 upwards, so free regions gather there.
        for (int local = regionFree.length - 1; local >= 0; local--) {
            if (regionFree[local] == blocksPerRegion && !reserved.get(local)) {
                return local;
            }
        }
        return -1;
    }

    /**
     * Takes a wholly free region off the free list for a block group, or returns null when none is.
     * O(free blocks) under this monitor; groups are created far more rarely than blocks.
     */
    synchronized RegionReservation reserveRegion() {
        int local = firstFreeRegion();
        if (local < 0) {
            return null;
        }
        int first = local * blocksPerRegion;
        takeOffFreeList(local);
        reserved.set(local);
        return new RegionReservation(regions.id(local), Arrays.copyOfRange(generations, first,
                first + blocksPerRegion), incarnation);
    }

    /**
     * Gives a group's region back to the free list, its generations raised to at least the group's
     * last ones (the datanode's generation table saw those), so that no old reference opens a new block.
     */
    synchronized void releaseRegion(int regionId, int[] slotGenerations) {
        int local = regions.local(regionId);
        if (local < 0 || !reserved.get(local)) {
            return;
        }
        reserved.clear(local);
        int first = local * blocksPerRegion;
        boolean usable = !outOfService.containsKey(local);
        for (int b = blocksPerRegion - 1; b >= 0; b--) {
            int no = first + b;
            if (b < slotGenerations.length) {
                generations[no] = Math.max(generations[no], slotGenerations[b]);
            }
            allocated.clear(no);
            if (usable) {
                freeStack[freeCount++] = no;
            }
        }
        regionFree[local] = usable ? blocksPerRegion : 0;
    }

    /** Bytes per region, as it registered. */
    synchronized long regionSize() {
        return regionSize;
    }

    /** Blocks in each of this datanode's regions, as this namenode carves them. */
    public synchronized int blocksPerRegion() {
        return blocksPerRegion;
    }

    /** Takes a free block and bumps its generation, or returns null when none is free. */
    synchronized Block take() {
        int n = freeCount;
        if (n == 0) {
            return null;
        }
        int no = freeStack[n - 1];
        freeCount = n - 1;
        allocated.set(no);
        regionFree[no / blocksPerRegion]--;
        int generation = ++generations[no];
        return new Block(this, incarnation, regions.id(no / blocksPerRegion), no % blocksPerRegion, generation);
    }

    /**
     * Returns a block to the free list. A block of an older incarnation is ignored: its region was
     * already freed when the datanode came back empty, and freeing it again would hand the same
     * place out twice.
     *
     * @return true when the block went back to the free list
     */
    synchronized boolean release(Block block) {
        if (block.incarnation() != incarnation) {
            return false;
        }
        int local = regions.local(block.regionId());
        if (local < 0) {
            throw new IllegalStateException("block in region " + block.regionId() + " of " + describe()
                    + " freed, but this namenode manages " + regions);
        }
        int no = local * blocksPerRegion + block.regionBlock();
        if (!allocated.get(no)) {
            throw new IllegalStateException("block " + no + " of " + describe() + " freed twice");
        }
        allocated.clear(no);
        forgetLost(block.regionId(), block.regionBlock(), block.generation());
        pushFree(local, no);
        return true;
    }

    /**
     * Returns a block that another namenode gave back (FREE_BLOCKS, for a file that moved there): like
     * {@link #release}, but a block that is not allocated, or allocated again since (another
     * generation), or of an older incarnation is ignored instead of being an error, since such a
     * request may repeat or cross a restart.
     *
     * @return true when the block went back to the free list
     */
    public synchronized boolean releaseReturned(int blockIncarnation, int regionId, int regionBlock, int generation) {
        if (blockIncarnation != incarnation || regionBlock < 0 || regionBlock >= blocksPerRegion) {
            return false;
        }
        int local = regions.local(regionId);
        if (local < 0) {
            return false;
        }
        int no = local * blocksPerRegion + regionBlock;
        if (!allocated.get(no) || generations[no] != generation) {
            return false;
        }
        allocated.clear(no);
        forgetLost(regionId, regionBlock, generation);
        pushFree(local, no);
        return true;
    }

    /** Caller holds the monitor: every free block of region {@code local} leaves the free list (O(free blocks)). */
    private void takeOffFreeList(int local) {
        int kept = 0;
        for (int i = 0; i < freeCount; i++) {
            int no = freeStack[i];
            if (no / blocksPerRegion != local) {
                freeStack[kept++] = no;
            }
        }
        freeCount = kept;
        regionFree[local] = 0;
    }

    /** Caller holds the monitor: a freed block back on the free list, unless its region is out of service. */
    private void pushFree(int local, int no) {
        if (outOfService.containsKey(local)) {
            return;
        }
        freeStack[freeCount] = no;
        freeCount = freeCount + 1;
        regionFree[local]++;
    }
}
