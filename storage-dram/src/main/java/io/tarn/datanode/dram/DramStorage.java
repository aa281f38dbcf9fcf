package io.tarn.datanode.dram;

import io.tarn.common.config.DramMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.ShortCircuitProtocol;
import io.tarn.datanode.GenerationTable;
import io.tarn.datanode.RegionStore;
import io.tarn.datanode.StorageDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory of one DRAM datanode: its regions, its generation table and, in mmap mode, the
 * storage directory holding both.
 *
 * <p>Chooses the backing from {@code tarn.datanode.dram.mode}: {@code mmap} maps files under
 * {@code tarn.datanode.dram.path} and fails with the reason when it cannot; {@code auto} does the
 * same but falls back to direct memory (and logs why); {@code direct} never touches the file
 * system. In mmap mode an abandoned storage directory with the configured region geometry is
 * reused, data and generations included, and reported as {@linkplain #intact() intact}.
 */
final class DramStorage {
    private static final Logger LOG = LoggerFactory.getLogger(DramStorage.class);

    /** The generation table's file inside the storage directory. */
    static final String GENERATIONS_FILE = ShortCircuitProtocol.GENERATIONS_FILE;

    private final UUID storageId;
    private final StorageDirectory directory;
    private final MemoryRegions regions;
    private final boolean intact;
    private volatile GenerationTable generations;

    private DramStorage(UUID storageId, StorageDirectory directory, MemoryRegions regions,
                        GenerationTable generations, boolean intact) {
        this.storageId = storageId;
        this.directory = directory;
        this.regions = regions;
        this.generations = generations;
        this.intact = intact;
    }

    /** Opens the storage the configuration asks for. */
    static DramStorage open(TarnConfig config) throws IOException {
        long capacity = config.get(TarnKeys.DRAM_CAPACITY);
        int regionSize = config.getInt(TarnKeys.DRAM_REGION_SIZE);
        long count = capacity / regionSize;
        if (count > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(TarnKeys.DRAM_CAPACITY + " / " + TarnKeys.DRAM_REGION_SIZE
                    + " gives " + count + " regions; use larger regions");
        }
        int regionCount = (int) count;
        int blockSize = config.getInt(TarnKeys.BLOCK_SIZE);
        DramMode mode = config.get(TarnKeys.DRAM_MODE);
        if (mode == DramMode.DIRECT) {
            return direct(regionCount, regionSize, blockSize);
        }
        String pathText = config.get(TarnKeys.DRAM_PATH);
        try {
            if (pathText.isBlank()) {
                throw new IOException(TarnKeys.DRAM_PATH + " is empty");
            }
            return mapped(Path.of(pathText), regionCount, regionSize, blockSize, config.get(TarnKeys.DRAM_PRETOUCH));
        } catch (IOException | RuntimeException e) {
            if (mode == DramMode.MMAP) {
                throw new IOException(TarnKeys.DRAM_MODE + " = mmap, but " + TarnKeys.DRAM_PATH + " = '" + pathText
                        + "' cannot hold " + regionCount + " regions of " + regionSize + " bytes: " + e.getMessage()
                        + ". Point it at a writable tmpfs or hugetlbfs mount with enough room, or use mode auto or "
                        + "direct.", e);
            }
            LOG.warn("{} = '{}' is not usable ({}); keeping regions in direct memory instead, so a restart "
                    + "loses their data", TarnKeys.DRAM_PATH, pathText, e.getMessage() != null ? e.getMessage() : e);
            return direct(regionCount, regionSize, blockSize);
        }
    }

    private static final String HUGETLBFS = "hugetlbfs";
    /** Where Linux keeps the counters of each huge page size's pool. */
    private static final Path HUGE_PAGE_POOLS = Path.of("/sys/kernel/mm/hugepages");

    /**
     * Bytes {@code store} can still give. A hugetlbfs mount without a {@code size=} limit reports no
     * space at all (its pages come from the kernel's pool of huge pages), so for one that reports
     * none, this is the pool's pages of the mount's page size that are neither in use nor promised
     * to a mapping, read from {@code pools} (normally {@code /sys/kernel/mm/hugepages}).
     */
    static long usableSpace(FileStore store, Path pools) throws IOException {
        long usable = store.getUsableSpace();
        if (usable != 0 || store.getTotalSpace() != 0 || !HUGETLBFS.equals(store.type())) {
            return usable;
        }
        long page = store.getBlockSize();
        return hugePoolBytes(pools.resolve("hugepages-" + page / 1024 + "kB"), page);
    }

    /**
     * Bytes in the huge page pool {@code pool} (a {@code hugepages-<size>kB} directory) of pages of
     * {@code page} bytes that no one uses or has been promised; 0 when the pool cannot be read.
     */
    static long hugePoolBytes(Path pool, long page) {
        try {
            long free = Long.parseLong(Files.readString(pool.resolve("free_hugepages")).trim());
            long promised = Long.parseLong(Files.readString(pool.resolve("resv_hugepages")).trim());
            return Math.max(0, free - promised) * page;
        } catch (IOException | NumberFormatException e) {
            LOG.debug("Cannot read the huge page pool {}: {}", pool, e.toString());
            return 0;
        }
    }

    private static DramStorage direct(int regionCount, int regionSize, int blockSize) {
        MemoryRegions regions = DirectRegions.allocate(regionCount, regionSize);
        GenerationTable generations = GenerationTable.inMemory(regionSize, regionCount, blockSize);
        UUID id = UUID.randomUUID();
        LOG.info("DRAM storage {}: {} regions of {} bytes in direct memory", id, regionCount, regionSize);
        return new DramStorage(id, null, regions, generations, false);
    }

    private static DramStorage mapped(Path root, int regionCount, int regionSize, int blockSize, boolean pretouch)
            throws IOException {
        StorageDirectory dir = StorageDirectory.claim(root, (path, id) -> whyNotReusable(path, id, regionCount,
                regionSize));
        try {
            FileStore store = Files.getFileStore(dir.path());
            boolean hugetlbfs = HUGETLBFS.equals(store.type());
            if (hugetlbfs && regionSize % store.getBlockSize() != 0) {
                // The kernel refuses the mapping with a bare EINVAL otherwise.
                throw new IOException("regions of " + regionSize + " bytes do not fill whole huge pages of "
                        + store.getBlockSize() + " bytes, as a hugetlbfs mount needs; set "
                        + TarnKeys.DRAM_REGION_SIZE + " to a multiple of " + store.getBlockSize());
            }
            Path tableFile = dir.path().resolve(GENERATIONS_FILE);
            GenerationTable generations;
            Set<Integer> remade = Set.of();
            if (dir.reused()) {
                generations = GenerationTable.open(tableFile, dir.storageId(), regionSize, regionCount);
                remade = remake(dir.path(), generations, regionCount, regionSize);
            } else {
                long needed = (long) regionCount * regionSize;
                // tmpfs allocates pages only when first written; running out later would crash the
                // JVM with SIGBUS, so refuse a capacity the mount cannot hold now.
                long usable = usableSpace(store, HUGE_PAGE_POOLS);
                if (usable < needed) {
                    throw new IOException(dir.path() + " has " + usable + " bytes free, " + needed + " needed"
                            + (hugetlbfs ? " (free huge pages of " + store.getBlockSize()
                            + " bytes; reserve more with sysctl vm.nr_hugepages, or mount with size=)" : ""));
                }
                generations = GenerationTable.create(tableFile, dir.storageId(), regionSize, regionCount, blockSize);
            }
            // Regions of a reused directory are already backed by pages holding their data.
            MemoryRegions regions = MappedRegions.map(dir.path(), regionCount, regionSize, pretouch && !dir.reused(),
                    remade);
            LOG.info("DRAM storage {}: {} regions of {} bytes mapped from {} ({})", dir.storageId(), regionCount,
                    regionSize, dir.path(), dir.reused() ? "reused with its data" : "new");
            return new DramStorage(dir.storageId(), dir, regions, generations, dir.reused());
        } catch (IOException | RuntimeException e) {
            if (dir.reused()) {
                dir.release();
            } else {
                dir.delete();
            }
            throw e;
        }
    }

    /**
     * The regions of a reused directory whose file is missing or was cut short: their data is gone.
     * Their slots in the generation table go back to 0, so the block report shows every block in
     * them lost, and their files are made whole again (by the mapping) to serve new blocks.
     */
    private static Set<Integer> remake(Path dir, GenerationTable generations, int regionCount, int regionSize)
            throws IOException {
        List<Integer> damaged = MappedRegions.damaged(dir, regionCount, regionSize);
        for (int region : damaged) {
            for (int b = 0; b < generations.blocksPerRegion(); b++) {
                generations.set(region, b, 0);
            }
        }
        if (!damaged.isEmpty()) {
            LOG.warn("Region file(s) of {} missing or cut short since the last run: region(s) {}. Their data is "
                    + "lost: the block report shows every block in them lost (their files read DATA_LOST, 'tarn "
                    + "fsck' lists them), and the regions are made whole again to serve new blocks", dir, damaged);
        }
        return Set.copyOf(damaged);
    }

    /**
     * Looks at the region files again ({@link MappedRegions#check}); regions in direct memory cannot
     * be taken away.
     *
     * @return the regions this check took out of service
     */
    List<MappedRegions.Lost> checkRegions() {
        return regions instanceof MappedRegions mapped ? mapped.check() : List.of();
    }

    /** The shortest time between two checks of {@link #checkRegionsNow} unless forced. */
    static final long CHECK_GAP_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
    private final AtomicLong lastCheck = new AtomicLong(System.nanoTime() - CHECK_GAP_NANOS);

    /**
     * {@link #checkRegions} from any thread, at most once per {@link #CHECK_GAP_NANOS} unless
     * {@code force} (an access just faulted); true when this call took a region out of service.
     */
    boolean checkRegionsNow(boolean force) {
        long now = System.nanoTime();
        long last = lastCheck.get();
        if (!force && now - last < CHECK_GAP_NANOS || !lastCheck.compareAndSet(last, now)) {
            return false;
        }
        synchronized (lastCheck) {
            return !checkRegions().isEmpty();
        }
    }

    private static String whyNotReusable(Path dir, UUID id, int regionCount, int regionSize) throws IOException {
        String regionProblem = MappedRegions.whyNotMatching(dir, regionCount, regionSize);
        if (regionProblem != null) {
            return regionProblem;
        }
        // Throws, naming the problem, when the table is missing, incomplete or foreign.
        GenerationTable.open(dir.resolve(GENERATIONS_FILE), id, regionSize, regionCount);
        return null;
    }

    UUID storageId() {
        return storageId;
    }

    RegionStore regions() {
        return regions;
    }

    /** True when the regions were found from an earlier run and still hold its data. */
    boolean intact() {
        return intact;
    }

    /** The effective backing: {@link DramMode#MMAP} or {@link DramMode#DIRECT}. */
    DramMode backing() {
        return directory != null ? DramMode.MMAP : DramMode.DIRECT;
    }

    Optional<Path> directory() {
        return directory == null ? Optional.empty() : Optional.of(directory.path());
    }

    /** The generation table as it is now (laid out for the last registration's block size, or the configured one). */
    GenerationTable currentGenerations() {
        return generations;
    }

    /**
     * The generation table for blocks of {@code blockSize}: the current one, or a new zeroed one
     * when the namenode carves the regions differently from what the table was made for (its old
     * entries would address the wrong blocks).
     */
    synchronized GenerationTable generations(int blockSize) throws IOException {
        GenerationTable current = generations;
        if (current.blockSize() == blockSize) {
            return current;
        }
        LOG.warn("Namenode block size {} differs from the {} the generation table of storage {} was made for; "
                + "starting a new table, so earlier blocks read as never written", blockSize, current.blockSize(),
                storageId);
        GenerationTable next = directory == null
                ? GenerationTable.inMemory(regions.regionSize(), regions.regionCount(), blockSize)
                : GenerationTable.create(directory.path().resolve(GENERATIONS_FILE), storageId, regions.regionSize(),
                        regions.regionCount(), blockSize);
        generations = next;
        return next;
    }

    /** Stops using the memory; deletes the files when {@code deleteFiles}, else leaves them for a restart. */
    void close(boolean deleteFiles) throws IOException {
        regions.close();
        if (directory == null) {
            return;
        }
        if (deleteFiles) {
            directory.delete();
        } else {
            directory.release();
        }
    }
}
