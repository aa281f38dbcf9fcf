package io.tarn.datanode.dram;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MemoryRegionsTest {
    private static final int REGION = 1 << 20;

    @TempDir
    Path dir;

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] bytes(ByteBuf buf) {
        try {
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    private static void writeAndReadBack(MemoryRegions regions) {
        byte[] data = random(100_000, 1);
        ByteBuf src = Unpooled.directBuffer().writeBytes(new byte[7]).writeBytes(data);
        regions.write(1, REGION - data.length, src, 7, data.length);
        assertThat(src.readerIndex()).as("source indices untouched").isZero();
        src.release();

        assertThat(bytes(regions.read(1, REGION - data.length, data.length))).isEqualTo(data);
        assertThat(bytes(regions.read(0, REGION - data.length, data.length)))
                .as("other regions untouched").isEqualTo(new byte[data.length]);
        assertThat(regions.read(1, 0, 0).readableBytes()).isZero();
    }

    @Test
    void mappedRegionsStoreAndReturnBytes() throws IOException {
        writeAndReadBack(MappedRegions.map(dir, 2, REGION, true));
    }

    @Test
    void directRegionsStoreAndReturnBytes() {
        writeAndReadBack(DirectRegions.allocate(2, REGION));
    }

    @Test
    void mappedDataSurvivesMappingTheFilesAgain() throws IOException {
        MemoryRegions first = MappedRegions.map(dir, 3, REGION, true);
        byte[] data = random(4096, 2);
        first.write(2, 8192, Unpooled.wrappedBuffer(data), 0, data.length);
        first.close();

        MemoryRegions second = MappedRegions.map(dir, 3, REGION, false);
        assertThat(bytes(second.read(2, 8192, data.length))).isEqualTo(data);
        for (int i = 0; i < 3; i++) {
            assertThat(Files.size(MappedRegions.file(dir, i))).isEqualTo(REGION);
        }
    }

    @Test
    void readsShareTheRegionMemoryInsteadOfCopying() {
        MemoryRegions regions = DirectRegions.allocate(1, REGION);
        ByteBuf view = regions.read(0, 100, 4);
        regions.write(0, 100, Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4}), 0, 4);
        assertThat(ByteBufUtil.getBytes(view)).containsExactly(1, 2, 3, 4);
        view.release();
        assertThat(bytes(regions.read(0, 100, 4)))
                .as("releasing a read leaves the region usable").containsExactly(1, 2, 3, 4);
    }

    @Test
    void accessOutsideARegionIsRefused() {
        MemoryRegions regions = DirectRegions.allocate(2, REGION);
        ByteBuf src = Unpooled.wrappedBuffer(new byte[16]);
        assertThatThrownBy(() -> regions.write(0, REGION - 8, src, 0, 16))
                .isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> regions.write(0, -1, src, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> regions.write(2, 0, src, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> regions.read(0, REGION, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> regions.read(0, 0, -1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> regions.read(-1, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> regions.read(0, Long.MAX_VALUE, 1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    /**
     * A directory matches when it holds no region file beyond the configured ones and none larger
     * than a region; files missing or cut short are damaged regions to make whole (the generation
     * table, checked next, tells another geometry apart).
     */
    @Test
    void matchingChecksRegionCountAndSizeAndFindsDamagedRegions() throws IOException {
        MappedRegions.map(dir, 2, REGION, false);
        assertThat(MappedRegions.whyNotMatching(dir, 2, REGION)).isNull();
        assertThat(MappedRegions.damaged(dir, 2, REGION)).isEmpty();
        assertThat(MappedRegions.whyNotMatching(dir, 1, REGION)).contains("holds region-00001 but 1 regions");
        assertThat(MappedRegions.whyNotMatching(dir, 2, REGION / 2)).contains("region-00000 holds " + REGION);
        assertThat(MappedRegions.whyNotMatching(dir, 3, REGION)).isNull();
        assertThat(MappedRegions.damaged(dir, 3, REGION)).containsExactly(2);
        Files.delete(MappedRegions.file(dir, 1));
        assertThat(MappedRegions.damaged(dir, 2, REGION)).containsExactly(1);
        Files.write(MappedRegions.file(dir, 0), new byte[100]);
        assertThat(MappedRegions.damaged(dir, 2, REGION)).containsExactly(0, 1);
        Files.createFile(dir.resolve("region-7"));
        assertThat(MappedRegions.whyNotMatching(dir, 2, REGION)).contains("holds region-7 but 2 regions");
    }
}
