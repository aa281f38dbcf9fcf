package io.tarn.client;

import io.tarn.common.config.HostPort;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.Partitions;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.NamenodeProtocol.PartitionMap;
import io.tarn.rpc.LeaderRpc;
import io.tarn.rpc.Transport;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The namenodes of a cluster as one client reaches them, and which one each request goes to
 * (docs/partitioning.md): a path by the hash of its last component, a file id by the partition in
 * it, directory creation to partition 0, the coordinator.
 *
 * <p>The client is configured with one namenode (any of them: a {@code tarn://host:port} URI names
 * one), or the members of one partition's replicated group. On first use it asks that namenode for
 * the partition map and connects to the others; the answering namenode keeps the connection already
 * open. A partition the map lists as a group's members is reached through a {@link LeaderRpc},
 * which follows its leader. Until the map is known, requests wait for
 * it; afterwards {@link #known()} hands out the array without allocating, for the hot paths.
 */
final class Namenodes implements AutoCloseable {
    private final Transport transport;
    private final long giveUpMs;
    private final NamenodeClient seed;
    /** The seed's connection when it is a replicated group's (it learns the members from the map), else null. */
    private final LeaderRpc seedGroup;
    private volatile NamenodeClient[] partitions;
    private CompletableFuture<NamenodeClient[]> discovery; // guarded by this

    /** The first partition's namenode, and no group. */
    Namenodes(Transport transport, HostPort seedAddress) {
        this(transport, List.of(seedAddress), 0);
    }

    /**
     * @param seedMembers the configured entry: one namenode, or the members of a replicated group
     * @param giveUpMs    how long a call to a group tries members that cannot be reached
     */
    Namenodes(Transport transport, List<HostPort> seedMembers, long giveUpMs) {
        this.transport = transport;
        this.giveUpMs = giveUpMs;
        this.seedGroup = seedMembers.size() > 1 ? new LeaderRpc(transport, seedMembers, giveUpMs) : null;
        this.seed = new NamenodeClient(seedGroup != null ? seedGroup
                : transport.connect(seedMembers.get(0).toSocketAddress()));
    }

    /** The namenode given in the configuration, before the map is known (for messages). */
    NamenodeClient seed() {
        return seed;
    }

    /** Every namenode in partition order, or null before the first answer. */
    NamenodeClient[] known() {
        return partitions;
    }

    /** Every namenode in partition order, once the map is known. */
    CompletableFuture<NamenodeClient[]> all() {
        NamenodeClient[] k = partitions;
        if (k != null) {
            return CompletableFuture.completedFuture(k);
        }
        synchronized (this) {
            if (discovery == null || discovery.isCompletedExceptionally()) {
                discovery = seed.partitions().thenApply(this::connect);
            }
            return discovery;
        }
    }

    private synchronized NamenodeClient[] connect(PartitionMap map) {
        if (partitions != null) {
            return partitions;
        }
        List<String> addresses = map.addresses();
        NamenodeClient[] out = new NamenodeClient[addresses.size()];
        for (int i = 0; i < out.length; i++) {
            List<HostPort> members = HostPort.parseGroups(addresses.get(i)).get(0);
            if (i == map.partition() && (seedGroup != null || members.size() == 1)) {
                if (seedGroup != null) {
                    seedGroup.learn(members);
                }
                out[i] = seed;
            } else {
                out[i] = new NamenodeClient(members.size() > 1 ? new LeaderRpc(transport, members, giveUpMs)
                        : transport.connect(members.get(0).toSocketAddress()));
            }
        }
        partitions = out;
        return out;
    }

    /** The index of the namenode owning files named like the last component of {@code path}. */
    static int forPath(String path, int count) throws TarnException {
        if (count == 1) {
            return 0;
        }
        List<String> comps = TarnPath.components(path);
        return comps.isEmpty() ? 0 : Partitions.ofName(comps.get(comps.size() - 1), count);
    }

    /** {@code call} on the namenode owning {@code path}. */
    <T> CompletableFuture<T> byPath(String path, Function<NamenodeClient, CompletableFuture<T>> call) {
        return all().thenCompose(nns -> {
            try {
                return call.apply(nns[forPath(path, nns.length)]);
            } catch (TarnException e) {
                return CompletableFuture.failedFuture(e);
            }
        });
    }

    /** {@code call} on the namenode that created file {@code fileId}. */
    <T> CompletableFuture<T> byId(long fileId, Function<NamenodeClient, CompletableFuture<T>> call) {
        NamenodeClient[] k = partitions;
        if (k != null) {
            return call.apply(k[index(fileId, k.length)]);
        }
        return all().thenCompose(nns -> call.apply(nns[index(fileId, nns.length)]));
    }

    private static int index(long fileId, int count) {
        int p = FileIds.partition(fileId);
        return p < count ? p : 0; // an id from no partition of this cluster: let partition 0 say it is unknown
    }

    /**
     * {@code call} on partition {@code p}, which an answer named as the one to ask instead; on
     * partition 0 when this client's map has no such partition (that namenode then answers for
     * itself).
     */
    <T> CompletableFuture<T> byPartition(int p, Function<NamenodeClient, CompletableFuture<T>> call) {
        return all().thenCompose(nns -> call.apply(nns[p >= 0 && p < nns.length ? p : 0]));
    }

    /** {@code call} on partition 0, which sequences directory operations. */
    <T> CompletableFuture<T> coordinator(Function<NamenodeClient, CompletableFuture<T>> call) {
        return all().thenCompose(nns -> call.apply(nns[0]));
    }

    @Override
    public synchronized void close() {
        NamenodeClient[] k = partitions;
        boolean seedClosed = false;
        if (k != null) {
            for (NamenodeClient c : k) {
                c.close();
                seedClosed |= c == seed;
            }
        }
        if (!seedClosed) {
            seed.close(); // the map had no partition for it, or named its group's members
        }
    }
}
