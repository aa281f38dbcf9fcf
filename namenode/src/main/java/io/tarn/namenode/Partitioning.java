package io.tarn.namenode;

import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorDetail.Redirect;
import io.tarn.common.fs.Partitions;
import io.tarn.rpc.LeaderRpc;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;

import java.util.List;

/**
 * Which partition of the namespace a namenode serves, among how many, and where the others are
 * (docs/partitioning.md). Files belong to the partition their name hashes to; partition 0 also
 * coordinates directory operations. A single namenode is partition 0 of 1.
 *
 * @param partition this namenode's index in {@code namenodes}
 * @param namenodes every partition's namenode (the first member of a replicated group), in partition order
 * @param entries   every partition's entry of {@code tarn.namenode.address}: its namenode, or the members
 *                  of its group separated by {@code |}
 */
public record Partitioning(int partition, List<HostPort> namenodes, List<String> entries) {
    public Partitioning {
        namenodes = List.copyOf(namenodes);
        entries = List.copyOf(entries);
        if (partition < 0 || partition >= namenodes.size() || entries.size() != namenodes.size()) {
            throw new IllegalArgumentException("partition " + partition + " of " + namenodes.size());
        }
    }

    /** Partitions served by one namenode each. */
    public Partitioning(int partition, List<HostPort> namenodes) {
        this(partition, namenodes, namenodes.stream().map(HostPort::toString).toList());
    }

    /** One namenode: partition 0 of 1 at {@code address}. */
    public static Partitioning single(HostPort address) {
        return new Partitioning(0, List.of(address));
    }

    /** {@code tarn.namenode.partition} of {@code tarn.namenode.address}. */
    public static Partitioning of(TarnConfig config) {
        return new Partitioning(config.get(TarnKeys.NAMENODE_PARTITION), config.namenodes(),
                config.namenodeGroups().stream().map(g -> String.join("|", g.stream().map(HostPort::toString)
                        .toList())).toList());
    }

    public int count() {
        return namenodes.size();
    }

    /** True for partition 0, which sequences directory operations. */
    public boolean isCoordinator() {
        return partition == 0;
    }

    /** The partition that owns files called {@code name}. */
    public int ownerOf(String name) {
        return Partitions.ofName(name, namenodes.size());
    }

    /** True when files called {@code name} belong here. */
    public boolean owns(String name) {
        return namenodes.size() == 1 || ownerOf(name) == partition;
    }

    /** Where a client should send what belongs to partition {@code p}: its number and host:port. */
    public Redirect redirectTo(int p) {
        return new Redirect(p, namenodes.get(p).toString());
    }

    /** host:port of a partition's namenode, for messages. */
    public String describe(int p) {
        return "namenode " + p + " (" + namenodes.get(p) + ")";
    }

    /**
     * A client per other partition, indexed by partition (null at this one's index); each connects on
     * its first call. A partition served by a replicated group is reached through a
     * {@link LeaderRpc}, which follows its leader and gives up after {@code giveUpMs} without one.
     */
    RpcClient[] connectOthers(Transport transport, long giveUpMs) {
        RpcClient[] peers = new RpcClient[count()];
        for (int p = 0; p < peers.length; p++) {
            if (p != partition) {
                List<HostPort> members = HostPort.parseGroups(entries.get(p)).get(0);
                peers[p] = members.size() > 1 ? new LeaderRpc(transport, members, giveUpMs)
                        : transport.connect(namenodes.get(p).toSocketAddress());
            }
        }
        return peers;
    }
}
