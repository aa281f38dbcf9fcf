package io.tarn.datanode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GenerationTableTest {
    private static final long REGION = 1 << 20;
    private static final int BLOCK = 64 << 10;
    private static final UUID ID = UUID.randomUUID();

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve("generations");
    }

    @Test
    void generationsStartAtZeroAndOnlyGrow() throws IOException {
        GenerationTable t = GenerationTable.create(file(), ID, REGION, 3, BLOCK);
        assertThat(t.blocksPerRegion()).isEqualTo(16);
        assertThat(t.get(2, 15)).isZero();
        assertThat(t.advance(2, 15, 3)).isTrue();
        assertThat(t.get(2, 15)).isEqualTo(3);
        assertThat(t.advance(2, 15, 2)).as("older generation is stale").isFalse();
        assertThat(t.get(2, 15)).isEqualTo(3);
        assertThat(t.advance(2, 15, 3)).as("same generation may write again").isTrue();
        assertThat(t.advance(2, 15, 7)).isTrue();
        assertThat(t.get(2, 15)).isEqualTo(7);
        assertThat(t.get(2, 14)).as("neighbours untouched").isZero();
        assertThat(t.get(1, 15)).isZero();
    }

    @Test
    void survivesReopeningTheFile() throws IOException {
        GenerationTable t = GenerationTable.create(file(), ID, REGION, 2, BLOCK);
        t.advance(0, 0, 11);
        t.advance(1, 15, 42);

        GenerationTable reopened = GenerationTable.open(file(), ID, REGION, 2);
        assertThat(reopened.blockSize()).isEqualTo(BLOCK);
        assertThat(reopened.get(0, 0)).isEqualTo(11);
        assertThat(reopened.get(1, 15)).isEqualTo(42);
        assertThat(reopened.get(1, 14)).isZero();
        assertThat(Files.size(file()) % (2 << 20)).as("sized in whole 2 MiB pages for hugetlbfs").isZero();
    }

    @Test
    void resetForgetsEveryGeneration() throws IOException {
        GenerationTable t = GenerationTable.create(file(), ID, REGION, 2, BLOCK);
        for (int r = 0; r < 2; r++) {
            for (int b = 0; b < 16; b++) {
                t.advance(r, b, 1 + r * 16 + b);
            }
        }
        t.reset();
        GenerationTable reopened = GenerationTable.open(file(), ID, REGION, 2);
        for (int r = 0; r < 2; r++) {
            for (int b = 0; b < 16; b++) {
                assertThat(t.get(r, b)).isZero();
                assertThat(reopened.get(r, b)).isZero();
            }
        }
    }

    @Test
    void resettingOneNamenodesShareKeepsTheOthers() throws IOException {
        GenerationTable t = GenerationTable.create(file(), ID, REGION, 5, BLOCK);
        for (int r = 0; r < 5; r++) {
            t.advance(r, 0, 10 + r);
            t.advance(r, 15, 20 + r);
        }
        t.reset(RegionShare.of(1, 2, 5));
        assertThat(List.of(t.get(1, 0), t.get(1, 15), t.get(3, 0), t.get(3, 15))).as("regions 1 and 3 forgotten")
                .containsOnly(0);
        assertThat(List.of(t.get(0, 0), t.get(2, 15), t.get(4, 0), t.get(4, 15))).as("regions 0, 2, 4 kept")
                .containsExactly(10, 22, 14, 24);

        GenerationTable reopened = GenerationTable.open(file(), ID, REGION, 5);
        assertThat(List.of(reopened.get(0, 0), reopened.get(1, 0))).as("persisted").containsExactly(10, 0);
    }

    @Test
    void openRejectsTablesOfOtherStorageOrGeometry() throws IOException {
        GenerationTable.create(file(), ID, REGION, 2, BLOCK);
        assertThatThrownBy(() -> GenerationTable.open(file(), UUID.randomUUID(), REGION, 2))
                .isInstanceOf(IOException.class).hasMessageContaining("belongs to storage " + ID);
        assertThatThrownBy(() -> GenerationTable.open(file(), ID, REGION, 3))
                .isInstanceOf(IOException.class).hasMessageContaining("describes 2 regions");
        assertThatThrownBy(() -> GenerationTable.open(file(), ID, 2 * REGION, 2))
                .isInstanceOf(IOException.class).hasMessageContaining("describes 2 regions");
        assertThatThrownBy(() -> GenerationTable.open(dir.resolve("missing"), ID, REGION, 2))
                .isInstanceOf(IOException.class);
    }

    @Test
    void openRejectsAFileWhoseCreationNeverFinished() throws IOException {
        try (FileChannel ch = FileChannel.open(file(), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.truncate(0);
            ch.write(java.nio.ByteBuffer.allocate(4096));
        }
        assertThatThrownBy(() -> GenerationTable.open(file(), ID, REGION, 2))
                .isInstanceOf(IOException.class).hasMessageContaining("incomplete");
    }

    @Test
    void createReplacesAnOlderTableWithAZeroedOne() throws IOException {
        GenerationTable old = GenerationTable.create(file(), ID, REGION, 2, BLOCK);
        old.advance(0, 3, 9);
        GenerationTable fresh = GenerationTable.create(file(), ID, REGION, 2, 2 * BLOCK);
        assertThat(fresh.blocksPerRegion()).isEqualTo(8);
        assertThat(fresh.get(0, 3)).isZero();
        assertThat(GenerationTable.open(file(), ID, REGION, 2).blockSize()).isEqualTo(2 * BLOCK);
        assertThat(Files.exists(dir.resolve("generations.new"))).isFalse();
    }

    @Test
    void inMemoryTableHasTheSameRules() {
        GenerationTable t = GenerationTable.inMemory(REGION, 4, BLOCK);
        assertThat(t.advance(3, 15, 5)).isTrue();
        assertThat(t.advance(3, 15, 4)).isFalse();
        assertThat(t.get(3, 15)).isEqualTo(5);
        t.reset();
        assertThat(t.get(3, 15)).isZero();
    }

    @Test
    void addressesOutsideTheTableAreRefused() {
        GenerationTable t = GenerationTable.inMemory(REGION, 2, BLOCK);
        assertThatThrownBy(() -> t.get(2, 0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> t.get(0, 16)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> t.advance(-1, 0, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> t.advance(0, -1, 1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void invalidGeometryIsRefusedWithTheReason() {
        assertThatThrownBy(() -> GenerationTable.inMemory(REGION, 2, 3000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
        assertThatThrownBy(() -> GenerationTable.inMemory(1L << 30, 1 << 20, 4096))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most");
    }

    @Test
    void concurrentAdvancesKeepTheHighestGeneration() throws Exception {
        GenerationTable t = GenerationTable.inMemory(REGION, 1, BLOCK);
        List<Thread> threads = new ArrayList<>();
        int[] maxima = new int[4];
        for (int i = 0; i < 4; i++) {
            int me = i;
            threads.add(new Thread(() -> {
                for (int n = 0; n < 20_000; n++) {
                    int g = ThreadLocalRandom.current().nextInt(1_000_000);
                    maxima[me] = Math.max(maxima[me], g);
                    t.advance(0, 5, g);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread th : threads) {
            th.join();
        }
        int expected = Math.max(Math.max(maxima[0], maxima[1]), Math.max(maxima[2], maxima[3]));
        assertThat(t.get(0, 5)).isEqualTo(expected);
    }
}
