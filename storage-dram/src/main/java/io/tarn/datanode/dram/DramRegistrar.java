package io.tarn.datanode.dram;

import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.AdminProtocol.BlockKeys;
import io.tarn.common.protocol.AdminProtocol.BlockReport;
import io.tarn.common.protocol.AdminProtocol.LostRegion;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.BlockService;
import io.tarn.datanode.GenerationTable;
import io.tarn.datanode.NamenodeLinks;
import io.tarn.datanode.RegionShare;
import io.tarn.datanode.Registration;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.IntConsumer;

/**
 * What a DRAM datanode tells each namenode when it registers (who it is, where it serves, which
 * share of its regions that namenode manages) and how it applies each answer to its
 * {@link BlockService} and generation table.
 *
 * <p>Called by the {@link NamenodeLinks}' thread; both methods are synchronized anyway because they
 * read and write state of every partition (rare calls, no contention).
 */
final class DramRegistrar implements NamenodeLinks.Registrar {
    private final DramStorage storage;
    private final BlockService service;
    private final List<HostPort> namenodes;
    private final String host;
    private final int port;
    private final int storageClass;
    /** Per partition, set once its first registration succeeded: later ones report its regions intact. */
    private final boolean[] everRegistered;
    /** Told each partition that registered this datanode (hosts again its groups found on disk). */
    private final IntConsumer afterRegistration;

    /**
     * @param host         advertised host of the data port
     * @param port         the data port
     * @param storageClass {@code tarn.datanode.storage.class}
     * @param afterRegistration called with each partition whose registration was applied
     */
    DramRegistrar(DramStorage storage, BlockService service, List<HostPort> namenodes, String host, int port,
                  int storageClass, IntConsumer afterRegistration) {
        this.afterRegistration = afterRegistration;
        this.storage = storage;
        this.service = service;
        this.namenodes = namenodes;
        this.host = host;
        this.port = port;
        this.storageClass = storageClass;
        this.everRegistered = new boolean[namenodes.size()];
    }

    /** The registration for one namenode: its share of the regions, intact when it had them before. */
    @Override
    public synchronized RegisterRequest request(int partition) {
        UUID id = storage.storageId();
        RegionShare share = share(partition);
        boolean intact = everRegistered[partition] || storage.intact();
        return new RegisterRequest(id.getMostSignificantBits(), id.getLeastSignificantBits(), host, port,
                storageClass, storage.regions().regionSize(), share.count(), share.firstRegion(), share.stride(),
                intact, service.offersShortCircuit(), intact ? report(share) : null, lost(share));
    }

    /**
     * The regions of {@code partition}'s share out of service here, after looking at the region
     * files again (at most every {@link DramStorage#CHECK_GAP_NANOS}): what changed since the
     * registration's block report, repeated in every heartbeat until the datanode restarts.
     */
    @Override
    public synchronized List<LostRegion> lostRegions(int partition) {
        storage.checkRegionsNow(false);
        return lost(share(partition));
    }

    private List<LostRegion> lost(RegionShare share) {
        List<LostRegion> out = null;
        for (int i = 0; i < share.count(); i++) {
            int region = share.firstRegion() + i * share.stride();
            String why = storage.regions().failure(region);
            if (why != null) {
                if (out == null) {
                    out = new ArrayList<>();
                }
                out.add(new LostRegion(region, why));
            }
        }
        return out == null ? List.of() : out;
    }

    /** The generations the slots of {@code share}'s regions hold, as its generation table lays them out. */
    private BlockReport report(RegionShare share) {
        GenerationTable table = storage.currentGenerations();
        int perRegion = table.blocksPerRegion();
        int[] generations = new int[share.count() * perRegion];
        for (int i = 0; i < share.count(); i++) {
            int region = share.firstRegion() + i * share.stride();
            for (int b = 0; b < perRegion; b++) {
                generations[i * perRegion + b] = table.get(region, b);
            }
        }
        return new BlockReport(table.blockSize(), generations);
    }

    /**
     * Applies one namenode's registration: from now on its regions are checked against its id and
     * key. When it forgot its blocks, only its regions' generations are forgotten.
     */
    @Override
    public synchronized void registered(int partition, RegisterResponse response) throws IOException {
        int blockSize = response.blockSize();
        long regionSize = storage.regions().regionSize();
        if (blockSize <= 0 || Integer.bitCount(blockSize) != 1 || regionSize % blockSize != 0) {
            throw new IOException("block size " + blockSize + " does not divide the region size " + regionSize);
        }
        checkSameBlockSize(partition, blockSize);
        GenerationTable generations = storage.generations(blockSize);
        if (response.resetGenerations()) {
            Registration before = service.registration(partition);
            if (before != null && before.tokens().fingerprint() != response.keys().fingerprint()) {
                // Restarted without its journal: its old tokens stop before the generations they
                // name are reset, so none reads a reset block as if it had never been written.
                service.retire(partition);
            }
            generations.reset(share(partition));
        }
        service.register(partition, new Registration(response.datanodeId(), blockSize,
                BlockTokens.holding(response.keys().fingerprint(), response.keys().keys()), generations));
        everRegistered[partition] = true;
        afterRegistration.accept(partition);
    }

    /**
     * A heartbeat answer's block keys: the registration checks tokens with them from now on. Keys
     * of another master (the namenode restarted with a new one, and this datanode has not
     * registered with it since) wait for that registration.
     */
    @Override
    public void keys(int partition, BlockKeys keys) {
        Registration reg = service.registration(partition);
        if (reg != null && reg.tokens().fingerprint() == keys.fingerprint()) {
            reg.tokens().hold(keys.fingerprint(), keys.keys());
        }
    }

    private RegionShare share(int partition) {
        return RegionShare.of(partition, namenodes.size(), storage.regions().regionCount());
    }

    /**
     * One generation table covers every region, laid out for one block size: a namenode carving
     * another size than the others registered with is refused (before the table is touched) until
     * the cluster agrees.
     */
    private void checkSameBlockSize(int partition, int blockSize) throws IOException {
        for (int p = 0; p < namenodes.size(); p++) {
            Registration other = service.registration(p);
            if (p != partition && other != null && other.blockSize() != blockSize) {
                throw new IOException("it carves blocks of " + blockSize + " bytes, but namenode " + p + " ("
                        + namenodes.get(p) + ") uses " + other.blockSize() + "; every namenode must have the same "
                        + TarnKeys.BLOCK_SIZE + " (restart this datanode after changing it)");
            }
        }
    }
}
