package io.tarn.namenode.blocks;

import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.GroupMember;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * One replicated block group of this namenode: a whole region on each of its members' datanodes,
 * whose slot {@code s} is block {@code s} of every member's region, with a generation per slot
 * (raised at each allocation of the slot, as a datanode's blocks are). Created and destroyed by
 * {@link BlockGroups} with its blocks.
 *
 * <p>Slot state is guarded by this object's monitor (O(1) sections, as a datanode's free list);
 * the leader hint and the members' confirmations are read without locking.
 */
public final class GroupInfo {

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

    private final long id;
    private final long version;
    private final List<Member> members;
    private final int slots;
    /** Per member index: 1 once its datanode's heartbeat listed the group. */
    private final AtomicIntegerArray confirmed;
    private volatile int leaderMemberId;
    private volatile long leaderTerm = -1;

    // Guarded by this.
    private final int[] generations;
    private final int[] freeStack;
    private int freeCount;
    private final BitSet allocated;
    private boolean destroyed;

    /**
     * @param generations each slot's generation so far (the slots are handed out above them)
     */
    GroupInfo(long id, List<Member> members, int[] generations) {
        this.id = id;
        this.version = 1;
        this.members = List.copyOf(members);
        this.slots = generations.length;
        this.generations = generations.clone();
        this.freeStack = new int[slots];
        for (int i = 0; i < slots; i++) {
            freeStack[i] = slots - 1 - i;
        }
        this.freeCount = slots;
        this.allocated = new BitSet(slots);
        this.confirmed = new AtomicIntegerArray(members.size());
        this.leaderMemberId = members.get(0).memberId();
    }

    public long id() {
        return id;
    }

    /** The membership version (1: no member replaced since creation). */
    public long version() {
        return version;
    }

    public List<Member> members() {
        return members;
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

    public synchronized int freeSlots() {
        return freeCount;
    }

    /** True when new blocks may go here: a slot is free and every member can take blocks. */
    boolean allocatable() {
        for (Member m : members) {
            if (!m.datanode().allocatable() || m.lost()) {
                return false;
            }
        }
        synchronized (this) {
            return !destroyed && freeCount > 0;
        }
    }

    /** Members whose datanode is alive with the group's data. */
    public int liveMembers() {
        int n = 0;
        for (Member m : members) {
            if (m.live()) {
                n++;
            }
        }
        return n;
    }

    /** True when every member lost its data: the group's blocks are gone. */
    public boolean lost() {
        for (Member m : members) {
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
        Member first = members.get(0);
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

    /** Whether member index {@code i}'s datanode has listed the group in a heartbeat. */
    boolean confirmed(int i) {
        return confirmed.get(i) != 0;
    }

    void confirm(int i) {
        confirmed.set(i, 1);
    }

    /** The group as datanodes and clients learn it, member tokens zero. */
    public BlockGroup describe() {
        List<GroupMember> out = new ArrayList<>(members.size());
        for (Member m : members) {
            DatanodeInfo dn = m.datanode();
            out.add(new GroupMember(m.memberId(), dn.id(), dn.host(), dn.port(), m.regionId(), 0));
        }
        return new BlockGroup(id, version, leaderMemberId, out);
    }

    /** "group 42 on datanodes 1, 2, 3" for messages. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("group ").append(id).append(" on datanodes ");
        for (int i = 0; i < members.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(members.get(i).datanode().id());
        }
        return sb.toString();
    }
}
