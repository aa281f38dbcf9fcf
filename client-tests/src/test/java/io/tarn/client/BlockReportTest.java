package io.tarn.client;

import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.protocol.AdminProtocol.FsckResponse;
import io.tarn.common.protocol.ShortCircuitProtocol;
import io.tarn.datanode.dram.DramDatanode;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import static io.tarn.client.TestFiles.random;
import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Block reports: a datanode that re-registers with its data intact after a namenode restart
 * reports the generation each slot of its regions holds, and the namenode checks the blocks its
 * files name there against it. A block whose slot holds another generation (here: the slot's entry
 * in the datanode's generation table file set back to 0, as if the write had never reached it) is
 * lost: its file is listed by fsck, a read of it fails with DATA_LOST naming the report, and every
 * other file is served. Real namenode, DRAM datanode with memory-mapped regions, sockets and files.
 */
class BlockReportTest {
    private static final int BLOCK = 64 << 10;
    /** The generation table file's header (GenerationTable's layout). */
    private static final int TABLE_HEADER = 64;

    @Test
    void aBlockWhoseSlotHoldsAnotherGenerationIsReportedLostAndTheRestServed() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] kept = random(3 * BLOCK, 1);
            byte[] damaged = random(2 * BLOCK + 10, 2);
            write(client, "/r/kept", kept);
            write(client, "/r/damaged", damaged);
            BlockRef second = client.getBlock(client.getStatus("/r/damaged").fileId(), 1);

            // The datanode keeps running; its table says the second block's slot never got a write.
            DramDatanode dn = cluster.datanode(0);
            Path table = dn.storageDirectory().orElseThrow(() -> new AssertionError("the datanode maps no files"))
                    .resolve(ShortCircuitProtocol.GENERATIONS_FILE);
            long regionSize = cluster.config().get(TarnKeys.DRAM_REGION_SIZE);
            long slot = (long) second.regionId() * (regionSize / BLOCK) + second.blockIndex();
            try (FileChannel ch = FileChannel.open(table, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer held = ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.nativeOrder());
                ch.read(held, TABLE_HEADER + slot * Integer.BYTES);
                assertThat(held.flip().getInt()).as("the slot holds the block's generation")
                        .isEqualTo(second.generation());
                ch.write(ByteBuffer.allocate(Integer.BYTES).order(ByteOrder.nativeOrder()).putInt(0, 0),
                        TABLE_HEADER + slot * Integer.BYTES);
            }

            cluster.restartNamenode();

            FsckResponse fsck = awaitDamaged(client);
            assertThat(fsck.damagedFiles()).isEqualTo(1);
            assertThat(fsck.lostBlocks()).isEqualTo(1);
            assertThat(fsck.files()).singleElement().satisfies(f -> {
                assertThat(f.path()).isEqualTo("/r/damaged");
                assertThat(f.lost()).isEqualTo(1);
            });
            Throwable lost = catchThrowable(() -> read(client, "/r/damaged"));
            assertThat(lost).isInstanceOf(TarnError.class).hasMessageContaining("block 1 of '/r/damaged' is lost")
                    .hasMessageContaining("block report shows generation 0");
            assertThat(((TarnError) lost).code()).isEqualTo(ErrorCode.DATA_LOST);
            assertThat(read(client, "/r/kept")).isEqualTo(kept);

            // The slot is the damaged file's until it is deleted; then a new file may take it.
            assertThat(client.delete("/r/damaged", false)).isTrue();
            byte[] fresh = random(4 * BLOCK, 3);
            write(client, "/r/fresh", fresh);
            assertThat(read(client, "/r/fresh")).isEqualTo(fresh);
        }
    }

    /** The namenode's fsck once its scan found the damage (the maintenance thread rescans on changes). */
    private static FsckResponse awaitDamaged(TarnClient client) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            FsckResponse r = client.fsckOfEach(100).values().iterator().next().get(10, TimeUnit.SECONDS);
            if (r.damagedFiles() > 0 || System.nanoTime() > deadline) {
                return r;
            }
            Thread.sleep(50);
        }
    }
}
