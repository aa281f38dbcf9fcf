package io.tarn.common.fs;

import java.util.List;

/**
 * A replicated block group: the same-sized region on three datanodes, kept consistent by
 * ParallelRaft, whose slot {@code s} is block {@code s} of each member's region. Immutable.
 *
 * <p>Group ids are unique across the partitions of a cluster and across namenode restarts: bit 63
 * is 0, bits 62..55 hold the partition that created the group ({@link #partitionOf}), bits 54..32 a
 * random epoch chosen at each namenode start, bits 31..0 a counter ({@link #id}). A namenode keeps
 * no disk state, so the epoch is what keeps a restarted namenode from reusing an id a datanode still
 * hosts.
 *
 * @param groupId        the group
 * @param version        the membership version (1 at creation, raised by every membership change)
 * @param leaderMemberId the member the namenode believes leads (a hint: the first to try)
 * @param members        the members, by ascending member id
 */
public record BlockGroup(long groupId, long version, int leaderMemberId, List<GroupMember> members) {
    /** Members a group is created with (ids 0, 1, 2); a replacement gets an id from this one up. */
    public static final int FOUNDERS = 3;
    /** Bits of the epoch in a group id. */
    public static final int EPOCH_BITS = 23;
    private static final int PARTITION_SHIFT = 32 + EPOCH_BITS;

    public BlockGroup {
        members = List.copyOf(members);
        if (groupId < 0 || version < 1) {
            throw new IllegalArgumentException("no group " + groupId + " of membership version " + version);
        }
    }

    /** The group id of the {@code counter}-th group of {@code partition} in the namenode run {@code epoch}. */
    public static long id(int partition, int epoch, int counter) {
        if (partition < 0 || partition >= FileIds.MAX_PARTITIONS) {
            throw new IllegalArgumentException("no partition " + partition);
        }
        long e = epoch & ((1L << EPOCH_BITS) - 1);
        return ((long) partition << PARTITION_SHIFT) | (e << 32) | (counter & 0xFFFF_FFFFL);
    }

    /** The partition (namenode) that created group {@code groupId}. */
    public static int partitionOf(long groupId) {
        return (int) (groupId >>> PARTITION_SHIFT) & (FileIds.MAX_PARTITIONS - 1);
    }

    /** The member with id {@code memberId}, or null. */
    public GroupMember member(int memberId) {
        for (GroupMember m : members) {
            if (m.memberId() == memberId) {
                return m;
            }
        }
        return null;
    }
}
