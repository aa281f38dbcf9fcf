package io.tarn.namenode.blocks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.GroupMember;
import io.tarn.namenode.journal.EditLog;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One replicated block group of this namenode: a whole region on each of its members' datanodes,
 * whose slot {@code s} is block {@code s} of every member's region, with a generation per slot
 * (raised at each allocation of the slot, as a datanode's blocks are). Created and destroyed by
 * {@link BlockGroups} with its blocks.
 *
 * <p><b>Membership.</b> The members change when one is replaced ({@link BlockGroups} repairs a
 * group whose member's datanode stayed dead for {@code tarn.datanode.replace.after}, or came back
 * without the data): a {@link Change} names the target membership, one member out and a new one in,
 * with the next version; it takes effect here once the group's leader reports that its replicas
 * applied exactly the target configuration. Readers take one {@link Membership} snapshot.
 *
 * <p>Slot state is guarded by this object's monitor (O(1) sections, as a datanode's free list);
 * the membership, the change under way, the leader hint and the members' confirmations are read
 * without locking.
 */
public final class GroupInfo {
    private static final Logger LOG = LoggerFactory.getLogger(GroupInfo.class);

    /**
     * One member as placed: its id in the group, its datanode (as this namenode knows it), the
     * region it holds the group in, and the datanode's incarnation then (a later one lost it).
     */
    public record Member(int memberId, DatanodeInfo datanode, int regionId, int incarnation) {
        /** True while its datanode is alive and still holds the data of the incarnation it joined in. */
        public boolean live() {
            return datanode.alive() && datanode.incarnation() == incarnation;
        }

        /** True when its datanode came back, or stopped, without the group's region. */
        public boolean lost() {
            return datanode.incarnation() != incarnation;
        }
    }

    /**
     * The group's members at one version.
     *
     * @param version 1 at creation, raised by each replacement
     * @param members the members, founders first (ids 0, 1, 2), replacements after (3, 4, ...)
     */
    public record Membership(long version, List<Member> members) {
        public Membership {
            members = List.copyOf(members);
        }

        /** The member with {@code memberId}, or null. */
        public Member member(int memberId) {
            for (Member m : members) {
                if (m.memberId() == memberId) {
                    return m;
                }
            }
            return null;
        }

        /** The member held on {@code dn}, or null. */
        public Member memberOn(DatanodeInfo dn) {
            for (Member m : members) {
                if (m.datanode() == dn) {
                    return m;
                }
            }
            return null;
        }

        /** The members' ids, ascending. */
        public List<Integer> ids() {
            return members.stream().map(Member::memberId).sorted().toList();
        }
    }

    /**
     * A replacement under way: {@code removed} leaves, {@code added} (on a wholly free region of
     * another datanode) joins, and the group becomes {@code target}.
     */
    public record Change(Member removed, Member added, Membership target, long startedMs) {
    }

    private final long id;
    private volatile Membership membership;
    private volatile Change change;
    private final int slots;
    /** Ids of the members whose datanode's heartbeat listed the group. */
    private final Set<Integer> confirmed = ConcurrentHashMap.newKeySet();
    private volatile int leaderMemberId;
    private volatile long leaderTerm = -1;

    // Guarded by this.
    private final int[] generations;
    private final int[] freeStack;
    private int freeCount;
    private final BitSet allocated;
    private boolean destroyed;
    /** The configuration the leader last reported its replicas applied, or null before any report. */
    private volatile List<Integer> reported;
    /**
     * Whether the change under way was handed to a member's datanode ({@code ChangeGroup}): from then
     * on its leader may have removed the member at any moment, before any report says so.
     */
    private volatile boolean changeCommanded;
    /** Why the group stopped on a member's datanode, by member id, as heartbeats report it (copy on write). */
    private volatile Map<Integer, Failure> failures = Map.of();

    /** A member's failure: the datanode's reason, and when repair first saw it (-1: not yet). */
    private record Failure(String reason, long sinceMs) {
    }
    /** The id the next replacement member gets: ids are never reused. */
    private int nextMemberId;
    /** Where the group's durable state goes at every change of it ({@link #RECORD}). */
    private final EditLog log;

    /**
     * The journal record of a group's durable state, appended under its monitor when it is created,
     * when a replacement begins, is retargeted, cancelled or takes effect, and when it is destroyed:
     * {@code groupId[i64] destroyed[bool] slots[i32] nextMemberId[i32] version[i64] count[i32]
     * member*count change[bool] (removedMemberId[i32] added:member targetVersion[i64])?
     * generation[i32]*slots}, a member being {@code memberId[i32] datanodeId[i32] regionId[i32]
     * incarnation[i32]}. Each record states the whole group, so replay keeps the last one. Which
     * slots are in use is not recorded: replay finds it in the files' blocks.
     */
    public static final int RECORD = 17;

    /**
     * A group as its last {@link #RECORD} left it (a journal's replay): slots all free until
     * {@link #restoreSlots}; a change under way counts as already sent to a member (see {@link #cancel}).
     */
    GroupInfo(long id, Membership membership, Change change, int[] generations, int nextMemberId, EditLog log) {
        this.log = log;
        this.id = id;
        this.membership = membership;
        this.change = change;
        this.changeCommanded = change != null;
        this.nextMemberId = nextMemberId;
        this.slots = generations.length;
        this.generations = generations.clone();
        this.freeStack = new int[slots];
        for (int i = 0; i < slots; i++) {
            freeStack[i] = slots - 1 - i;
        }
        this.freeCount = slots;
        this.allocated = new BitSet(slots);
        this.leaderMemberId = membership.members().get(0).memberId();
    }

    /**
     * During a replay: a later {@link #RECORD} of this group, applied in place (the files' blocks
     * already point at this object): its membership, change and member ids as recorded, its slots'
     * generations raised to the record's.
     */
    synchronized void restore(Membership m, Change c, int[] recorded, int nextMember) {
        if (recorded.length != slots) {
            throw new IllegalStateException("group " + id + " recorded with " + recorded.length + " slots, not "
                    + slots);
        }
        membership = m;
        change = c;
        changeCommanded = c != null;
        nextMemberId = nextMember;
        for (int s = 0; s < slots; s++) {
            generations[s] = Math.max(generations[s], recorded[s]);
        }
        if (m.member(leaderMemberId) == null) {
            leaderMemberId = m.members().get(0).memberId();
        }
    }

    /** Appends this group's {@link #RECORD} as it is now to {@code to}. */
    synchronized void record(EditLog to) {
        if (!to.enabled()) {
            return;
        }
        ByteBuf b = Unpooled.buffer(64 + 4 * slots);
        b.writeLong(id);
        b.writeBoolean(destroyed);
        b.writeInt(slots);
        b.writeInt(nextMemberId);
        Membership m = membership;
        b.writeLong(m.version());
        b.writeInt(m.members().size());
        for (Member x : m.members()) {
            writeMember(b, x);
        }
        Change c = change;
        b.writeBoolean(c != null);
        if (c != null) {
            b.writeInt(c.removed().memberId());
            writeMember(b, c.added());
            b.writeLong(c.target().version());
        }
        for (int g : generations) {
            b.writeInt(g);
        }
        to.append(RECORD, b);
    }

    /** Caller holds the monitor: the group's record to its own log. */
    private void record() {
        record(log);
    }

    private static void writeMember(ByteBuf b, Member m) {
        b.writeInt(m.memberId());
        b.writeInt(m.datanode().id());
        b.writeInt(m.regionId());
        b.writeInt(m.incarnation());
    }

    /** During a replay: slot {@code slot} was allocated with {@code generation}. */
    public synchronized void raiseSlot(int slot, int generation) {
        if (slot < 0 || slot >= slots) {
            throw new IllegalStateException("slot " + slot + " of group " + id + ", which has " + slots);
        }
        generations[slot] = Math.max(generations[slot], generation);
    }

    /** At the end of a replay: the slots files hold are in use, the others free. */
    synchronized void restoreSlots(BitSet held) {
        allocated.clear();
        int n = 0;
        for (int s = slots - 1; s >= 0; s--) {
            if (held.get(s)) {
                allocated.set(s);
            } else {
                freeStack[n++] = s;
            }
        }
        freeCount = n;
    }

    /**
     * @param generations each slot's generation so far (the slots are handed out above them)
     */
    GroupInfo(long id, List<Member> members, int[] generations) {
        this(id, members, generations, EditLog.NONE);
    }

    /** As the constructor above, appending the group's {@link #RECORD} to {@code log} at every durable change. */
    GroupInfo(long id, List<Member> members, int[] generations, EditLog log) {
        this(id, new Membership(1, members), null, generations,
                members.stream().mapToInt(Member::memberId).max().orElse(-1) + 1, log);
    }

    public long id() {
        return id;
    }

    /** The membership version (1: no member replaced since creation). */
    public long version() {
        return membership.version();
    }

    /** The current members. */
    public List<Member> members() {
        return membership.members();
    }

    /** The current membership, one consistent snapshot. */
    public Membership membership() {
        return membership;
    }

    /** The replacement under way, or null. */
    public Change change() {
        return change;
    }

    /** Slots (blocks per member region). */
    public int slots() {
        return slots;
    }

    /** The member last reported leading (the first member until a report arrives). */
    public int leaderMemberId() {
        return leaderMemberId;
    }

    /** The term of the last leader report, or -1 before any. */
    public long leaderTerm() {
        return leaderTerm;
    }

    /** The current member with {@code memberId}, or null. */
    public Member member(int memberId) {
        return membership.member(memberId);
    }

    /** The current member held on {@code dn}, or null. */
    public Member memberOn(DatanodeInfo dn) {
        return membership.memberOn(dn);
    }

    public synchronized int freeSlots() {
        return freeCount;
    }

    /** True when new blocks may go here: a slot is free and every member can take blocks. */
    boolean allocatable() {
        if (change != null) {
            return false;
        }
        for (Member m : membership.members()) {
            if (!m.datanode().allocatable() || m.lost() || failures.containsKey(m.memberId())) {
                return false;
            }
        }
        synchronized (this) {
            return !destroyed && freeCount > 0;
        }
    }

    /**
     * Records what member {@code memberId}'s datanode said of the group in its last heartbeat:
     * {@code reason} why the group stopped there, or null when it runs there. Logged when it changes.
     */
    public synchronized void reportFailure(int memberId, String reason) {
        Map<Integer, Failure> now = failures;
        Failure before = now.get(memberId);
        if (Objects.equals(before == null ? null : before.reason(), reason)) {
            return;
        }
        Map<Integer, Failure> next = new HashMap<>(now);
        if (reason == null) {
            next.remove(memberId);
            LOG.info("Block group {}: member {} runs again on its datanode", id, memberId);
        } else {
            next.put(memberId, new Failure(reason, before == null ? -1 : before.sinceMs()));
            if (before == null) {
                LOG.warn("Block group {}: member {} stopped on its datanode, which keeps it stopped until it is "
                        + "restarted: {}", id, memberId, reason);
            }
        }
        failures = Map.copyOf(next);
    }

    /** Why the group stopped on member {@code memberId}'s datanode, as its last heartbeat said; null if it runs. */
    public String failure(int memberId) {
        Failure f = failures.get(memberId);
        return f == null ? null : f.reason();
    }

    /**
     * How long member {@code memberId} has been reported failed as of {@code nowMs}, counted from
     * the first call that saw the failure (repair's clock); -1 when it is not failed.
     */
    synchronized long failedForMs(int memberId, long nowMs) {
        Map<Integer, Failure> now = failures;
        Failure f = now.get(memberId);
        if (f == null) {
            return -1;
        }
        if (f.sinceMs() < 0) {
            Map<Integer, Failure> next = new HashMap<>(now);
            next.put(memberId, new Failure(f.reason(), nowMs));
            failures = Map.copyOf(next);
            return 0;
        }
        return nowMs - f.sinceMs();
    }

    /** True while {@code m}'s datanode is alive with the group's data and the group runs there. */
    public boolean up(Member m) {
        return m.live() && !failures.containsKey(m.memberId());
    }

    /** Members that are {@link #up}. */
    public int liveMembers() {
        int n = 0;
        for (Member m : membership.members()) {
            if (up(m)) {
                n++;
            }
        }
        return n;
    }

    /** True when every member lost its data: the group's blocks are gone. */
    public boolean lost() {
        for (Member m : membership.members()) {
            if (!m.lost()) {
                return false;
            }
        }
        return true;
    }

    /** Takes a free slot with a raised generation, or returns null when none is free (or the group is gone). */
    synchronized Block take() {
        if (destroyed || freeCount == 0) {
            return null;
        }
        int slot = freeStack[--freeCount];
        allocated.set(slot);
        int generation = ++generations[slot];
        Member first = membership.members().get(0);
        return new Block(first.datanode(), first.incarnation(), first.regionId(), slot, generation, null, this);
    }

    /**
     * Returns a slot; when it was the last one in use the group is destroyed here (no slot is
     * handed out from it again).
     *
     * @return true when the group became empty and is now destroyed
     */
    synchronized boolean release(int slot, int generation) {
        if (slot < 0 || slot >= slots || !allocated.get(slot) || generations[slot] != generation) {
            throw new IllegalStateException("slot " + slot + " (generation " + generation + ") of group " + id
                    + " freed twice");
        }
        allocated.clear(slot);
        freeStack[freeCount++] = slot;
        if (freeCount == slots) {
            destroyed = true;
            record();
            return true;
        }
        return false;
    }

    /** The slots' generations (a copy). */
    synchronized int[] generations() {
        return generations.clone();
    }

    /** Records a heartbeat's leader report; an older term than the last report's is ignored. */
    synchronized void reportLeader(int memberId, long term) {
        if (term >= leaderTerm && member(memberId) != null) {
            leaderTerm = term;
            leaderMemberId = memberId;
        }
    }

    /** Whether member {@code memberId}'s datanode has listed the group in a heartbeat. */
    boolean confirmed(int memberId) {
        return confirmed.contains(memberId);
    }

    void confirm(int memberId) {
        confirmed.add(memberId);
    }

    /**
     * The change under way keeps its member to remove but gets another new member, on region
     * {@code regionId} of {@code dn} (its joining member died or lost its data before the change
     * was done); see {@link #begin} for the generations. Returns the member given up, or null when
     * there is no change or the region cannot serve.
     */
    synchronized Member retarget(DatanodeInfo dn, int regionId, int[] regionGenerations, int incarnation,
                                 long nowMs) {
        Change c = change;
        if (c == null || destroyed || !fits(regionGenerations)) {
            return null;
        }
        raiseFreeSlots(regionGenerations);
        Member added = new Member(nextMemberId++, dn, regionId, incarnation);
        List<Member> target = new ArrayList<>(membership.members());
        target.remove(c.removed());
        target.add(added);
        change = new Change(c.removed(), added, new Membership(membership.version() + 1, target), nowMs);
        record();
        return c.added();
    }

    /** Whether no allocated slot's generation equals the region block's (caller holds the monitor). */
    private boolean fits(int[] regionGenerations) {
        if (regionGenerations.length < slots) {
            return false;
        }
        for (int s = 0; s < slots; s++) {
            if (allocated.get(s) && generations[s] == regionGenerations[s]) {
                return false;
            }
        }
        return true;
    }

    /** Raises the free slots' generations above the region's (caller holds the monitor). */
    private void raiseFreeSlots(int[] regionGenerations) {
        for (int s = 0; s < slots; s++) {
            if (!allocated.get(s)) {
                generations[s] = Math.max(generations[s], regionGenerations[s]);
            }
        }
    }

    /**
     * Starts replacing {@code removed} by a new member (the next unused id) on region
     * {@code regionId} of {@code dn}, whose blocks' generations there are {@code regionGenerations}:
     * the free slots' generations are raised above them (as a new group's are). Null when a change
     * is under way, the group is gone, or an allocated slot's generation equals the region's block's
     * (an old reference to that block would then pass for the slot's): another region must serve.
     */
    synchronized Change begin(Member removed, DatanodeInfo dn, int regionId, int[] regionGenerations,
                              int incarnation, long nowMs) {
        if (change != null || destroyed || !fits(regionGenerations)) {
            return null;
        }
        raiseFreeSlots(regionGenerations);
        Member added = new Member(nextMemberId++, dn, regionId, incarnation);
        List<Member> target = new ArrayList<>(membership.members());
        target.remove(removed);
        target.add(added);
        change = new Change(removed, added, new Membership(membership.version() + 1, target), nowMs);
        changeCommanded = false;
        record();
        return change;
    }

    /** The change under way was sent to a member's datanode (see {@link #cancel}). */
    void changeCommanded() {
        changeCommanded = true;
    }

    /**
     * Gives up the change under way (its member to remove is back with its data) unless it was
     * already sent to a member's datanode or the leader reported a configuration other than the
     * current members' (the change began there): a leader may remove the member the moment it gets
     * the command, well before its next report, and a group that lost the member without the
     * namenode knowing would be left with two. The joining member is returned so its region can be
     * freed, or null when nothing was given up.
     */
    synchronized Member cancel() {
        Change c = change;
        List<Integer> applied = reported;
        if (c == null || changeCommanded || applied != null && !applied.equals(membership.ids())) {
            return null; // the group's replicas have begun the change: it is carried through
        }
        change = null;
        record();
        return c == null ? null : c.added();
    }

    /** The member joining on {@code dn} in the change under way, or null. */
    public Member joiningOn(DatanodeInfo dn) {
        Change c = change;
        return c != null && c.added().datanode() == dn ? c.added() : null;
    }

    /**
     * The leader reported its replicas' configuration: when it is the change's target, the change
     * takes effect and is returned; otherwise null.
     */
    synchronized Change reportConfiguration(List<Integer> applied) {
        reported = applied.stream().sorted().toList();
        Change c = change;
        if (c == null || !c.target().ids().equals(applied.stream().sorted().toList())) {
            return null;
        }
        membership = c.target();
        change = null;
        record();
        return c;
    }

    /** True once the group was destroyed (its last block freed). */
    synchronized boolean destroyed() {
        return destroyed;
    }

    /** The group as datanodes and clients learn it, member tokens zero. */
    public BlockGroup describe() {
        return describe(membership);
    }

    /** The group with {@code m} as its members, member tokens zero. */
    BlockGroup describe(Membership m) {
        List<GroupMember> out = new ArrayList<>(m.members().size());
        for (Member x : m.members()) {
            DatanodeInfo dn = x.datanode();
            out.add(new GroupMember(x.memberId(), dn.id(), dn.host(), dn.port(), x.regionId(), 0));
        }
        int leader = m.member(leaderMemberId) != null ? leaderMemberId : m.members().get(0).memberId();
        return new BlockGroup(id, m.version(), leader, out);
    }

    /** "group 42 on datanodes 1, 2, 3" for messages. */
    @Override
    public String toString() {
        List<Member> members = membership.members();
        StringBuilder sb = new StringBuilder("group ").append(id).append(" on datanodes ");
        for (int i = 0; i < members.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(members.get(i).datanode().id());
        }
        return sb.toString();
    }
}
