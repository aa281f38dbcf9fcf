package io.tarn.spark.shuffle;

import io.tarn.dist.LocalCluster;
import io.tarn.spark.shuffle.ShuffleFetcher.Block;
import io.tarn.spark.shuffle.ShuffleFetcher.MapOutput;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.spark.FetchFailed;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.storage.BlockManagerId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import scala.Option;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fetcher on real shuffle files, on a Tarn cluster of real processes (asynchronous vectored
 * reads) and on the local file system (Hadoop's own vectored reads): every block's bytes in order,
 * partitions skipped and empty ones, a block larger than the bound, the bound on bytes in flight
 * held while pieces are fetched ahead, and a fetch failure naming the map whose files are missing,
 * short or corrupt.
 */
class ShuffleFetcherIT {
    private static final int PARTITIONS = 12;
    private static final long BOUND = 1 << 20;

    @TempDir
    static java.nio.file.Path localRoot;

    private static LocalCluster tarn;
    private static FileSystem tarnFs;
    private static int shuffleIds;

    @BeforeAll
    static void startTarn() throws IOException {
        tarn = TestJobs.startTarn(1, Map.of("tarn.datanode.dram.capacity", "512m"));
        tarnFs = TestJobs.fileSystem(tarn);
    }

    @AfterAll
    static void stopTarn() throws IOException {
        if (tarnFs != null) {
            tarnFs.close();
        }
        TestJobs.stop(tarn);
    }

    private record Store(FileSystem fs, ShuffleLayout layout) {
    }

    private static Store store(String where) throws IOException {
        if (where.equals("tarn")) {
            return new Store(tarnFs, new ShuffleLayout(new Path(tarn.uri().resolve("/fetcher"))));
        }
        FileSystem local = FileSystem.getLocal(new Configuration()).getRawFileSystem();
        return new Store(local, new ShuffleLayout(new Path(URI.create("file://" + localRoot.toAbsolutePath()))));
    }

    /** Counts what the fetcher reports, as Spark's task metrics would. */
    static final class Counted implements ShuffleReadMetricsReporter {
        final AtomicLong blocks = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();

        @Override
        public void incRemoteBlocksFetched(long v) {
            blocks.addAndGet(v);
        }

        @Override
        public void incRemoteBytesRead(long v) {
            bytes.addAndGet(v);
        }

        @Override
        public void incLocalBlocksFetched(long v) {
        }

        @Override
        public void incRemoteBytesReadToDisk(long v) {
        }

        @Override
        public void incLocalBytesRead(long v) {
        }

        @Override
        public void incFetchWaitTime(long v) {
        }

        @Override
        public void incRecordsRead(long v) {
        }

        @Override
        public void incCorruptMergedBlockChunks(long v) {
        }

        @Override
        public void incMergedFetchFallbackCount(long v) {
        }

        @Override
        public void incRemoteMergedBlocksFetched(long v) {
        }

        @Override
        public void incLocalMergedBlocksFetched(long v) {
        }

        @Override
        public void incRemoteMergedChunksFetched(long v) {
        }

        @Override
        public void incLocalMergedChunksFetched(long v) {
        }

        @Override
        public void incRemoteMergedBytesRead(long v) {
        }

        @Override
        public void incLocalMergedBytesRead(long v) {
        }

        @Override
        public void incRemoteReqsDuration(long v) {
        }

        @Override
        public void incRemoteMergedReqsDuration(long v) {
        }
    }

    /** The bytes of one block: distinct for every map, partition and position. */
    private static byte[] content(long mapId, int partition, int length) {
        byte[] b = new byte[length];
        new Random(mapId * 1_000_003L + partition).nextBytes(b);
        return b;
    }

    /** Writes one committed map output with these partition lengths. */
    private static void writeMap(Store s, int shuffleId, long mapId, int[] lengths) throws IOException {
        long[] asLongs = new long[lengths.length];
        try (FSDataOutputStream out = s.fs().create(s.layout().data("app", shuffleId, mapId))) {
            for (int p = 0; p < lengths.length; p++) {
                out.write(content(mapId, p, lengths[p]));
                asLongs[p] = lengths[p];
            }
        }
        try (FSDataOutputStream out = s.fs().create(s.layout().index("app", shuffleId, mapId))) {
            out.write(ShuffleIndex.encode(asLongs));
        }
    }

    private static MapOutput output(long mapId, int mapIndex, int[] lengths, int from, int to) {
        List<Integer> ids = new ArrayList<>();
        for (int p = from; p < to; p++) {
            if (lengths[p] > 0) {
                ids.add(p); // the tracker names non-empty blocks only
            }
        }
        return new MapOutput(mapId, mapIndex, BlockManagerId.apply("exec-" + mapIndex, "host", 7337, Option.empty()),
                ids);
    }

    private static byte[] readAll(InputStream in, ShuffleFetcher fetcher, long[] mostInFlight) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[7_001]; // not a divisor of any piece
        int n;
        while ((n = in.read(buf, 0, buf.length)) >= 0) {
            out.write(buf, 0, n);
            mostInFlight[0] = Math.max(mostInFlight[0], fetcher.bytesInFlight());
        }
        return out.toByteArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {"tarn", "local"})
    void readsEveryBlockInOrderWithinTheBound(String where) throws IOException {
        Store s = store(where);
        int shuffleId = shuffleIds++;
        Random random = new Random(42);
        List<int[]> lengths = new ArrayList<>();
        List<MapOutput> maps = new ArrayList<>();
        for (int m = 0; m < 40; m++) {
            int[] l = new int[PARTITIONS];
            for (int p = 0; p < PARTITIONS; p++) {
                l[p] = random.nextInt(4) == 0 ? 0 : random.nextInt(60_000);
            }
            if (m == 7) {
                l[5] = 5 << 20; // five times the bound: streamed piece by piece
            }
            lengths.add(l);
            writeMap(s, shuffleId, 1000 + m, l);
            maps.add(output(1000 + m, m, l, 3, 9));
        }
        Counted metrics = new Counted();
        ShuffleFetcher fetcher = new ShuffleFetcher(s.fs(), s.layout(), "app", shuffleId, PARTITIONS, maps, 3, BOUND,
                new ReadRetries(0, 0), metrics);
        long[] mostInFlight = {0};
        long expectedBytes = 0;
        int expectedBlocks = 0;
        try {
            for (int m = 0; m < 40; m++) {
                for (int p : maps.get(m).reduceIds()) {
                    Block block = fetcher.nextBlock();
                    assertThat(block).as("map %d partition %d", m, p).isNotNull();
                    assertThat(block.id().mapId()).isEqualTo(1000 + m);
                    assertThat(block.id().reduceId()).isEqualTo(p);
                    byte[] got = readAll(block.bytes(), fetcher, mostInFlight);
                    byte[] want = content(1000 + m, p, lengths.get(m)[p]);
                    assertThat(Arrays.equals(got, want)).as("bytes of map %d partition %d", m, p).isTrue();
                    expectedBytes += want.length;
                    expectedBlocks++;
                }
            }
            assertThat(fetcher.nextBlock()).isNull();
        } finally {
            fetcher.close();
        }
        assertThat(metrics.blocks.get()).isEqualTo(expectedBlocks);
        assertThat(metrics.bytes.get()).isEqualTo(expectedBytes);
        assertThat(fetcher.pieceBytes()).isEqualTo(256 << 10);
        assertThat(mostInFlight[0]).as("bytes requested and not yet read").isLessThanOrEqualTo(BOUND)
                .isGreaterThan(fetcher.pieceBytes()); // more than one piece ahead of the reading
    }

    @ParameterizedTest
    @ValueSource(strings = {"tarn", "local"})
    void blocksLeftUnreadAreSkipped(String where) throws IOException {
        Store s = store(where);
        int shuffleId = shuffleIds++;
        int[] l = IntStream.range(0, PARTITIONS).map(p -> 10_000 + p).toArray();
        writeMap(s, shuffleId, 1, l);
        writeMap(s, shuffleId, 2, l);
        List<MapOutput> maps = List.of(output(1, 0, l, 0, PARTITIONS), output(2, 1, l, 4, 6));
        ShuffleFetcher fetcher = new ShuffleFetcher(s.fs(), s.layout(), "app", shuffleId, PARTITIONS, maps, 0, BOUND,
                new ReadRetries(0, 0), new Counted());
        try {
            // Read only the first 10 bytes of each block of map 1, then all of map 2's.
            for (int p = 0; p < PARTITIONS; p++) {
                Block block = fetcher.nextBlock();
                byte[] head = block.bytes().readNBytes(10);
                assertThat(head).isEqualTo(Arrays.copyOf(content(1, p, l[p]), 10));
            }
            for (int p = 4; p < 6; p++) {
                Block block = fetcher.nextBlock();
                assertThat(block.id().mapId()).isEqualTo(2);
                assertThat(block.bytes().readAllBytes()).isEqualTo(content(2, p, l[p]));
            }
            assertThat(fetcher.nextBlock()).isNull();
            assertThat(fetcher.bytesInFlight()).isZero();
        } finally {
            fetcher.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tarn", "local"})
    void aMissingIndexFailsThatMapOnly(String where) throws IOException {
        Store s = store(where);
        int shuffleId = shuffleIds++;
        int[] l = IntStream.range(0, PARTITIONS).map(p -> 1_000).toArray();
        writeMap(s, shuffleId, 1, l);
        writeMap(s, shuffleId, 2, l);
        writeMap(s, shuffleId, 3, l);
        s.fs().delete(s.layout().index("app", shuffleId, 2), false);
        List<MapOutput> maps = List.of(output(1, 0, l, 2, 4), output(2, 1, l, 2, 4), output(3, 2, l, 2, 4));
        ShuffleFetcher fetcher = new ShuffleFetcher(s.fs(), s.layout(), "app", shuffleId, PARTITIONS, maps, 2, BOUND,
                new ReadRetries(3, 10), new Counted());
        try {
            assertThat(fetcher.nextBlock().bytes().readAllBytes()).isEqualTo(content(1, 2, 1_000));
            assertThat(fetcher.nextBlock().bytes().readAllBytes()).isEqualTo(content(1, 3, 1_000));
            assertThatThrownBy(fetcher::nextBlock).isInstanceOf(FetchFailedException.class)
                    .hasMessageContaining("map 2 (index 1)").hasMessageContaining("cannot read its index")
                    .satisfies(e -> {
                        FetchFailed f = (FetchFailed) ((FetchFailedException) e).toTaskFailedReason();
                        assertThat(f.mapId()).isEqualTo(2);
                        assertThat(f.mapIndex()).isEqualTo(1);
                        assertThat(f.reduceId()).isEqualTo(2);
                    });
        } finally {
            fetcher.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tarn", "local"})
    void aShortDataFileOrACorruptIndexFailsTheMap(String where) throws IOException {
        Store s = store(where);
        int shuffleId = shuffleIds++;
        int[] l = IntStream.range(0, PARTITIONS).map(p -> 2_000).toArray();
        writeMap(s, shuffleId, 1, l);
        writeMap(s, shuffleId, 2, l);
        // Map 1's data file loses its last partition; map 2's index gets a flipped byte.
        try (FSDataOutputStream out = s.fs().create(s.layout().data("app", shuffleId, 1), true)) {
            for (int p = 0; p < PARTITIONS - 1; p++) {
                out.write(content(1, p, l[p]));
            }
        }
        Path index2 = s.layout().index("app", shuffleId, 2);
        byte[] index = ShuffleIndex.encode(Arrays.stream(l).asLongStream().toArray());
        index[20] ^= 1;
        try (FSDataOutputStream out = s.fs().create(index2, true)) {
            out.write(index);
        }
        ShuffleFetcher shortData = new ShuffleFetcher(s.fs(), s.layout(), "app", shuffleId, PARTITIONS,
                List.of(output(1, 0, l, PARTITIONS - 2, PARTITIONS)), 0, BOUND, new ReadRetries(3, 10),
                new Counted());
        try {
            assertThatThrownBy(() -> {
                Block b = shortData.nextBlock();
                b.bytes().readAllBytes();
                shortData.nextBlock().bytes().readAllBytes();
            }).isInstanceOf(FetchFailedException.class).hasMessageContaining("map 1 (index 0)");
        } finally {
            shortData.close();
        }
        ShuffleFetcher corrupt = new ShuffleFetcher(s.fs(), s.layout(), "app", shuffleId, PARTITIONS,
                List.of(output(2, 0, l, 0, 1)), 0, BOUND, new ReadRetries(3, 10), new Counted());
        try {
            assertThatThrownBy(corrupt::nextBlock).isInstanceOf(FetchFailedException.class)
                    .hasMessageContaining("map 2 (index 0)").hasMessageContaining("checksum");
        } finally {
            corrupt.close();
        }
    }
}
