package io.tarn.datanode.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.datanode.GenerationTable;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.StateImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.tarn.replication.host.ByteImage;
import io.tarn.replication.host.ChunkedImage;
import io.tarn.replication.host.FileImageStore;
import io.tarn.replication.host.ImageStaging;

/**
 * The pieces of chunked images on real files and buffers: the receiving side's staging (order,
 * size, replacement, memory budget), saving and loading image files without whole-image buffers,
 * and images that read the store once restored.
 */
class ImageStagingTest {

    private static final int BLOCK = 64 * 1024;
    private static final int REGION = 40 * BLOCK;
    private static final long IMAGE = 40L * Integer.BYTES + REGION;

    @TempDir
    Path dir;

    private static RegionGroupStore store() {
        return new RegionGroupStore(new HeapRegions(1, REGION), GenerationTable.inMemory(REGION, 1, BLOCK), 0, BLOCK);
    }

    /** A store whose blocks hold random bytes and generations. */
    private static RegionGroupStore filled(long seed) {
        RegionGroupStore s = store();
        SplittableRandom r = new SplittableRandom(seed);
        byte[] data = new byte[REGION];
        r.nextBytes(data);
        HeapRegions regions = new HeapRegions(1, REGION);
        regions.write(0, 0, Unpooled.wrappedBuffer(data), 0, REGION);
        GenerationTable generations = GenerationTable.inMemory(REGION, 1, BLOCK);
        for (int b = 0; b < REGION / BLOCK; b++) {
            generations.advance(0, b, 1 + r.nextInt(1000));
        }
        return new RegionGroupStore(regions, generations, 0, BLOCK);
    }

    private static byte[] all(ChunkedImage image) {
        return ByteImage.of(image).toByteArray();
    }

    /** Feeds {@code image} to {@code staging} in chunks of {@code chunk} bytes; the first refusal, or null. */
    private static String feed(ImageStaging staging, long id, ChunkedImage image, int chunk) {
        for (long at = 0; at < image.sizeBytes(); at += chunk) {
            ByteBuf part = image.slice(at, (int) Math.min(chunk, image.sizeBytes() - at));
            try {
                String refused = staging.accept(id, image.sizeBytes(), at, part);
                if (refused != null) {
                    return refused;
                }
            } finally {
                part.release();
            }
        }
        return null;
    }

    @Test
    void aStagedImageInAFileRestoresAStoreAndThenReadsIt() throws Exception {
        RegionGroupStore leader = filled(1);
        ImageStaging staging = new ImageStaging(5, IMAGE, dir, new ImageStaging.Budget(0));
        assertThat(feed(staging, 77, leader.liveImage(), 300_000)).isNull();
        assertThat(staging.resolve(77, IMAGE - 1)).isNull();
        assertThat(staging.resolve(78, IMAGE)).isNull();
        ImageStaging.StagedImage staged = staging.resolve(77, IMAGE);
        assertThat(staged).isNotNull();
        assertThat(stagingFiles()).hasSize(1);
        assertThat(all(staged)).isEqualTo(all(leader.liveImage()));
        RegionGroupStore follower = store();
        follower.restore(new Checkpoint(new CheckpointMeta(9, List.of(), Map.of()), staged));
        assertThat(follower.read(new BlockRange(0, REGION))).isEqualTo(leader.read(new BlockRange(0, REGION)));
        assertThat(follower.generation(17)).isEqualTo(leader.generation(17));
        assertThat(stagingFiles()).as("the staged file goes once the store holds the image").isEmpty();
        follower.apply(RegionGroupStoreTest.entry(10, BLOCK, 2000, "after"));
        assertThat(new String(all(staged), 40 * Integer.BYTES + BLOCK, 5, StandardCharsets.US_ASCII))
                .as("the installed image now reads the follower's store").isEqualTo("after");
        follower.restore(new Checkpoint(new CheckpointMeta(9, List.of(), Map.of()), staged));
        staging.close();
    }

    @Test
    void chunksOutOfOrderOfAnotherSizeOrOfAnUnknownTransferAreRefused() throws Exception {
        ImageStaging staging = new ImageStaging(5, IMAGE, dir, new ImageStaging.Budget(0));
        ByteBuf chunk = Unpooled.wrappedBuffer(new byte[1000]);
        assertThat(staging.accept(1, IMAGE + 1, 0, chunk)).contains("does not fit");
        assertThat(staging.accept(1, IMAGE, 1000, chunk)).contains("not staged here");
        assertThat(staging.accept(1, IMAGE, 0, chunk)).isNull();
        assertThat(staging.accept(1, IMAGE, 2000, chunk)).contains("expected 1000");
        assertThat(staging.accept(1, IMAGE, IMAGE - 10, chunk)).contains("expected 1000");
        assertThat(staging.resolve(1, IMAGE)).as("incomplete").isNull();
        assertThat(stagingFiles()).hasSize(1);
        // A new transfer replaces the old one and its file.
        assertThat(staging.accept(2, IMAGE, 0, chunk)).isNull();
        assertThat(staging.accept(1, IMAGE, 1000, chunk)).contains("not staged here");
        assertThat(stagingFiles()).hasSize(1);
        staging.close();
        assertThat(stagingFiles()).isEmpty();
    }

    @Test
    void memoryStagingKeepsWithinTheBudgetAndReadsAcrossChunks() {
        ImageStaging.Budget budget = new ImageStaging.Budget(IMAGE + 10);
        ImageStaging a = new ImageStaging(1, IMAGE, null, budget);
        ImageStaging b = new ImageStaging(2, IMAGE, null, budget);
        RegionGroupStore leader = filled(2);
        assertThat(feed(a, 7, leader.liveImage(), 100_003)).isNull();
        assertThat(budget.used()).isEqualTo(IMAGE);
        assertThat(feed(b, 8, leader.liveImage(), 100_003)).contains("staged for other groups");
        ImageStaging.StagedImage staged = a.resolve(7, IMAGE);
        byte[] expected = all(leader.liveImage());
        ByteBuf across = staged.slice(99_000, 250_000);
        try {
            byte[] got = new byte[250_000];
            across.getBytes(across.readerIndex(), got);
            assertThat(got).isEqualTo(Arrays.copyOfRange(expected, 99_000, 349_000));
        } finally {
            across.release();
        }
        RegionGroupStore follower = store();
        follower.restore(new Checkpoint(new CheckpointMeta(3, List.of(), Map.of()), staged));
        assertThat(follower.read(new BlockRange(0, REGION))).isEqualTo(leader.read(new BlockRange(0, REGION)));
        assertThat(budget.used()).as("restoring frees the staged memory").isZero();
        assertThat(feed(b, 8, leader.liveImage(), 100_003)).isNull();
        b.close();
        assertThat(budget.used()).isZero();
    }

    @Test
    void imageFilesAreWrittenAndCheckedChunkByChunkAndDamageIsDetected() throws Exception {
        RegionGroupStore leader = filled(3);
        FileImageStore images = new FileImageStore(dir);
        images.save(4, leader.liveImage());
        StateImage loaded = images.load(4);
        assertThat(loaded.sizeBytes()).isEqualTo(IMAGE);
        assertThat(all((ChunkedImage) loaded)).isEqualTo(all(leader.liveImage()));
        images.save(5, loaded);
        assertThat(all((ChunkedImage) images.load(5))).isEqualTo(all(leader.liveImage()));
        Path file = images.file(4);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(new byte[] {42}), 12 + IMAGE / 2);
        }
        assertThatThrownBy(() -> images.load(4)).isInstanceOf(IOException.class).hasMessageContaining("damaged");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(12 + IMAGE - 1);
        }
        assertThatThrownBy(() -> images.load(4)).isInstanceOf(IOException.class).hasMessageContaining("header says");
        images.retainOnly(5);
        assertThat(Files.exists(file)).isFalse();
    }

    private List<Path> stagingFiles() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().startsWith("staging-")).toList();
        }
    }
}
