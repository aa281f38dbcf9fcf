package io.tarn.datanode.replication;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.GenerationTable;
import io.tarn.replication.BlockRange;
import io.tarn.replication.PersistentState;
import io.tarn.replication.ReplicationConfig;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.GroupMembers;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.GroupStore;
import io.tarn.replication.host.ImageStore;
import io.tarn.replication.host.JournalWriter;
import io.tarn.replication.host.MemoryJournal;
import io.tarn.replication.host.ReplicaJournal;
import io.tarn.replication.host.ReplicationHost;

/**
 * One datanode's replication side for tests and the host benchmark: its own transport and RPC
 * server on loopback, a {@link ReplicationHost} with a journal writer, one heap region of block
 * state and a journal directory. Datanode {@code id} checks tokens as a datanode registered with id
 * {@code id} at a namenode whose key is {@code tokens}.
 */
final class Node implements AutoCloseable {
    final Transport transport = Transports.create(TarnConfig.defaults());
    final HeapRegions regions;
    final GenerationTable generations;
    final int blockSize;
    final Path journals;
    final boolean memoryJournal;
    final ReplicationHost host;
    final JournalWriter writer;
    final RpcServer server;
    private boolean closed;

    Node(int id, Path journals, boolean memoryJournal, int regionSize, int blockSize, ReplicationConfig config,
         BlockTokens tokens, int port) throws Exception {
        this.journals = journals;
        this.memoryJournal = memoryJournal;
        this.regions = new HeapRegions(1, regionSize);
        this.generations = GenerationTable.inMemory(regionSize, 1, blockSize);
        this.blockSize = blockSize;
        ReplicationHost.Settings settings = new ReplicationHost.Settings(config, TimeUnit.MILLISECONDS.toNanos(1),
                TimeUnit.SECONDS.toNanos(2), 1, 64L << 20);
        host = new ReplicationHost(transport, settings, "datanode", "test-dn" + id);
        writer = new JournalWriter(JournalWriter.DEFAULT_CAPACITY, host);
        server = transport.bind(new InetSocketAddress("127.0.0.1", port), new ReplicaService(host,
                (group, region, slot, generation, token, stamp, mode) -> tokens.check(token, stamp, id, region, slot,
                        generation, mode)));
    }

    /** Hosts this datanode's replica of {@code members.groupId()}, from its journal (or {@code ifNew}). */
    GroupRunner join(GroupMembers members, PersistentState ifNew) throws Exception {
        return join(members, ifNew, store -> store);
    }

    /** Hosts this datanode's replica of a group over the store {@code wrap} makes of the region's. */
    GroupRunner join(GroupMembers members, PersistentState ifNew, UnaryOperator<BlockGroupStore> wrap)
            throws Exception {
        long group = members.groupId();
        ReplicaJournal journal = memoryJournal ? new MemoryJournal(group, ifNew, host)
                : GroupJournal.open(group, GroupJournal.directory(journals, group), ifNew, writer);
        return host.create(members, wrap.apply(store()), journal, false,
                memoryJournal ? null : GroupJournal.directory(journals, group));
    }

    /** Hosts a replica of a group whose journal keeps its checkpoint images in {@code images}. */
    GroupRunner join(GroupMembers members, PersistentState ifNew, ImageStore images) throws Exception {
        long group = members.groupId();
        Path dir = GroupJournal.directory(journals, group);
        ReplicaJournal journal = GroupJournal.open(group, dir, ifNew, writer, images,
                GroupJournal.DEFAULT_SEGMENT_BYTES);
        return host.create(members, store(), journal, false, dir);
    }

    RegionGroupStore store() {
        return new RegionGroupStore(regions, generations, 0, blockSize);
    }

    byte[] bytes() {
        return store().read(new BlockRange(0, (int) regions.regionSize()));
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        host.close();
        writer.close();
        server.close();
        transport.close();
    }
}
