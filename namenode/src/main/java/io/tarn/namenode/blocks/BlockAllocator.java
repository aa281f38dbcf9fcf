package io.tarn.namenode.blocks;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ReplicationException;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.Replication;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BiConsumer;

/**
 * Chooses a datanode for each new block and returns freed blocks.
 *
 * <p>Policy: the preferred storage class first, then the higher classes, then the lower ones (spill
 * when a class is full). Within a class, a live datanode on the client's host comes first (location
 * affinity), then the live datanodes in round-robin order. Dead datanodes, and those a client
 * reported unreachable until they heartbeat again ({@link DatanodeInfo#allocatable}), are skipped. Lock-free
 * except for the chosen datanode's own O(1) free-list monitor; when no live datanode of any class
 * has a free block, allocation fails at once with NO_SPACE.
 *
 * <p>Only the regions each datanode registered with this namenode ({@link RegionSet}, its share
 * when several namenodes divide the datanode) are ever handed out, so namenodes never coordinate
 * allocation.
 */
public final class BlockAllocator {
    private static final Logger LOG = LoggerFactory.getLogger(BlockAllocator.class);

    private final DatanodeRegistry registry;
    private final BlockGroups groups;
    private final AtomicIntegerArray roundRobin = new AtomicIntegerArray(DatanodeRegistry.MAX_STORAGE_CLASSES);
    /** Gives foreign blocks back to their home namenode: (home partition, blocks). */
    private volatile BiConsumer<Integer, List<Block>> returnHome = (home, blocks) ->
            LOG.warn("{} block(s) of namenode {} freed, but nothing can give them back to it", blocks.size(), home);

    /** An allocator whose block groups get ids of partition 0 with a random epoch. */
    public BlockAllocator(DatanodeRegistry registry) {
        this(registry, new BlockGroups(registry, 0, ThreadLocalRandom.current().nextInt()));
    }

    public BlockAllocator(DatanodeRegistry registry, BlockGroups groups) {
        this.registry = registry;
        this.groups = groups;
    }


    /** The datanodes it allocates on. */
    public DatanodeRegistry datanodes() {
        return registry;
    }

    /** The replicated block groups this allocator places blocks of replication 3 in. */
    public BlockGroups groups() {
        return groups;
    }

    /**
     * Places a new block of a file of {@code replication}: the one place where a file's replication
     * decides placement. Replication 1: one block on one datanode ({@link #allocate(int, String)}).
     * Replication 3 needs three allocatable datanodes (NOT_ENOUGH_DATANODES otherwise), and then a
     * slot of a block group on three of them ({@link BlockGroups}; NO_SPACE when no group has a free
     * slot and none can be created). Groups ignore storage classes and client hosts for now.
     */
    public Block allocate(int preferredClass, int replication, String clientHost) throws TarnException {
        if (replication == Replication.ONE) {
            return allocate(preferredClass, clientHost);
        }
        checkPlacement(replication, "a new block");
        if (replication == Replication.THREE) {
            return groups.allocate();
        }
        throw new ReplicationException(ErrorCode.INVALID_REPLICATION, "cannot allocate a block of replication "
                + replication + ": Tarn keeps 1 copy of a block or a group of 3");
    }

    /**
     * NOT_ENOUGH_DATANODES when fewer datanodes can take blocks (alive, not reported unreachable)
     * than {@code replication} needs; {@code what} names what was being placed.
     */
    public void checkPlacement(int replication, String what) throws TarnException {
        if (replication <= Replication.ONE) {
            return;
        }
        int allocatable = 0;
        int unreachable = 0;
        for (DatanodeInfo dn : registry.values()) {
            if (dn.allocatable()) {
                allocatable++;
            } else if (dn.alive()) {
                unreachable++;
            }
        }
        if (allocatable < replication) {
            refuseWhileAwaiting("cannot place " + what);
            throw new ReplicationException(ErrorCode.NOT_ENOUGH_DATANODES, "cannot place " + what + ": replication "
                    + replication + " needs " + replication + " live datanodes; " + allocatable
                    + (allocatable == 1 ? " is" : " are") + " alive"
                    + (unreachable == 0 ? "" : " (and " + unreachable + " reported unreachable by clients)")
                    + "; start more datanodes, or use replication 1");
        }
    }

    /**
     * Allocates one block with a fresh generation.
     *
     * @param preferredClass storage class to try first
     * @param clientHost     host of the writing client ("" for none) for location affinity
     */
    public Block allocate(int preferredClass, String clientHost) throws TarnException {
        int highest = registry.highestClass();
        int first = Math.min(Math.max(preferredClass, 0), DatanodeRegistry.MAX_STORAGE_CLASSES - 1);
        for (int step = 0; step <= highest; step++) {
            int cls = classAt(first, step, highest);
            Block b = allocateIn(cls, clientHost);
            if (b != null) {
                return b;
            }
        }
        refuseWhileAwaiting("no free block on any live datanode");
        throw new TarnException(ErrorCode.NO_SPACE, noSpaceMessage(preferredClass));
    }

    /** The step-th class to try: first, first+1..highest, then first-1 down to 0. */
    private static int classAt(int first, int step, int highest) {
        int up = first + step;
        if (up <= highest) {
            return up;
        }
        return first - (up - highest);
    }

    private Block allocateIn(int cls, String clientHost) {
        if (cls < 0) {
            return null;
        }
        DatanodeInfo[] nodes = registry.ofClass(cls);
        int n = nodes.length;
        if (n == 0) {
            return null;
        }
        if (clientHost != null && !clientHost.isEmpty()) {
            for (DatanodeInfo dn : nodes) {
                if (dn.allocatable() && dn.host().equals(clientHost)) {
                    Block b = dn.take();
                    if (b != null) {
                        return b;
                    }
                }
            }
        }
        int start = Math.floorMod(roundRobin.getAndIncrement(cls), n);
        for (int i = 0; i < n; i++) {
            DatanodeInfo dn = nodes[(start + i) % n];
            if (dn.allocatable()) {
                Block b = dn.take();
                if (b != null) {
                    return b;
                }
            }
        }
        return null;
    }

    /**
     * RETRY instead of a lasting refusal while datanodes the journal names have not registered
     * since this namenode started serving (they do within a heartbeat or two).
     */
    private void refuseWhileAwaiting(String what) throws TarnException {
        int awaiting = registry.awaitingRegistrations();
        if (awaiting > 0) {
            throw new TarnException(ErrorCode.RETRY, what + " yet: " + awaiting + " datanode(s) known to this "
                    + "namenode have not registered since it started serving (a restart, or a new leader of its "
                    + "group); try again in a moment");
        }
    }

    private String noSpaceMessage(int preferredClass) {
        int total = 0;
        int alive = 0;
        for (DatanodeInfo dn : registry.values()) {
            total++;
            if (dn.alive()) {
                alive++;
            }
        }
        if (total == 0) {
            return "no datanode has registered with the namenode yet; start a datanode";
        }
        return "no free block on any live datanode (storage class " + preferredClass + " preferred, all classes tried; "
                + alive + " of " + total + " datanodes alive); delete files or add datanodes";
    }

    /**
     * Where freed foreign blocks (see {@link Block#foreign()}) go: to the namenode that allocated them,
     * which alone may hand them out again. Set once by the namenode that talks to its peers.
     */
    public void returnForeignBlocksTo(BiConsumer<Integer, List<Block>> sink) {
        this.returnHome = sink;
    }

    /**
     * Returns a block to its datanode's free list (ignored when the datanode lost it since); a foreign
     * block goes back to its home namenode.
     */
    public void free(Block block) {
        if (block.replicated()) {
            groups.free(block);
        } else if (block.foreign()) {
            returnHome.accept(block.home().partition(), List.of(block));
        } else {
            block.datanode().release(block);
        }
    }

    /** {@link #free(Block)} for each, with one message per home namenode for the foreign ones. */
    public void free(Block[] blocks) {
        Map<Integer, List<Block>> foreignByHome = null;
        for (Block b : blocks) {
            if (b.replicated()) {
                groups.free(b);
            } else if (b.foreign()) {
                if (foreignByHome == null) {
                    foreignByHome = new HashMap<>();
                }
                foreignByHome.computeIfAbsent(b.home().partition(), home -> new ArrayList<>()).add(b);
            } else {
                b.datanode().release(b);
            }
        }
        if (foreignByHome != null) {
            foreignByHome.forEach(returnHome);
        }
    }
}
