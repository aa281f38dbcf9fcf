package io.tarn.datanode.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.datanode.GenerationTable;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.LogEntry;
import io.tarn.replication.WriteCommand;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import io.tarn.replication.host.ByteImage;
import io.tarn.replication.host.BytesPayload;
import io.tarn.replication.host.ChunkedImage;

/** A group's replica in a region: payload layout, generations, order independence and images. */
class RegionGroupStoreTest {

    private static final int BLOCK = 64;
    private static final int REGION = 8 * BLOCK;

    private static RegionGroupStore store() {
        HeapRegions regions = new HeapRegions(2, REGION);
        return new RegionGroupStore(regions, GenerationTable.inMemory(REGION, 2, BLOCK), 1, BLOCK);
    }

    static LogEntry entry(long index, long offset, int generation, String text) {
        byte[] data = text.getBytes(StandardCharsets.US_ASCII);
        byte[] payload = new byte[RegionGroupStore.PAYLOAD_HEADER + data.length];
        Unpooled.wrappedBuffer(payload).setInt(0, generation);
        System.arraycopy(data, 0, payload, RegionGroupStore.PAYLOAD_HEADER, data.length);
        BlockRange range = new BlockRange(offset, data.length);
        return new LogEntry(1, index, range, List.of(),
                new WriteCommand(1, index, 1, range, BytesPayload.copyOf(payload)));
    }

    private static String text(RegionGroupStore s, long offset, int length) {
        return new String(s.read(new BlockRange(offset, length)), StandardCharsets.US_ASCII);
    }

    @Test
    void applyStoresTheBytesInTheGroupsRegionAndRaisesTheBlocksGeneration() {
        RegionGroupStore s = store();
        s.apply(entry(1, 2 * BLOCK + 10, 7, "hello"));
        assertThat(text(s, 2 * BLOCK + 10, 5)).isEqualTo("hello");
        assertThat(s.generation(2)).isEqualTo(7);
        assertThat(s.generation(1)).isZero();
        s.apply(entry(2, 2 * BLOCK, 5, "older"));
        assertThat(s.generation(2)).as("a generation never goes back").isEqualTo(7);
        assertThat(text(s, 2 * BLOCK, 5)).as("bytes are stored whatever the generation").isEqualTo("older");
    }

    /**
     * A replacement member placed on a region that held another group's blocks remembers their
     * higher generations: once forgotten, the writes it applies give it the group's generations.
     */
    @Test
    void aReplicaStartingFromNothingForgetsTheGenerationsAnEarlierUseOfTheRegionLeft() {
        HeapRegions regions = new HeapRegions(2, REGION);
        GenerationTable table = GenerationTable.inMemory(REGION, 2, BLOCK);
        for (int b = 0; b < REGION / BLOCK; b++) {
            table.advance(1, b, 9);
            table.advance(0, b, 4);
        }
        RegionGroupStore s = new RegionGroupStore(regions, table, 1, BLOCK);
        s.apply(entry(1, 2 * BLOCK, 3, "group"));
        assertThat(s.generation(2)).as("raised only: the earlier use wins").isEqualTo(9);

        s.forgetGenerations();
        s.apply(entry(1, 2 * BLOCK, 3, "group"));
        assertThat(s.generation(2)).isEqualTo(3);
        assertThat(s.generation(5)).isZero();
        assertThat(table.get(0, 2)).as("other regions keep theirs").isEqualTo(4);
    }

    @Test
    void writesOfDifferentGenerationsToOneBlockEndTheSameInEitherOrder() {
        RegionGroupStore a = store();
        RegionGroupStore b = store();
        LogEntry first = entry(1, BLOCK, 3, "aaaa");
        LogEntry second = entry(2, BLOCK + 32, 4, "bbbb");
        a.apply(first);
        a.apply(second);
        b.apply(second);
        b.apply(first);
        assertThat(a.read(new BlockRange(0, REGION))).isEqualTo(b.read(new BlockRange(0, REGION)));
        assertThat(a.generation(1)).isEqualTo(b.generation(1)).isEqualTo(4);
    }

    @Test
    void aWriteCrossingABlockBoundaryIsRefused() {
        RegionGroupStore s = store();
        assertThatThrownBy(() -> s.apply(entry(1, BLOCK - 2, 1, "cross")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("does not fit one block");
    }

    @Test
    void anImageCarriesBytesAndGenerationsToAnotherReplica() {
        RegionGroupStore leader = store();
        leader.apply(entry(1, 0, 2, "zero"));
        leader.apply(entry(2, 5 * BLOCK, 9, "five"));
        ChunkedImage live = (ChunkedImage) leader.capture(CheckpointMeta.INITIAL);
        byte[] bytes = ByteImage.of(live).toByteArray();
        assertThat((long) bytes.length).isEqualTo(live.sizeBytes());
        RegionGroupStore follower = store();
        CheckpointMeta meta = new CheckpointMeta(2, List.of(), Map.of());
        follower.restore(new Checkpoint(meta, ByteImage.copyOf(bytes)));
        assertThat(follower.read(new BlockRange(0, REGION))).isEqualTo(leader.read(new BlockRange(0, REGION)));
        assertThat(follower.generation(5)).isEqualTo(9);
        assertThat(follower.generation(0)).isEqualTo(2);
        leader.apply(entry(3, 0, 3, "live"));
        ByteBuf again = live.slice(0, (int) live.sizeBytes());
        try {
            assertThat(again.toString(8 * Integer.BYTES, 4, StandardCharsets.US_ASCII))
                    .as("the image is a live handle on the region").isEqualTo("live");
        } finally {
            again.release();
        }
    }

    @Test
    void slicesOfALiveImageCrossTheGenerationsAndTheRegionAndRestoreChunkByChunk() {
        RegionGroupStore leader = store();
        leader.apply(entry(1, 0, 0x01020304, "head"));
        leader.apply(entry(2, 7 * BLOCK + 10, 7, "tail"));
        ChunkedImage live = leader.liveImage();
        byte[] whole = ByteImage.of(live).toByteArray();
        int header = 8 * Integer.BYTES;
        assertThat(whole).startsWith(1, 2, 3, 4);
        for (int offset : new int[] {0, 1, 3, header - 2, header, header + 5}) {
            for (int length : new int[] {0, 1, 2, 7, 100}) {
                ByteBuf s = live.slice(offset, length);
                try {
                    byte[] got = new byte[length];
                    s.getBytes(s.readerIndex(), got);
                    assertThat(got).as("slice %d+%d", offset, length)
                            .isEqualTo(Arrays.copyOfRange(whole, offset, offset + length));
                } finally {
                    s.release();
                }
            }
        }
        assertThatThrownBy(() -> live.slice(whole.length - 1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        RegionGroupStore follower = store();
        follower.restore(new Checkpoint(new CheckpointMeta(2, List.of(), Map.of()), live));
        assertThat(follower.read(new BlockRange(0, REGION))).isEqualTo(leader.read(new BlockRange(0, REGION)));
        assertThat(follower.generation(0)).isEqualTo(0x01020304);
        assertThat(follower.generation(7)).isEqualTo(7);
        assertThatThrownBy(() -> follower.restore(new Checkpoint(new CheckpointMeta(2, List.of(), Map.of()),
                ByteImage.copyOf(new byte[12])))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not fit");
    }

    @Test
    void aCaptureIsTheReplicasOwnStateUntilAnotherImageIsRestoredOverIt() {
        RegionGroupStore leader = store();
        leader.apply(entry(1, 0, 3, "lead"));
        RegionGroupStore follower = store();
        follower.apply(entry(1, BLOCK, 2, "mine"));
        CheckpointMeta meta = new CheckpointMeta(1, List.of(), Map.of());
        ChunkedImage own = (ChunkedImage) follower.capture(meta);
        assertThat(own.ownState()).isTrue();
        assertThat(own.current()).isTrue();
        assertThat(leader.liveImage().ownState()).as("only captures are").isFalse();
        follower.apply(entry(2, BLOCK, 2, "more"));
        assertThat(own.current()).as("writes of its own keep it current").isTrue();
        follower.restore(new Checkpoint(meta, own));
        assertThat(own.current()).as("restoring its own capture changes nothing").isTrue();
        assertThat(text(follower, BLOCK, 4)).isEqualTo("more");

        follower.restore(new Checkpoint(new CheckpointMeta(5, List.of(), Map.of()), leader.capture(meta)));
        assertThat(own.current()).as("a restore from another replica overtakes it").isFalse();
        assertThat(((ChunkedImage) follower.capture(meta)).current()).isTrue();
        assertThat(text(follower, 0, 4)).isEqualTo("lead");
    }
}
