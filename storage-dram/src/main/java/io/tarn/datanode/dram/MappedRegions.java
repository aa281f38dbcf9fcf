package io.tarn.datanode.dram;

import io.tarn.common.protocol.ShortCircuitProtocol;
import io.tarn.datanode.OwnerOnly;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Regions memory-mapped from files {@code region-00000 ...} in a storage directory on tmpfs or
 * hugetlbfs. The data lives in the kernel's page cache, not the JVM, so it outlives a crashed or
 * killed datanode and a restarted one maps the same bytes again.
 *
 * <p>The files stay exposed to whoever can write the directory while they are mapped. {@link #check}
 * looks at them again: a file cut short takes its region out of service (its memory is gone and
 * would fault on access); a file removed or replaced by another leaves the mapping intact, so the
 * region is still served, but no longer offered to short-circuit clients, who would open the path.
 */
final class MappedRegions extends MemoryRegions {
    private static final Logger LOG = LoggerFactory.getLogger(MappedRegions.class);
    private static final Pattern REGION_FILE = Pattern.compile("region-\\d+");

    private final Path dir;
    /** Each region file's identity (device and inode) when it was mapped. */
    private final Object[] fileKeys;
    /** Why a region's path no longer names its memory, or null. */
    private final AtomicReferenceArray<String> detached;

    private MappedRegions(Path dir, ByteBuffer[] regions, Object[] fileKeys, int regionSize) {
        super(regions, regionSize);
        this.dir = dir;
        this.fileKeys = fileKeys;
        this.detached = new AtomicReferenceArray<>(regions.length);
    }

    /** The file of region {@code index}. */
    static Path file(Path dir, int index) {
        return dir.resolve(ShortCircuitProtocol.regionFile(index));
    }

    /**
     * Maps {@code count} region files of {@code regionSize} bytes in {@code dir}, creating (sparse,
     * zero-filled) files that do not exist yet. With {@code pretouch}, writes a zero into every page
     * of the (new, all-zero) files so the kernel allocates them now rather than on the first write.
     */
    static MappedRegions map(Path dir, int count, int regionSize, boolean pretouch) throws IOException {
        return map(dir, count, regionSize, pretouch, Set.of());
    }

    /**
     * As {@link #map(Path, int, int, boolean)}; the regions {@code remade} (files that were missing
     * or cut short, now extended with zeros to a whole region) are touched as new ones.
     */
    static MappedRegions map(Path dir, int count, int regionSize, boolean pretouch, Set<Integer> remade)
            throws IOException {
        ByteBuffer[] regions = new ByteBuffer[count];
        Object[] keys = new Object[count];
        for (int i = 0; i < count; i++) {
            Path file = file(dir, i);
            try (FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE), OwnerOnly.file())) {
                // Grows a shorter file to the whole region; the mapping stays valid after the channel closes.
                regions[i] = ch.map(FileChannel.MapMode.READ_WRITE, 0, regionSize);
            }
            keys[i] = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
            if (pretouch || remade.contains(i)) {
                touch(regions[i]);
            }
        }
        return new MappedRegions(dir, regions, keys, regionSize);
    }

    /**
     * Looks at every region file again and takes the regions whose file was cut short out of
     * service (logged once each, at ERROR). Cheap: one {@code stat} per region.
     *
     * @return the regions taken out of service by this check, with why
     */
    List<Lost> check() {
        List<Lost> lost = new ArrayList<>();
        long size = regionSize();
        for (int i = 0; i < regionCount(); i++) {
            if (failure(i) != null) {
                continue;
            }
            Path file = file(dir, i);
            BasicFileAttributes now;
            try {
                now = Files.readAttributes(file, BasicFileAttributes.class);
            } catch (NoSuchFileException e) {
                detach(i, file.getFileName() + " was removed");
                continue;
            } catch (IOException e) {
                LOG.debug("Cannot look at {}: {}", file, e.toString());
                continue;
            }
            if (!Objects.equals(now.fileKey(), fileKeys[i])) {
                detach(i, file.getFileName() + " was replaced by another file");
            } else if (now.size() < size) {
                String why = file + " was cut to " + now.size() + " bytes under the mapping of a region of " + size;
                if (fail(i, why)) {
                    LOG.error("Region {} is out of service: {}. Its memory is gone, so every block in it is lost; "
                            + "reads of them fail with DATA_LOST and the namenode is told with the next heartbeat. "
                            + "Something cut the file (a tmpfs clean-up, an operator): keep {} to this datanode. "
                            + "A restart makes the file whole again (the region then serves new blocks).", i, why,
                            dir);
                    lost.add(new Lost(i, why));
                }
            }
        }
        return lost;
    }

    /** A region taken out of service and why. */
    record Lost(int region, String why) {
    }

    private void detach(int region, String why) {
        if (detached.compareAndSet(region, null, why)) {
            LOG.warn("Region {}: {} while mapped. Its data is still served from the mapping, but not offered to "
                    + "short-circuit clients any more, and a restart of this datanode will not find it (its "
                    + "blocks are then lost). Something removed it (a tmpfs clean-up, an operator): keep {} to "
                    + "this datanode.", region, why, dir);
        }
    }

    @Override
    public String notShareable(int region) {
        return detached.get(region);
    }

    /** Only for memory known to be all zeros, and before anyone else can write it. */
    private static void touch(ByteBuffer region) {
        for (int at = 0; at < region.capacity(); at += PAGE) {
            region.put(at, (byte) 0);
        }
    }

    /** The smallest page size; touching one byte per page faults every page in. */
    private static final int PAGE = 4096;

    /**
     * Null when {@code dir} holds regions 0..count-1 of {@code regionSize} bytes, some of which may
     * be missing or cut short ({@link #damaged}), and no other; otherwise what differs.
     */
    static String whyNotMatching(Path dir, int count, long regionSize) throws IOException {
        List<Path> files;
        try (Stream<Path> entries = Files.list(dir)) {
            files = entries.filter(p -> REGION_FILE.matcher(p.getFileName().toString()).matches()).toList();
        }
        for (Path file : files) {
            String digits = file.getFileName().toString().substring("region-".length());
            int index = digits.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(digits);
            if (index >= count || !file.equals(file(dir, index))) {
                return "it holds " + file.getFileName() + " but " + count + " regions are configured";
            }
        }
        for (int i = 0; i < count; i++) {
            Path file = file(dir, i);
            if (Files.exists(file) && !Files.isRegularFile(file)) {
                return file.getFileName() + " is not a regular file";
            }
            long size = Files.exists(file) ? Files.size(file) : 0;
            if (size > regionSize) {
                return file.getFileName() + " holds " + size + " bytes but regions of " + regionSize
                        + " bytes are configured";
            }
        }
        return null;
    }

    /** The regions of {@code dir} whose file is missing or shorter than a region (their data is gone). */
    static List<Integer> damaged(Path dir, int count, long regionSize) throws IOException {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Path file = file(dir, i);
            if (!Files.exists(file) || Files.size(file) < regionSize) {
                out.add(i);
            }
        }
        return out;
    }
}
