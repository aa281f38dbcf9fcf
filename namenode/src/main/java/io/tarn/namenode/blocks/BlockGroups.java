package io.tarn.namenode.blocks;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.protocol.AdminProtocol.ChangeGroup;
import io.tarn.common.protocol.AdminProtocol.CreateGroup;
import io.tarn.common.protocol.AdminProtocol.DeleteGroup;
import io.tarn.common.protocol.AdminProtocol.FailedGroup;
import io.tarn.common.protocol.AdminProtocol.GroupCommand;
import io.tarn.common.protocol.AdminProtocol.HeartbeatResponse;
import io.tarn.common.protocol.AdminProtocol.LeaderReport;
import io.tarn.namenode.journal.EditLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The replicated block groups of this namenode's partition: placement, slots, and the commands
 * that make their datanodes host them.
 *
 * <p>A group is one whole free region on each of {@link #SIZE} live datanodes (on distinct hosts
 * when enough hosts have one, else on distinct datanodes), all of this partition's share, so the
 * namenode that places a group alone manages it. Its regions leave the datanodes' free lists for
 * as long as it lives: groups are created when a block of replication 3 finds no group with a free
 * slot, and destroyed when their last block is freed, their regions going back to the free lists.
 *
 * <p>Datanodes learn groups from heartbeat answers ({@link #heartbeat}): a member is sent
 * {@code CreateGroup} at every heartbeat until its heartbeat lists the group, and a datanode listing
 * a group of this partition that is not (or no longer) here is sent {@code DeleteGroup}. A client
 * gets its block at once; its first write may find the group not hosted yet and retries.
 *
 * <p>Lookups and slot allocation take no lock but the group's own O(1) monitor; creating a group
 * is serialized on this object (rare). Heartbeat work is bounded by the groups the datanode lists
 * and the ones still to confirm there, and at most {@link HeartbeatResponse#MAX_GROUP_COMMANDS}
 * commands go out per heartbeat.
 */
public final class BlockGroups {
    /** Members of a new group. */
    public static final int SIZE = 3;

    private static final Logger LOG = LoggerFactory.getLogger(BlockGroups.class);

    private final DatanodeRegistry registry;
    private final int partition;
    private final int epoch;
    private final AtomicInteger counter = new AtomicInteger();
    private final AtomicInteger roundRobin = new AtomicInteger();
    private final Map<Long, GroupInfo> groups = new ConcurrentHashMap<>();
    private volatile EditLog log = EditLog.NONE;
    /** Per datanode id: its groups whose CreateGroup it has not confirmed yet. */
    private final Map<Integer, Set<GroupInfo>> unconfirmed = new ConcurrentHashMap<>();
    private volatile long replaceAfterMs = TarnKeys.DATANODE_REPLACE_AFTER.defaultValue();
    /**
     * Per datanode id: regions of groups it no longer holds a member of (destroyed, or the member
     * replaced), by group id, held off the free list until its heartbeat no longer lists the group:
     * until then the datanode still guards the region as a replica's and would refuse other writes.
     */
    private final Map<Integer, Map<Long, Retired>> retiring = new ConcurrentHashMap<>();

    /** A region a group no longer uses on a datanode, with the generations to release it with. */
    private record Retired(DatanodeInfo datanode, int regionId, int[] generations) {
    }

    /**
     * @param partition this namenode's partition (in the high bits of its group ids)
     * @param epoch     random at each start, so ids of an earlier run never come back
     */
    public BlockGroups(DatanodeRegistry registry, int partition, int epoch) {
        this.registry = registry;
        this.partition = partition;
        this.epoch = epoch;
    }

    /** Records every durable change of a group to {@code editLog} ({@link GroupInfo#RECORD}); set before serving. */
    public void recordTo(EditLog editLog) {
        this.log = editLog;
    }

    /**
     * Replays one {@link GroupInfo#RECORD} at start-up: the group as it was then, or gone when it
     * was destroyed. Its datanodes must have been replayed before.
     */
    public void replay(ByteBuf b) {
        long id = b.readLong();
        boolean destroyed = b.readBoolean();
        int slots = b.readInt();
        int nextMemberId = b.readInt();
        long version = b.readLong();
        int count = b.readInt();
        if (slots <= 0 || slots > b.readableBytes() / 4 || count <= 0 || count > 16) {
            throw new IllegalStateException("group " + id + " record of " + slots + " slots and " + count
                    + " members");
        }
        List<GroupInfo.Member> members = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            members.add(readMember(b, id));
        }
        GroupInfo.Membership membership = new GroupInfo.Membership(version, members);
        GroupInfo.Change change = null;
        if (b.readBoolean()) {
            GroupInfo.Member removed = membership.member(b.readInt());
            GroupInfo.Member added = readMember(b, id);
            long targetVersion = b.readLong();
            if (removed == null) {
                throw new IllegalStateException("group " + id + " replaces a member it does not have");
            }
            List<GroupInfo.Member> target = new ArrayList<>(members);
            target.remove(removed);
            target.add(added);
            // Under way since the restart as far as this run knows (the status counts from here).
            change = new GroupInfo.Change(removed, added, new GroupInfo.Membership(targetVersion, target),
                    registry.now());
        }
        int[] generations = new int[slots];
        for (int s = 0; s < slots; s++) {
            generations[s] = b.readInt();
        }
        if (BlockGroup.partitionOf(id) == partition && (int) (id >>> 32 & ((1 << BlockGroup.EPOCH_BITS) - 1))
                == (epoch & ((1 << BlockGroup.EPOCH_BITS) - 1))) {
            counter.accumulateAndGet((int) id, Math::max);
        }
        GroupInfo before = groups.get(id);
        if (before != null) {
            // Regions the group gave up since (a member replaced, a joining member dropped, the whole
            // group destroyed) went back to their datanodes with the group's generations, as
            // releaseRegion does once the datanode drops the group.
            Set<String> kept = new HashSet<>();
            if (!destroyed) {
                for (GroupInfo.Member m : members) {
                    kept.add(m.datanode().id() + "/" + m.regionId());
                }
                if (change != null) {
                    kept.add(change.added().datanode().id() + "/" + change.added().regionId());
                }
            }
            List<GroupInfo.Member> held = new ArrayList<>(before.members());
            if (before.change() != null) {
                held.add(before.change().added());
            }
            for (GroupInfo.Member m : held) {
                if (!kept.contains(m.datanode().id() + "/" + m.regionId())) {
                    m.datanode().raiseRegionGenerations(m.regionId(), generations);
                }
            }
        }
        if (destroyed) {
            groups.remove(id);
            return;
        }
        if (before != null) {
            before.restore(membership, change, generations, nextMemberId);
        } else {
            groups.put(id, new GroupInfo(id, membership, change, generations, nextMemberId, log));
        }
    }

    private GroupInfo.Member readMember(ByteBuf b, long groupId) {
        int memberId = b.readInt();
        DatanodeInfo dn = registry.get(b.readInt());
        int regionId = b.readInt();
        int incarnation = b.readInt();
        if (dn == null) {
            throw new IllegalStateException("member " + memberId + " of group " + groupId
                    + " is on a datanode no record names");
        }
        return new GroupInfo.Member(memberId, dn, regionId, incarnation);
    }

    /**
     * Ends a replay, before the datanodes' free lists are rebuilt: each group's slots in use are
     * those {@code held} (every block of every file) names, its members' regions (and a joining
     * member's) are reserved on their datanodes again, and each member is to confirm the group
     * (CreateGroup until its heartbeat lists it).
     */
    public void finishReplay(Iterable<Block> held) {
        Map<GroupInfo, BitSet> used = new HashMap<>();
        for (Block b : held) {
            if (b.replicated()) {
                used.computeIfAbsent(b.group(), g -> new BitSet()).set(b.regionBlock());
            }
        }
        for (GroupInfo g : groups.values()) {
            g.restoreSlots(used.getOrDefault(g, new BitSet()));
            List<GroupInfo.Member> holders = new ArrayList<>(g.members());
            GroupInfo.Change c = g.change();
            if (c != null) {
                holders.add(c.added());
            }
            for (GroupInfo.Member m : holders) {
                m.datanode().reserveAt(m.regionId());
                // Until its heartbeat lists the group, the member is sent CreateGroup: the namenode may
                // have stopped before a datanode heard of a group (or of its joining member).
                unconfirmed.computeIfAbsent(m.datanode().id(), id -> ConcurrentHashMap.newKeySet()).add(g);
            }
        }
    }

    /** Appends every live group's {@link GroupInfo#RECORD} to {@code out} (a checkpoint's content). */
    public void record(EditLog out) {
        List<GroupInfo> all = new ArrayList<>(groups.values());
        all.sort((a, b) -> Long.compare(a.id(), b.id()));
        for (GroupInfo g : all) {
            g.record(out);
        }
    }

    /** How long a member's datanode may stay dead before it is replaced ({@code tarn.datanode.replace.after}). */
    public void replaceAfter(long ms) {
        this.replaceAfterMs = ms;
    }

    /** A slot of a group with a free one whose members can all take blocks, creating a group when none has. */
    Block allocate() throws TarnException {
        Block b = fromExisting();
        if (b != null) {
            return b;
        }
        synchronized (this) {
            b = fromExisting(); // another thread may have created one meanwhile
            if (b != null) {
                return b;
            }
            return create().take();
        }
    }

    private Block fromExisting() {
        for (GroupInfo g : groups.values()) {
            if (g.allocatable()) {
                Block b = g.take();
                if (b != null) {
                    return b;
                }
            }
        }
        return null;
    }

    /** Caller holds this monitor. */
    private GroupInfo create() throws TarnException {
        List<DatanodeInfo> candidates = new ArrayList<>();
        for (DatanodeInfo dn : registry.values()) {
            if (dn.allocatable() && dn.hasFreeRegion()) {
                candidates.add(dn);
            }
        }
        candidates.sort((a, b) -> Integer.compare(a.id(), b.id()));
        if (!candidates.isEmpty()) {
            Collections.rotate(candidates, -Math.floorMod(roundRobin.getAndIncrement(), candidates.size()));
        }
        List<DatanodeInfo> chosen = new ArrayList<>(SIZE);
        List<DatanodeInfo.RegionReservation> reservations = new ArrayList<>(SIZE);
        Set<String> hosts = new HashSet<>();
        // Distinct hosts first, then distinct datanodes when there are not enough hosts.
        for (int pass = 0; pass < 2 && chosen.size() < SIZE; pass++) {
            for (DatanodeInfo dn : candidates) {
                if (chosen.size() == SIZE) {
                    break;
                }
                if (chosen.contains(dn) || (pass == 0 && hosts.contains(dn.host()))) {
                    continue;
                }
                DatanodeInfo.RegionReservation r = dn.reserveRegion();
                if (r != null) {
                    chosen.add(dn);
                    reservations.add(r);
                    hosts.add(dn.host());
                }
            }
        }
        if (chosen.size() < SIZE) {
            for (int i = 0; i < chosen.size(); i++) {
                chosen.get(i).releaseRegion(reservations.get(i).regionId(), reservations.get(i).generations());
            }
            throw new TarnException(ErrorCode.NO_SPACE, "cannot place a block group of replication " + SIZE
                    + ": it needs a wholly free region on " + SIZE + " live datanodes, and " + candidates.size()
                    + " datanode(s) of " + registry.size() + " have one; delete files, add datanodes, or write "
                    + "files of replication 1");
        }
        int slots = Integer.MAX_VALUE;
        for (DatanodeInfo.RegionReservation r : reservations) {
            slots = Math.min(slots, r.generations().length);
        }
        int[] generations = new int[slots];
        List<GroupInfo.Member> members = new ArrayList<>(SIZE);
        for (int i = 0; i < SIZE; i++) {
            DatanodeInfo.RegionReservation r = reservations.get(i);
            for (int s = 0; s < slots; s++) {
                generations[s] = Math.max(generations[s], r.generations()[s]);
            }
            members.add(new GroupInfo.Member(i, chosen.get(i), r.regionId(), r.incarnation()));
        }
        GroupInfo g = new GroupInfo(BlockGroup.id(partition, epoch, counter.incrementAndGet()), members, generations,
                log);
        g.record(log); // before any slot of it is taken, so every block's record comes after the group's
        groups.put(g.id(), g);
        for (GroupInfo.Member m : members) {
            unconfirmed.computeIfAbsent(m.datanode().id(), id -> ConcurrentHashMap.newKeySet()).add(g);
        }
        LOG.info("Created block {} ({} slots, regions {})", g, slots,
                members.stream().map(m -> String.valueOf(m.regionId())).toList());
        return g;
    }

    /** Frees a block's slot; the group's last block destroys the group and frees its regions. */
    void free(Block b) {
        GroupInfo g = b.group();
        if (!g.release(b.regionBlock(), b.generation())) {
            return;
        }
        groups.remove(g.id());
        int[] generations = g.generations();
        List<GroupInfo.Member> holders = new ArrayList<>(g.members());
        GroupInfo.Change change = g.change();
        if (change != null) {
            holders.add(change.added());
        }
        for (GroupInfo.Member m : holders) {
            retire(g, m, generations);
        }
        LOG.info("Destroyed block {}: its last block was freed; regions back to the free lists once the datanodes "
                + "dropped it", g);
    }

    /** As {@link #heartbeat(DatanodeInfo, List, List, List)} with no group failed there. */
    public HeartbeatResponse heartbeat(DatanodeInfo dn, List<Long> hosted, List<LeaderReport> leading) {
        return heartbeat(dn, hosted, leading, List.of());
    }

    /**
     * A heartbeat of {@code dn} listing {@code hosted} groups, the ones it leads and the ones
     * stopped there: records the leader reports, confirmations and failures (a hosted group not
     * listed as failed is healthy there again), and answers the commands the datanode needs.
     */
    public HeartbeatResponse heartbeat(DatanodeInfo dn, List<Long> hosted, List<LeaderReport> leading,
                                       List<FailedGroup> failed) {
        List<GroupCommand> commands = new ArrayList<>();
        Set<Long> listed = hosted.isEmpty() ? Set.of() : new HashSet<>(hosted);
        Map<Long, String> failures = Map.of();
        if (!failed.isEmpty()) {
            failures = new HashMap<>();
            for (FailedGroup f : failed) {
                failures.put(f.groupId(), f.reason());
            }
        }
        for (long id : hosted) {
            GroupInfo g = groups.get(id);
            if (BlockGroup.partitionOf(id) != partition) {
                continue;
            }
            GroupInfo.Member on = g == null ? null : g.memberOn(dn);
            if (on != null) {
                g.reportFailure(on.memberId(), failures.get(id));
            }
            if (commands.size() == HeartbeatResponse.MAX_GROUP_COMMANDS) {
                continue;
            }
            if (g == null || g.memberOn(dn) == null && g.joiningOn(dn) == null) {
                commands.add(new DeleteGroup(id));
            } else if (g.change() != null) {
                commands.add(new ChangeGroup(g.describe(g.change().target())));
                g.changeCommanded();
            }
        }
        Map<Long, Retired> retired = retiring.get(dn.id());
        if (retired != null) {
            retired.entrySet().removeIf(e -> {
                if (listed.contains(e.getKey()) || e.getValue().datanode() != dn) {
                    return false;
                }
                dn.releaseRegion(e.getValue().regionId(), e.getValue().generations());
                return true;
            });
        }
        for (LeaderReport r : leading) {
            GroupInfo g = groups.get(r.groupId());
            GroupInfo.Member m = g == null ? null : g.member(r.leaderMemberId());
            if (m != null && m.datanode() == dn) {
                g.reportLeader(r.leaderMemberId(), r.term());
                if (!r.members().isEmpty()) {
                    GroupInfo.Change done = g.reportConfiguration(r.members());
                    if (done != null) {
                        finish(g, done);
                    }
                }
            }
        }
        Set<GroupInfo> pending = unconfirmed.get(dn.id());
        if (pending != null) {
            for (GroupInfo g : pending) {
                GroupInfo.Member m = g.memberOn(dn);
                BlockGroup described;
                if (m != null) {
                    described = g.describe();
                } else if ((m = g.joiningOn(dn)) != null) {
                    described = g.describe(g.change().target());
                } else {
                    pending.remove(g); // replaced before it confirmed
                    continue;
                }
                if (listed.contains(g.id())) {
                    g.confirm(m.memberId());
                    pending.remove(g);
                } else if (commands.size() < HeartbeatResponse.MAX_GROUP_COMMANDS && groups.containsKey(g.id())) {
                    commands.add(new CreateGroup(described, m.memberId(), m.memberId() == 0 && g.version() == 1));
                }
            }
        }
        return new HeartbeatResponse(commands);
    }

    /**
     * Starts replacing one member of each group that has a member to replace: its datanode lost the
     * data (came back or stopped without it), or stayed dead for {@code tarn.datanode.replace.after},
     * or has reported the group stopped there (a failed journal) for that long.
     * Only a group with a majority of live members can change (its leader carries the change out).
     * Called on the namenode's maintenance thread.
     *
     * @return how many replacements began
     */
    public int repair(long nowMs) {
        int begun = 0;
        for (GroupInfo g : groups.values()) {
            GroupInfo.Change under = g.change();
            if (under != null && g.up(under.removed()) && cancel(g, under)) {
                continue;
            }
            if (under != null) {
                if (gone(g, under.added(), nowMs)) {
                    place(g, under.removed(), under.added(), nowMs);
                }
                continue;
            }
            if (g.liveMembers() <= SIZE / 2) {
                continue;
            }
            for (GroupInfo.Member m : g.members()) {
                if (gone(g, m, nowMs)) {
                    if (place(g, m, null, nowMs)) {
                        begun++;
                    }
                    break;
                }
            }
        }
        return begun;
    }

    /**
     * Whether {@code m}'s datanode lost the data, or stayed dead for {@code tarn.datanode.replace.after},
     * or has reported the group stopped there for that long.
     */
    private boolean gone(GroupInfo g, GroupInfo.Member m, long nowMs) {
        DatanodeInfo dn = m.datanode();
        return m.lost() || !dn.alive() && registry.silenceMs(dn) >= replaceAfterMs
                || g.failedForMs(m.memberId(), nowMs) >= replaceAfterMs;
    }

    /**
     * Places a new member for {@code gone} on another datanode (another host first): a new change,
     * or, when {@code deadJoiner} is the new member of the change under way and is gone too, the
     * same change with another new member (the old one's region is freed). False when no datanode
     * can take it.
     */
    private synchronized boolean place(GroupInfo g, GroupInfo.Member gone, GroupInfo.Member deadJoiner, long nowMs) {
        Set<String> hosts = new HashSet<>();
        for (GroupInfo.Member m : g.members()) {
            if (m != gone) {
                hosts.add(m.datanode().host());
            }
        }
        List<DatanodeInfo> candidates = new ArrayList<>();
        for (DatanodeInfo dn : registry.values()) {
            if (dn.allocatable() && g.memberOn(dn) == null && g.joiningOn(dn) == null && !holdsOldCopy(dn, g)
                    && dn.hasFreeRegion()) {
                candidates.add(dn);
            }
        }
        candidates.sort((a, b) -> Integer.compare(a.id(), b.id()));
        for (int pass = 0; pass < 2; pass++) {
            for (DatanodeInfo dn : candidates) {
                if (pass == 0 == hosts.contains(dn.host())) {
                    continue;
                }
                if (placeOn(dn, g, gone, deadJoiner, nowMs)) {
                    return true;
                }
            }
        }
        LOG.warn("Cannot replace member {} of {}: no other live datanode has a wholly free region it can take "
                + "(free, and no block of it at the generation of one of the group's blocks)", gone.memberId(), g);
        return false;
    }

    /**
     * Places the new member on one of {@code dn}'s wholly free regions: the first whose blocks'
     * generations the group can take (a region the group held before carries its generations, so
     * another is tried). Caller holds this monitor.
     */
    private boolean placeOn(DatanodeInfo dn, GroupInfo g, GroupInfo.Member gone, GroupInfo.Member deadJoiner,
                            long nowMs) {
        List<DatanodeInfo.RegionReservation> refused = new ArrayList<>();
        try {
            DatanodeInfo.RegionReservation r;
            while ((r = dn.reserveRegion()) != null) {
                GroupInfo.Change c;
                if (deadJoiner == null) {
                    c = g.begin(gone, dn, r.regionId(), r.generations(), r.incarnation(), nowMs);
                } else {
                    GroupInfo.Member dropped = g.retarget(dn, r.regionId(), r.generations(), r.incarnation(), nowMs);
                    c = dropped == null ? null : g.change();
                    if (dropped != null) {
                        forget(g, dropped);
                        LOG.info("New member {} of {} gave out before it joined: member {} on datanode {} instead",
                                dropped.memberId(), g, c.added().memberId(), dn.id());
                    }
                }
                if (c == null) {
                    refused.add(r);
                    continue;
                }
                unconfirmed.computeIfAbsent(dn.id(), id -> ConcurrentHashMap.newKeySet()).add(g);
                String why = gone.lost() ? "lost its data" : g.failure(gone.memberId()) != null
                        ? "stopped the group: " + g.failure(gone.memberId()) : "stayed dead";
                LOG.info("Replacing member {} of {} (datanode {} {}): member {} joins on datanode {} region {}",
                        gone.memberId(), g, gone.datanode().id(), why, c.added().memberId(), dn.id(), r.regionId());
                return true;
            }
            return false;
        } finally {
            for (DatanodeInfo.RegionReservation r : refused) {
                dn.releaseRegion(r.regionId(), r.generations());
            }
        }
    }

    /**
     * Whether {@code dn} still holds the copy of a member {@code g} no longer has (it is told to
     * delete it, and the region returns to its free list once it stops listing the group). Such a
     * datanode cannot take a new member of {@code g} yet: a heartbeat names the groups a datanode
     * hosts, not as which member, so it would pass the old copy off as the new member, whose
     * creation it ignores while it hosts the group. A 300 s chaos run left eleven groups with such
     * a phantom new member: the groups applied the change, the namenode waited for ever for the new
     * member to catch up, and went on handing out the member the groups had removed.
     */
    private boolean holdsOldCopy(DatanodeInfo dn, GroupInfo g) {
        Map<Long, Retired> retired = retiring.get(dn.id());
        Retired r = retired == null ? null : retired.get(g.id());
        return r != null && r.datanode() == dn;
    }

    /**
     * The member to replace came back with its data before the change was handed to the group: the
     * group stays as it was. False when the change goes on (it may have begun in the group).
     */
    private boolean cancel(GroupInfo g, GroupInfo.Change change) {
        GroupInfo.Member added = g.cancel();
        if (added == null) {
            return false;
        }
        forget(g, added);
        LOG.info("Gave up replacing member {} of {}: its datanode is back with the data", change.removed().memberId(),
                g);
        return true;
    }

    /** A member that no longer belongs to {@code g}: its region goes back to its datanode's free list. */
    private void forget(GroupInfo g, GroupInfo.Member m) {
        retire(g, m, g.generations());
    }

    /**
     * {@code m}'s region leaves the group: it returns to its datanode's free list at the first
     * heartbeat of that datanode that no longer lists the group ({@link #heartbeat}).
     */
    private void retire(GroupInfo g, GroupInfo.Member m, int[] generations) {
        Set<GroupInfo> pending = unconfirmed.get(m.datanode().id());
        if (pending != null) {
            pending.remove(g);
        }
        retiring.computeIfAbsent(m.datanode().id(), id -> new ConcurrentHashMap<>())
                .put(g.id(), new Retired(m.datanode(), m.regionId(), generations));
    }

    /** A replacement took effect: the old member's region goes back to its datanode's free list. */
    private void finish(GroupInfo g, GroupInfo.Change done) {
        GroupInfo.Member old = done.removed();
        forget(g, old);
        LOG.info("Replaced member {} of {} by member {}: membership version {}", old.memberId(), g,
                done.added().memberId(), done.target().version());
    }

    /** The group with this id, or null. */
    public GroupInfo get(long id) {
        return groups.get(id);
    }

    /** How many groups this partition has. */
    public int count() {
        return groups.size();
    }

    /** How many of this partition's groups have a member on each datanode, by datanode id (one pass). */
    public Map<Integer, Integer> countByDatanode() {
        Map<Integer, Integer> out = new HashMap<>();
        for (GroupInfo g : groups.values()) {
            for (GroupInfo.Member m : g.members()) {
                out.merge(m.datanode().id(), 1, Integer::sum);
            }
        }
        return out;
    }

    /** Every group, in no particular order. */
    public List<GroupInfo> all() {
        return List.copyOf(groups.values());
    }
}
