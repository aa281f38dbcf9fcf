package io.tarn.datanode;

import io.tarn.common.config.HostPort;
import io.tarn.common.protocol.AdminProtocol.BlockKeys;
import io.tarn.common.protocol.AdminProtocol.LostRegion;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.rpc.LeaderRpc;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A datanode's links to every namenode of the cluster, one {@link NamenodeLink} per entry of
 * {@code tarn.namenode.address}, in partition order. Each registers the datanode's share of regions
 * for its partition ({@link RegionShare}), heartbeats and deregisters on its own, so a namenode that
 * is down is retried every interval while the others' regions go on being served.
 *
 * <p>All links run on one scheduler thread owned here: one thread per datanode however many
 * namenodes there are, and no lock between links. {@link #close()} waits for that thread, so no
 * registration is applied after it returns.
 */
public final class NamenodeLinks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NamenodeLinks.class);

    /** What the datanode sends to, and does with the answer of, each namenode; called on the links' thread. */
    public interface Registrar {
        /** The registration for partition {@code partition} (built anew for each attempt). */
        RegisterRequest request(int partition);

        /** Applies partition {@code partition}'s reply; throws when it cannot be used (the link retries later). */
        void registered(int partition, RegisterResponse response) throws Exception;

        /**
         * Partition {@code partition}'s block keys of the moment, from a heartbeat answer: the
         * registration checks tokens with them from now on.
         */
        default void keys(int partition, BlockKeys keys) {
        }

        /** The regions of partition {@code partition}'s share lost since the registration (for each heartbeat). */
        default List<LostRegion> lostRegions(int partition) {
            return List.of();
        }
    }

    private final ScheduledExecutorService thread;
    private final List<NamenodeLink> links;

    /**
     * @param namenodes  the cluster's namenodes in partition order
     * @param interval   heartbeat and retry interval
     * @param threadName name of the links' thread, for thread dumps
     */
    public NamenodeLinks(Transport transport, List<HostPort> namenodes, Registrar registrar, Duration interval,
                         String threadName) {
        this(transport, namenodes, registrar, GroupCommands.NONE, interval, threadName);
    }

    /**
     * @param groups the datanode's block groups, reported in heartbeats and told the namenodes' commands
     */
    public NamenodeLinks(Transport transport, List<HostPort> namenodes, Registrar registrar, GroupCommands groups,
                         Duration interval, String threadName) {
        this(transport, namenodes.stream().map(List::of).toList(), registrar, groups, interval, threadName, 0);
    }

    /**
     * @param namenodes every partition's namenode, or the members of its replicated group (whose link
     *                  follows the group's leader: {@link LeaderRpc}), in partition order
     * @param giveUpMs  how long a call to a group tries members that cannot be reached
     */
    public NamenodeLinks(Transport transport, List<List<HostPort>> namenodes, Registrar registrar,
                         GroupCommands groups, Duration interval, String threadName, long giveUpMs) {
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        List<NamenodeLink> made = new ArrayList<>(namenodes.size());
        try {
            for (int p = 0; p < namenodes.size(); p++) {
                List<HostPort> members = namenodes.get(p);
                RpcClient client = members.size() > 1 ? new LeaderRpc(transport, members, giveUpMs)
                        : transport.connect(members.get(0).toSocketAddress());
                made.add(link(client, p, registrar, groups, interval));
            }
        } catch (RuntimeException e) {
            made.forEach(NamenodeLink::close);
            thread.shutdownNow();
            throw e;
        }
        this.links = List.copyOf(made);
    }

    private NamenodeLink link(RpcClient client, int partition, Registrar registrar, GroupCommands groups,
                              Duration interval) {
        return new NamenodeLink(client, () -> registrar.request(partition),
                new NamenodeLink.Listener() {
                    @Override
                    public void registered(RegisterResponse response) throws Exception {
                        registrar.registered(partition, response);
                    }

                    @Override
                    public void keys(BlockKeys keys) {
                        registrar.keys(partition, keys);
                    }
                }, interval, thread, partition, groups,
                () -> registrar.lostRegions(partition));
    }

    /** Starts registering with every namenode in the background; returns immediately. */
    public void start() {
        links.forEach(NamenodeLink::start);
    }

    /**
     * Asks partition {@code partition}'s namenode for its commands now ({@link NamenodeLink#heartbeatSoon});
     * every namenode when {@code partition} is negative or unknown.
     */
    public void heartbeatSoon(int partition) {
        if (partition >= 0 && partition < links.size()) {
            links.get(partition).heartbeatSoon();
        } else {
            links.forEach(NamenodeLink::heartbeatSoon);
        }
    }

    /** How many namenodes. */
    public int count() {
        return links.size();
    }

    /** The link to partition {@code partition}'s namenode. */
    public NamenodeLink get(int partition) {
        return links.get(partition);
    }

    /** True while every namenode has accepted this datanode. */
    public boolean allRegistered() {
        for (NamenodeLink link : links) {
            if (!link.isRegistered()) {
                return false;
            }
        }
        return true;
    }

    /** Waits until every namenode has accepted this datanode; true when all did within {@code timeout}. */
    public boolean awaitRegistered(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (NamenodeLink link : links) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            if (!link.awaitRegistered(left)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Says goodbye to every namenode at once and waits at most {@code timeout} for all of them
     * (see {@link NamenodeLink#deregister(boolean, Duration)}).
     *
     * @return how many namenodes acknowledged
     */
    public int deregister(boolean dataKept, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<CompletableFuture<Boolean>> sent = new ArrayList<>(links.size());
        for (NamenodeLink link : links) {
            sent.add(link.startDeregistration(dataKept));
        }
        int acknowledged = 0;
        for (int p = 0; p < links.size(); p++) {
            if (links.get(p).awaitDeregistered(sent.get(p), deadline)) {
                acknowledged++;
            }
        }
        return acknowledged;
    }

    /**
     * Stops every link (nothing more is sent) and waits briefly for the links' thread, so that no
     * registration is applied after the caller frees storage.
     */
    @Override
    public void close() {
        links.forEach(NamenodeLink::close);
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                LOG.warn("Namenode link thread did not stop within 5 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
