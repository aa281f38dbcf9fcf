package io.tarn.spark.shuffle;

import java.util.NoSuchElementException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.spark.Aggregator;
import org.apache.spark.InterruptibleIterator;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.serializer.SerializerManager;
import org.apache.spark.shuffle.BaseShuffleHandle;
import org.apache.spark.shuffle.FetchFailedException;
import org.apache.spark.shuffle.ShuffleReadMetricsReporter;
import org.apache.spark.shuffle.ShuffleReader;
import org.apache.spark.shuffle.checksum.RowBasedChecksum;
import org.apache.spark.storage.BlockId;
import org.apache.spark.storage.BlockManagerId;
import org.apache.spark.storage.ShuffleBlockId;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.util.collection.ExternalSorter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.Product2;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.collection.Seq;
import scala.math.Ordering;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the partitions {@code [startPartition, endPartition)} of the maps
 * {@code [startMapIndex, endMapIndex)} of a shuffle from Tarn: the map output tracker names each
 * map's winning attempt, whose index gives the partitions' offsets in its data file. Each block is
 * decompressed and deserialized with Spark's serializer manager, then aggregated and sorted as the
 * shuffle dependency asks, as Spark's own reader does. A map whose files are missing, short or
 * corrupt fails the read with a {@link FetchFailedException} for that map alone, so Spark reruns
 * only it.
 */
final class TarnShuffleReader<K, C> implements ShuffleReader<K, C> {
    private static final Logger LOG = LoggerFactory.getLogger(TarnShuffleReader.class);
    private static final int STREAM_BUFFER = 64 * 1024;

    private final ShuffleLayout layout;
    private final FileSystem fs;
    private final BaseShuffleHandle<K, ?, C> handle;
    private final int startMapIndex;
    private final int endMapIndex;
    private final int startPartition;
    private final int endPartition;
    private final TaskContext context;
    private final ShuffleReadMetricsReporter metrics;

    TarnShuffleReader(ShuffleLayout layout, FileSystem fs, BaseShuffleHandle<K, ?, C> handle, int startMapIndex,
            int endMapIndex, int startPartition, int endPartition, TaskContext context,
            ShuffleReadMetricsReporter metrics) {
        this.layout = layout;
        this.fs = fs;
        this.handle = handle;
        this.startMapIndex = startMapIndex;
        this.endMapIndex = endMapIndex;
        this.startPartition = startPartition;
        this.endPartition = endPartition;
        this.context = context;
        this.metrics = metrics;
    }

    /** The non-empty blocks of one map attempt to read, in partition order. */
    private record MapOutput(long mapId, int mapIndex, BlockManagerId location, List<Integer> reduceIds) {
    }

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Iterator<Product2<K, C>> read() {
        SparkEnv env = SparkEnv.get();
        ShuffleDependency<K, ?, C> dep = handle.dependency();
        ArrayDeque<MapOutput> maps = locate(env);
        Blocks blocks = new Blocks(env.conf().getAppId(), handle.shuffleId(), dep.partitioner().numPartitions(), maps,
                env.serializerManager(), dep.serializer().newInstance());
        context.addTaskCompletionListener((TaskCompletionListener) c -> blocks.close());

        Iterator<Product2<Object, Object>> records = new InterruptibleIterator<>(context, blocks);
        Iterator<Product2<K, C>> aggregated;
        Option<Aggregator<K, ?, C>> aggregator = (Option) dep.aggregator();
        if (aggregator.isDefined()) {
            Aggregator agg = aggregator.get();
            aggregated = dep.mapSideCombine() ? agg.combineCombinersByKey((Iterator) records, context)
                    : agg.combineValuesByKey((Iterator) records, context);
        } else {
            aggregated = (Iterator) records;
        }
        Option<Ordering<K>> ordering = dep.keyOrdering();
        if (ordering.isEmpty()) {
            return aggregated instanceof InterruptibleIterator ? aggregated
                    : new InterruptibleIterator<>(context, aggregated);
        }
        ExternalSorter<K, C, C> sorter = new ExternalSorter<>(context, Option.empty(), Option.empty(), ordering,
                dep.serializer(), new RowBasedChecksum[0]);
        sorter.insertAll(aggregated);
        context.taskMetrics().incMemoryBytesSpilled(sorter.memoryBytesSpilled());
        context.taskMetrics().incDiskBytesSpilled(sorter.diskBytesSpilled());
        context.taskMetrics().incPeakExecutionMemory(sorter.peakMemoryUsedBytes());
        context.addTaskCompletionListener((TaskCompletionListener) c -> sorter.stop());
        return new InterruptibleIterator<>(context, sorter.iterator());
    }

    /** The maps to read and, for each, its non-empty blocks, as the map output tracker knows them. */
    private ArrayDeque<MapOutput> locate(SparkEnv env) {
        Iterator<Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>>> located = env.mapOutputTracker()
                .getMapSizesByExecutorId(handle.shuffleId(), startMapIndex, endMapIndex, startPartition,
                        endPartition);
        Map<Long, MapOutput> byMap = new LinkedHashMap<>();
        while (located.hasNext()) {
            Tuple2<BlockManagerId, Seq<Tuple3<BlockId, Object, Object>>> where = located.next();
            Iterator<Tuple3<BlockId, Object, Object>> blocks = where._2().iterator();
            while (blocks.hasNext()) {
                Tuple3<BlockId, Object, Object> b = blocks.next();
                if (!(b._1() instanceof ShuffleBlockId id)) {
                    throw new IllegalStateException("the map output tracker named " + b._1() + ", not a shuffle "
                            + "block of one map and partition");
                }
                byMap.computeIfAbsent(id.mapId(), m -> new MapOutput(m, (Integer) b._3(), where._1(),
                        new ArrayList<>())).reduceIds().add(id.reduceId());
            }
        }
        ArrayDeque<MapOutput> maps = new ArrayDeque<>(byMap.size());
        for (MapOutput m : byMap.values()) {
            m.reduceIds().sort(null);
            maps.add(m);
        }
        return maps;
    }

    /**
     * The records of every block, map after map: each map's index read once, its data file opened
     * once and each of its blocks read as a range of it.
     */
    private final class Blocks extends AbstractIterator<Product2<Object, Object>> {
        private final String appId;
        private final int shuffleId;
        /** The shuffle's reduce partitions: the size of each map's index follows. */
        private final int partitions;
        private final ArrayDeque<MapOutput> maps;
        private final SerializerManager serializers;
        private final SerializerInstance serializer;
        private final ReadRetries retries;
        private MapOutput map;
        private long[] offsets;
        private FSDataInputStream data;
        private int nextBlock;
        private Iterator<Tuple2<Object, Object>> records;
        private int reduceId;
        private boolean merged;
        /** Time spent waiting for Tarn, reported in milliseconds once the reading ends. */
        private long waitNanos;

        Blocks(String appId, int shuffleId, int partitions, ArrayDeque<MapOutput> maps, SerializerManager serializers,
                SerializerInstance serializer) {
            this.appId = appId;
            this.shuffleId = shuffleId;
            this.partitions = partitions;
            this.maps = maps;
            this.serializers = serializers;
            this.serializer = serializer;
            this.retries = ReadRetries.of(SparkEnv.get().conf());
        }

        @Override
        public boolean hasNext() {
            while (records == null || !records.hasNext()) {
                if (!nextBlock()) {
                    finish();
                    return false;
                }
            }
            return true;
        }

        @Override
        public Product2<Object, Object> next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            metrics.incRecordsRead(1);
            return records.next();
        }

        /** Opens the next block's records; false when none is left. */
        private boolean nextBlock() {
            while (map == null || nextBlock == map.reduceIds().size()) {
                closeData();
                map = maps.poll();
                if (map == null) {
                    return false;
                }
                nextBlock = 0;
                openMap();
            }
            reduceId = map.reduceIds().get(nextBlock++);
            if (reduceId + 1 >= offsets.length) {
                throw fetchFailed(null, "its index has " + (offsets.length - 1) + " partitions, not " + (reduceId + 1));
            }
            long start = offsets[reduceId];
            long length = offsets[reduceId + 1] - start;
            ShuffleBlockId block = new ShuffleBlockId(shuffleId, map.mapId(), reduceId);
            InputStream range = new BufferedInputStream(new RangeStream(start, length), STREAM_BUFFER);
            metrics.incRemoteBlocksFetched(1);
            records = serializer.deserializeStream(serializers.wrapStream(block, range)).asKeyValueIterator();
            return true;
        }

        private void openMap() {
            long started = System.nanoTime();
            Path indexPath = layout.index(appId, shuffleId, map.mapId());
            try {
                for (int failures = 1; ; failures++) {
                    try {
                        offsets = ShuffleIndex.decode(readIndex(indexPath), indexPath.toString());
                        data = fs.open(layout.data(appId, shuffleId, map.mapId()));
                        return;
                    } catch (IOException e) {
                        if (!retries.worthAnother(e, failures)) {
                            throw fetchFailed(e, "cannot read its output on Tarn: " + e);
                        }
                        retrying(e, failures);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw sneaky(e); // the task was killed
            } finally {
                waitNanos += System.nanoTime() - started;
            }
        }

        /** The index, of the size the shuffle's partition count gives: no look at the file's length. */
        private byte[] readIndex(Path indexPath) throws IOException {
            try (FSDataInputStream in = fs.open(indexPath)) {
                byte[] index = new byte[ShuffleIndex.bytes(partitions)];
                in.readFully(0, index); // EOFException for a shorter file: not retried
                return index;
            }
        }

        /**
         * Reads at most {@code len} bytes at {@code position} of the map's data file, trying again on a
         * fresh stream after errors that may pass.
         */
        private int readData(long position, byte[] b, int off, int len) {
            try {
                for (int failures = 1; ; failures++) {
                    try {
                        if (data == null) {
                            data = fs.open(layout.data(appId, shuffleId, map.mapId()));
                        }
                        return data.read(position, b, off, len);
                    } catch (IOException e) {
                        if (!retries.worthAnother(e, failures)) {
                            throw fetchFailed(e, "reading its data on Tarn failed: " + e);
                        }
                        closeData(); // the next try opens the file again
                        retrying(e, failures);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw sneaky(e);
            }
        }

        /** Logs the failure that will be retried, then pauses. */
        private void retrying(IOException e, int failures) throws InterruptedException {
            LOG.warn("Reading the output of map {} of shuffle {} from Tarn failed ({}); trying again in {} ms "
                    + "({} of {} retries, {})", map.mapId(), shuffleId, e.toString(), retries.waitMillis(), failures,
                    retries.retries(), ReadRetries.RETRIES_KEY);
            retries.pause();
        }

        private RuntimeException fetchFailed(Throwable cause, String why) {
            MapOutput m = map;
            int reduce = m.reduceIds().isEmpty() ? startPartition : m.reduceIds().get(Math.max(0, nextBlock - 1));
            String message = "shuffle " + shuffleId + ", map " + m.mapId() + " (index " + m.mapIndex() + "): " + why;
            return sneaky(new FetchFailedException(m.location(), shuffleId, m.mapId(), m.mapIndex(), reduce, message,
                    cause));
        }

        private void finish() {
            if (!merged) {
                merged = true;
                metrics.incFetchWaitTime(waitNanos / 1_000_000);
                context.taskMetrics().mergeShuffleReadMetrics();
            }
        }

        private void closeData() {
            if (data != null) {
                try {
                    data.close();
                } catch (IOException ignored) {
                    // only read from
                }
                data = null;
            }
        }

        void close() {
            closeData();
        }

        /** A range of the map's data file, read with positional reads; short when the file is. */
        private final class RangeStream extends InputStream {
            private long position;
            private final long end;
            private final byte[] one = new byte[1];

            RangeStream(long start, long length) {
                this.position = start;
                this.end = start + length;
            }

            @Override
            public int read() {
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (position >= end) {
                    return -1;
                }
                int want = (int) Math.min(len, end - position);
                long started = System.nanoTime();
                int n;
                try {
                    n = readData(position, b, off, want);
                } finally {
                    waitNanos += System.nanoTime() - started;
                }
                if (n < 0) {
                    throw fetchFailed(new EOFException(), "its data file ends at " + position + " but its index says "
                            + "partition " + reduceId + " ends at " + end);
                }
                position += n;
                metrics.incRemoteBytesRead(n);
                return n;
            }
        }
    }

    /** Throws a checked exception (FetchFailedException is one) from code that declares none. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
        throw (E) e;
    }
}
