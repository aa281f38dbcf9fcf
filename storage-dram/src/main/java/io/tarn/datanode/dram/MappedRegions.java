package io.tarn.datanode.dram;

import io.tarn.common.protocol.ShortCircuitProtocol;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Regions memory-mapped from files {@code region-00000 ...} in a storage directory on tmpfs or
 * hugetlbfs. The data lives in the kernel's page cache, not the JVM, so it outlives a crashed or
 * killed datanode and a restarted one maps the same bytes again.
 */
final class MappedRegions extends MemoryRegions {
    private static final Pattern REGION_FILE = Pattern.compile("region-\\d+");

    private MappedRegions(ByteBuffer[] regions, int regionSize) {
        super(regions, regionSize);
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
        ByteBuffer[] regions = new ByteBuffer[count];
        for (int i = 0; i < count; i++) {
            try (FileChannel ch = FileChannel.open(file(dir, i), StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                // The mapping stays valid after the channel closes.
                regions[i] = ch.map(FileChannel.MapMode.READ_WRITE, 0, regionSize);
            }
            if (pretouch) {
                touch(regions[i]);
            }
        }
        return new MappedRegions(regions, regionSize);
    }

    /** Only for memory known to be all zeros, and before anyone else can write it. */
    private static void touch(ByteBuffer region) {
        for (int at = 0; at < region.capacity(); at += PAGE) {
            region.put(at, (byte) 0);
        }
    }

    /** The smallest page size; touching one byte per page faults every page in. */
    private static final int PAGE = 4096;

    /** Null when {@code dir} holds exactly regions 0..count-1 of {@code regionSize} bytes, otherwise what differs. */
    static String whyNotMatching(Path dir, int count, long regionSize) throws IOException {
        long present;
        try (Stream<Path> entries = Files.list(dir)) {
            present = entries.filter(p -> REGION_FILE.matcher(p.getFileName().toString()).matches()).count();
        }
        if (present != count) {
            return "it holds " + present + " region files but " + count + " regions are configured";
        }
        for (int i = 0; i < count; i++) {
            Path file = file(dir, i);
            if (!Files.isRegularFile(file)) {
                return "it lacks " + file.getFileName();
            }
            long size = Files.size(file);
            if (size != regionSize) {
                return file.getFileName() + " holds " + size + " bytes but regions of " + regionSize
                        + " bytes are configured";
            }
        }
        return null;
    }
}
