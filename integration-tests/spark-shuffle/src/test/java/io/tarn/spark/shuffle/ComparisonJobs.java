package io.tarn.spark.shuffle;

import org.apache.spark.HashPartitioner;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import scala.Tuple2;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The jobs {@link ShuffleComparison} times, apart from it: their functions run in executors, which
 * have Spark and the test jar but not the classes that start Tarn.
 */
final class ComparisonJobs {
    private ComparisonJobs() {
    }

    // ------------------------------------------------------------------ TeraSort

    private static final int TERA_MAPS = 16;
    private static final int TERA_REDUCES = 16;
    /** The checksum of the generated rows, by row count. */
    private static final Map<Long, Long> EXPECTED = new ConcurrentHashMap<>();

    /** Sorts the rows and checks the result: rows in order within and across partitions, all there. */
    static void teraSort(JavaSparkContext sc, long rows) {
        long perMap = rows / TERA_MAPS;
        JavaRDD<Integer> maps = sc.parallelize(range(TERA_MAPS), TERA_MAPS);
        JavaPairRDD<byte[], byte[]> generated = maps.flatMapToPair(m -> new TeraRows(m * perMap, perMap));
        List<long[]> checks = generated.repartitionAndSortWithinPartitions(new PrefixPartitioner(TERA_REDUCES),
                new KeyOrder()).mapPartitionsWithIndex((index, it) -> List.of(checkSorted(index, it)).iterator(),
                        true).collect();
        long count = checks.stream().mapToLong(c -> c[0]).sum();
        long sum = checks.stream().mapToLong(c -> c[1]).sum();
        long expected = expectedTeraSort(rows);
        if (count != perMap * TERA_MAPS || sum != expected) {
            throw new IllegalStateException("TeraSort lost or changed rows: " + count + " rows of "
                    + perMap * TERA_MAPS + ", checksum " + sum + " instead of " + expected);
        }
    }

    /** The checksum of the rows a TeraSort of {@code rows} generates, computed on the driver once. */
    static long expectedTeraSort(long rows) {
        long perMap = rows / TERA_MAPS;
        return EXPECTED.computeIfAbsent(rows, r -> {
            long e = 0;
            for (int m = 0; m < TERA_MAPS; m++) {
                e += checksum(new TeraRows(m * perMap, perMap));
            }
            return e;
        });
    }

    private static List<Integer> range(int n) {
        List<Integer> l = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            l.add(i);
        }
        return l;
    }

    /** Rows {@code [first, first + count)}: a key of 10 random bytes (seeded by the row) and a 90-byte value. */
    private static final class TeraRows implements Iterator<Tuple2<byte[], byte[]>> {
        private final long end;
        private long row;
        private final Random random;

        TeraRows(long first, long count) {
            this.row = first;
            this.end = first + count;
            this.random = new Random(first * 31 + 7);
        }

        @Override
        public boolean hasNext() {
            return row < end;
        }

        @Override
        public Tuple2<byte[], byte[]> next() {
            byte[] key = new byte[10];
            random.nextBytes(key);
            byte[] value = new byte[90];
            String id = String.format("%032X", row);
            for (int i = 0; i < 32; i++) {
                value[i] = (byte) id.charAt(i);
            }
            for (int i = 32; i < 88; i++) {
                value[i] = (byte) ('A' + (int) ((row + i / 8) % 26));
            }
            value[88] = '\r';
            value[89] = '\n';
            row++;
            return new Tuple2<>(key, value);
        }
    }

    private static long rowHash(byte[] key, byte[] value) {
        return Arrays.hashCode(key) * 31L + Arrays.hashCode(value);
    }

    private static long checksum(Iterator<Tuple2<byte[], byte[]>> rows) {
        long sum = 0;
        while (rows.hasNext()) {
            Tuple2<byte[], byte[]> r = rows.next();
            sum += rowHash(r._1(), r._2());
        }
        return sum;
    }

    /** [rows, checksum] of a reduce partition, failing if it is out of order or holds another's keys. */
    private static long[] checkSorted(int partition, Iterator<Tuple2<byte[], byte[]>> rows) {
        KeyOrder order = new KeyOrder();
        PrefixPartitioner partitioner = new PrefixPartitioner(TERA_REDUCES);
        byte[] previous = null;
        long count = 0;
        long sum = 0;
        while (rows.hasNext()) {
            Tuple2<byte[], byte[]> r = rows.next();
            if (previous != null && order.compare(previous, r._1()) > 0) {
                throw new IllegalStateException("partition " + partition + " is out of order at row " + count);
            }
            if (partitioner.getPartition(r._1()) != partition) {
                throw new IllegalStateException("partition " + partition + " holds a key of another");
            }
            previous = r._1();
            count++;
            sum += rowHash(r._1(), r._2());
        }
        return new long[] {count, sum};
    }

    /** The byte-wise, unsigned order of keys. */
    static final class KeyOrder implements Comparator<byte[]>, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public int compare(byte[] a, byte[] b) {
            return Arrays.compareUnsigned(a, b);
        }
    }

    /** Ranges of the key's first two bytes, in order: partition i's keys all sort before partition i+1's. */
    static final class PrefixPartitioner extends Partitioner {
        private static final long serialVersionUID = 1L;
        private final int partitions;

        PrefixPartitioner(int partitions) {
            this.partitions = partitions;
        }

        @Override
        public int numPartitions() {
            return partitions;
        }

        @Override
        public int getPartition(Object key) {
            byte[] k = (byte[]) key;
            int prefix = ((k[0] & 0xff) << 8) | (k[1] & 0xff);
            return (int) ((long) prefix * partitions >> 16);
        }
    }

    // ------------------------------------------------------------------ group-by

    private static final int GROUP_MAPS = 16;
    private static final int GROUP_REDUCES = 16;
    private static final int KEYS = 1_000_000;

    /** Groups small records by key, every record shuffled, and checks the keys and the sum. */
    static void groupBy(JavaSparkContext sc, long records) {
        long perMap = records / GROUP_MAPS;
        JavaPairRDD<Integer, Integer> pairs = sc.parallelize(range(GROUP_MAPS), GROUP_MAPS)
                .flatMapToPair(m -> new SmallRecords(m * perMap, perMap));
        List<long[]> results = pairs.combineByKey(v -> new long[] {1, v}, (c, v) -> {
            c[0]++;
            c[1] += v;
            return c;
        }, (a, b) -> {
            a[0] += b[0];
            a[1] += b[1];
            return a;
        }, new HashPartitioner(GROUP_REDUCES), false, null).mapPartitions(it -> {
            long keys = 0;
            long count = 0;
            long sum = 0;
            while (it.hasNext()) {
                long[] c = it.next()._2();
                keys++;
                count += c[0];
                sum += c[1];
            }
            return List.of(new long[] {keys, count, sum}).iterator();
        }).collect();
        long keys = results.stream().mapToLong(r -> r[0]).sum();
        long count = results.stream().mapToLong(r -> r[1]).sum();
        long sum = results.stream().mapToLong(r -> r[2]).sum();
        long total = perMap * GROUP_MAPS;
        long rest = total % 1000;
        long expectedSum = total / 1000 * (999L * 1000 / 2) + rest * (rest - 1) / 2; // values are row % 1000
        if (keys != Math.min(KEYS, total) || count != total || sum != expectedSum) {
            throw new IllegalStateException("group-by lost or changed records: " + keys + " keys, " + count
                    + " records of " + total + ", values summing to " + sum + " instead of " + expectedSum);
        }
    }

    /** Records {@code [first, first + count)}: key row % KEYS, value row % 1000. */
    private static final class SmallRecords implements Iterator<Tuple2<Integer, Integer>> {
        private final long end;
        private long row;

        SmallRecords(long first, long count) {
            this.row = first;
            this.end = first + count;
        }

        @Override
        public boolean hasNext() {
            return row < end;
        }

        @Override
        public Tuple2<Integer, Integer> next() {
            Tuple2<Integer, Integer> t = new Tuple2<>((int) (row % KEYS), (int) (row % 1000));
            row++;
            return t;
        }
    }
}
