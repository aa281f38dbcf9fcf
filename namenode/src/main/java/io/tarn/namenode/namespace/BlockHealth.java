package io.tarn.namenode.namespace;

import io.tarn.common.protocol.AdminProtocol;
import io.tarn.common.protocol.AdminProtocol.BlockReport;
import io.tarn.common.protocol.AdminProtocol.DamagedFile;
import io.tarn.common.protocol.AdminProtocol.FsckResponse;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.blocks.DatanodeInfo;
import io.tarn.namenode.blocks.DatanodeRegistry;
import io.tarn.namenode.blocks.RegionSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Which files of this namenode have blocks that cannot be read: lost ones (their datanode came back,
 * or stopped, without its data) and unavailable ones (their datanode is dead, or stopped keeping its
 * data). HDFS's fsck finds its missing blocks the same way, by a scan.
 *
 * <p>The namenode's maintenance thread calls {@link #refresh} on every run; it scans the file table
 * only when some datanode's liveness or incarnation changed since the last scan, and then again every
 * {@value #RESCAN_MS} ms while damaged files remain (they may be deleted, or their datanode may come
 * back). A scan allocates nothing for healthy files. Each scan that finds more damaged files than
 * the one before logs a warning naming some of them. {@link #last} is read by I/O threads (CLUSTER_STATUS,
 * FSCK): it is the last scan's immutable report, never a scan of its own.
 */
public final class BlockHealth {
    private static final Logger LOG = LoggerFactory.getLogger(BlockHealth.class);
    /** While damaged files remain, how often they are counted again. */
    static final long RESCAN_MS = 5_000;
    /** Paths named in the warning of a scan. */
    private static final int PATHS_LOGGED = 5;

    private final FileTable table;
    private final DatanodeRegistry datanodes;
    private volatile FsckResponse last = FsckResponse.HEALTHY;
    /** Liveness and incarnation of every datanode at the last scan; the maintenance thread's only. */
    private long fingerprint;
    /** Damaged files at the last scan made outside a registration grace; the maintenance thread's only. */
    private long warned;

    public BlockHealth(FileTable table, DatanodeRegistry datanodes) {
        this.table = table;
        this.datanodes = datanodes;
        this.fingerprint = fingerprint();
    }

    /** The last scan's report ({@link FsckResponse#HEALTHY} before any scan found damage). */
    public FsckResponse last() {
        return last;
    }

    /** Scans when a datanode changed or damage is due for a recount; returns the new report, or null. */
    public FsckResponse refresh(long now) {
        long f = fingerprint();
        FsckResponse before = last;
        boolean changed = f != fingerprint;
        if (!changed && (before.healthy() || now - before.scannedAtMs() < RESCAN_MS)) {
            return null;
        }
        fingerprint = f;
        FsckResponse after = scan(now);
        last = after;
        int awaiting = datanodes.awaitingRegistrations();
        if (awaiting > 0) {
            // After a restart or a failover the datanodes the journal names come back within a heartbeat;
            // the warning waits until they had their chance (rescans go on while files are damaged).
            if (after.damagedFiles() > before.damagedFiles()) {
                LOG.info("{} files have blocks on datanodes that have not registered with this namenode since it "
                        + "started serving ({} awaited)", after.damagedFiles(), awaiting);
            }
            return after;
        }
        if (after.damagedFiles() > warned) {
            LOG.warn("{} files have blocks that cannot be read ({} lost, {} on datanodes that are down), e.g. {}; "
                            + "'tarn fsck' lists them", after.damagedFiles(), after.lostBlocks(),
                    after.unavailableBlocks(), after.files().stream().limit(PATHS_LOGGED).map(DamagedFile::path)
                            .collect(Collectors.joining(", ")));
        } else if (after.healthy() && warned > 0) {
            LOG.info("every block of every file can be read again");
        }
        warned = after.damagedFiles();
        return after;
    }

    /** Counts the damaged files now, listing the first {@link AdminProtocol#MAX_FSCK_FILES}. */
    FsckResponse scan(long now) {
        List<DamagedFile> listed = new ArrayList<>();
        long[] totals = new long[3]; // damaged files, lost blocks, unavailable blocks
        table.forEach(file -> {
            Block[] blocks = file.blocks();
            int lost = 0;
            int unavailable = 0;
            for (Block b : blocks) {
                if (b == null) {
                    continue;
                }
                DatanodeInfo dn = b.datanode();
                if (b.replicated()) {
                    // A group serves while a majority of its members is up with the data.
                    if (b.group().lost()) {
                        lost++;
                    } else if (b.group().liveMembers() <= b.group().members().size() / 2) {
                        unavailable++;
                    }
                } else if (!dn.holds(b)) {
                    lost++;
                } else if (dn.liveness() != DatanodeInfo.Liveness.ALIVE) {
                    unavailable++;
                }
            }
            if (lost + unavailable > 0) {
                totals[0]++;
                totals[1] += lost;
                totals[2] += unavailable;
                if (listed.size() < AdminProtocol.MAX_FSCK_FILES) {
                    listed.add(new DamagedFile(file.path(), file.id(), blocks.length, lost, unavailable));
                }
            }
        });
        return new FsckResponse(now, totals[0], totals[1], totals[2], List.copyOf(listed));
    }

    /**
     * Checks a datanode's block report against the blocks this namenode's files name on it
     * ({@link DatanodeRegistry.ReportChecker}): a block of the datanode's current incarnation, in
     * the registered regions and below its file's size (an open file's next block may not be
     * written yet), whose slot holds another generation lost its data (a slot that never got the
     * write, or that holds a later allocation's). Logs the loss with examples; null when the report
     * is laid out for another block size. With {@code closedOnly}, only closed files' blocks are
     * checked (an open file's block may be allocated while its write is on its way).
     */
    public Map<Long, DatanodeInfo.Lost> checkReport(DatanodeInfo dn, RegionSet regions, BlockReport report,
                                                    boolean closedOnly) {
        int blockSize = datanodes.blockSize();
        int perRegion = dn.blocksPerRegion();
        if (report.blockSize() != blockSize || report.generations().length != (long) regions.count() * perRegion) {
            LOG.warn("{}'s block report is laid out for blocks of {} bytes ({} slots), not {} ({} slots): ignored",
                    dn.describe(), report.blockSize(), report.generations().length, blockSize,
                    (long) regions.count() * perRegion);
            return null;
        }
        Map<Long, DatanodeInfo.Lost> lost = new HashMap<>();
        List<String> examples = new ArrayList<>();
        int incarnation = dn.incarnation();
        table.forEach(file -> {
            if (closedOnly && file.underConstruction()) {
                return;
            }
            Block[] blocks = file.blocks();
            long size = file.size();
            for (int i = 0; i < blocks.length && (long) i * blockSize < size; i++) {
                Block b = blocks[i];
                if (b == null || b.replicated() || b.foreign() || b.datanode() != dn
                        || b.incarnation() != incarnation) {
                    continue;
                }
                int local = regions.local(b.regionId());
                if (local < 0) {
                    continue;
                }
                int held = report.generation(local, b.regionBlock(), perRegion);
                if (held != b.generation()) {
                    lost.put(DatanodeInfo.slot(b.regionId(), b.regionBlock()),
                            new DatanodeInfo.Lost(b.generation(), held));
                    if (examples.size() < PATHS_LOGGED) {
                        examples.add(file.path() + " block " + i + " (generation " + b.generation() + ", the slot "
                                + "holds " + held + ")");
                    }
                }
            }
        });
        if (!lost.isEmpty()) {
            LOG.warn("{}: its block report shows {} block(s) of this namenode's files whose slot holds another "
                            + "generation than the one the namespace names, so their data is lost, e.g. {}; reads "
                            + "of them fail with DATA_LOST and 'tarn fsck' lists their files", dn.describe(),
                    lost.size(), String.join(", ", examples));
        }
        return lost;
    }

    private long fingerprint() {
        long h = 17;
        for (DatanodeInfo dn : datanodes.all()) {
            h = h * 31 + dn.id();
            h = h * 31 + dn.incarnation();
            h = h * 31 + dn.lostBlocks();
            h = h * 31 + dn.liveness().ordinal();
        }
        return h;
    }
}
