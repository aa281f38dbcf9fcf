package io.tarn.spark.shuffle;

import io.tarn.spark.shuffle.ShuffleFetcher.MapOutput;
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
import scala.Option;
import scala.Product2;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.AbstractIterator;
import scala.collection.Iterator;
import scala.collection.Seq;
import scala.math.Ordering;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * Reads the partitions {@code [startPartition, endPartition)} of the maps
 * {@code [startMapIndex, endMapIndex)} of a shuffle from Tarn: the map output tracker names each
 * map's winning attempt, whose index gives the partitions' offsets in its data file, and a
 * {@link ShuffleFetcher} fetches the blocks ahead of the reading within
 * {@code spark.reducer.maxSizeInFlight}. Each block is
 * decompressed and deserialized with Spark's serializer manager, then aggregated and sorted as the
 * shuffle dependency asks, as Spark's own reader does. A map whose files are missing, short or
 * corrupt fails the read with a {@link FetchFailedException} for that map alone, so Spark reruns
 * only it.
 */
final class TarnShuffleReader<K, C> implements ShuffleReader<K, C> {
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

    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public Iterator<Product2<K, C>> read() {
        SparkEnv env = SparkEnv.get();
        ShuffleDependency<K, ?, C> dep = handle.dependency();
        ShuffleFetcher fetcher = new ShuffleFetcher(fs, layout, env.conf().getAppId(), handle.shuffleId(),
                dep.partitioner().numPartitions(), locate(env), startPartition,
                env.conf().getSizeAsBytes(ShuffleFetcher.MAX_IN_FLIGHT_KEY, "48m"), ReadRetries.of(env.conf()),
                metrics);
        context.addTaskCompletionListener((TaskCompletionListener) c -> fetcher.close());
        Blocks blocks = new Blocks(fetcher, env.serializerManager(), dep.serializer().newInstance());

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
    private List<MapOutput> locate(SparkEnv env) {
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
        List<MapOutput> maps = new ArrayList<>(byMap.size());
        for (MapOutput m : byMap.values()) {
            m.reduceIds().sort(null);
            maps.add(m);
        }
        return maps;
    }

    /** The records of every block, in the order the fetcher hands the blocks out. */
    private final class Blocks extends AbstractIterator<Product2<Object, Object>> {
        private final ShuffleFetcher fetcher;
        private final SerializerManager serializers;
        private final SerializerInstance serializer;
        private Iterator<Tuple2<Object, Object>> records;
        private boolean merged;

        Blocks(ShuffleFetcher fetcher, SerializerManager serializers, SerializerInstance serializer) {
            this.fetcher = fetcher;
            this.serializers = serializers;
            this.serializer = serializer;
        }

        @Override
        public boolean hasNext() {
            while (records == null || !records.hasNext()) {
                ShuffleFetcher.Block block = fetcher.nextBlock();
                if (block == null) {
                    finish();
                    return false;
                }
                records = serializer.deserializeStream(serializers.wrapStream(block.id(), block.bytes()))
                        .asKeyValueIterator();
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

        private void finish() {
            if (!merged) {
                merged = true;
                metrics.incFetchWaitTime(fetcher.waitNanos() / 1_000_000);
                context.taskMetrics().mergeShuffleReadMetrics();
            }
        }
    }
}
