package io.tarn.client;

import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.AdminProtocol.FsckResponse;
import io.tarn.common.protocol.ShortCircuitProtocol;
import io.tarn.datanode.dram.DramDatanode;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static io.tarn.client.TestFiles.random;
import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A region whose memory is taken from a running datanode: its file under the memory directory is
 * cut short while mapped (a tmpfs clean-up, an operator). The datanode notices at its next look
 * at the files, takes the region out of service (no access touches the missing memory, which
 * would fault) and tells the namenode in its heartbeats (the incremental report after the block
 * report). The namenode marks the blocks there lost and allocates elsewhere, across its own restart
 * (the registration repeats the list); a restart of the datanode makes the file whole again, its
 * block report shows the blocks lost, and the region serves new blocks. Real namenode with its
 * journal, DRAM datanode with memory-mapped files, sockets.
 */
class LostRegionTest {
    private static final int BLOCK = 64 << 10;
    private static final int BLOCKS_PER_REGION = 4;

    @Test
    void aRegionCutShortIsTakenOutOfServiceItsBlocksLostAndTheRestServed() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DRAM_REGION_SIZE, (long) BLOCKS_PER_REGION * BLOCK)
                .set(TarnKeys.DRAM_CAPACITY, 4L * BLOCKS_PER_REGION * BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 100L)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] doomed = random(BLOCKS_PER_REGION * BLOCK, 1);
            byte[] kept = random(BLOCKS_PER_REGION * BLOCK - 100, 2);
            write(client, "/r/doomed", doomed);
            write(client, "/r/kept", kept);
            int region = regionsOf(client, "/r/doomed").iterator().next();
            assertThat(regionsOf(client, "/r/doomed")).as("blocks are handed out region by region").hasSize(1);
            assertThat(regionsOf(client, "/r/kept")).doesNotContain(region);

            DramDatanode dn = cluster.datanode(0);
            Path file = dn.storageDirectory().orElseThrow(() -> new AssertionError("the datanode maps no files"))
                    .resolve(ShortCircuitProtocol.regionFile(region));
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(0);
            }

            FsckResponse fsck = awaitFsck(client, r -> r.damagedFiles() > 0);
            assertThat(fsck.lostBlocks()).isEqualTo(BLOCKS_PER_REGION);
            assertThat(fsck.files()).singleElement().satisfies(f -> assertThat(f.path()).isEqualTo("/r/doomed"));
            Throwable lost = catchThrowable(() -> read(client, "/r/doomed"));
            assertThat(lost).isInstanceOf(TarnError.class).hasMessageContaining("of '/r/doomed' is lost")
                    .hasMessageContaining("took the block's region " + region + " out of service")
                    .hasMessageContaining("was cut to 0 bytes");
            assertThat(((TarnError) lost).code()).isEqualTo(ErrorCode.DATA_LOST);
            assertThat(read(client, "/r/kept")).isEqualTo(kept);

            // New blocks go elsewhere, before and after a namenode restart (the registration lists the region).
            byte[] later = random(BLOCKS_PER_REGION * BLOCK, 3);
            write(client, "/r/later", later);
            assertThat(regionsOf(client, "/r/later")).doesNotContain(region);
            cluster.restartNamenode();
            assertThat(awaitFsck(client, r -> r.damagedFiles() > 0).files()).singleElement()
                    .satisfies(f -> assertThat(f.path()).isEqualTo("/r/doomed"));
            assertThat(catchThrowable(() -> read(client, "/r/doomed"))).hasMessageContaining("out of service");
            assertThat(read(client, "/r/later")).isEqualTo(later);
            byte[] fill = random(BLOCKS_PER_REGION * BLOCK, 4);
            write(client, "/r/fill", fill);
            Throwable full = catchThrowable(() -> write(client, "/r/nowhere", random(2 * BLOCK, 7)));
            assertThat(full).as("the only region without blocks is out of service").isInstanceOf(TarnError.class);
            assertThat(((TarnError) full).code()).isEqualTo(ErrorCode.NO_SPACE);
            client.delete("/r/nowhere", false);

            // A restart makes the file whole: the report shows the old blocks lost, new ones land there.
            cluster.crashDatanode(0);
            cluster.restartDatanode(0);
            assertThat(Files.size(file)).isEqualTo((long) BLOCKS_PER_REGION * BLOCK);
            // Slots behind their blocks count as lost once a second report confirms them (one heartbeat).
            Throwable stillLost = catchThrowable(() -> read(client, "/r/doomed"));
            for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                 !String.valueOf(stillLost).contains("block report shows generation 0")
                         && System.nanoTime() < deadline; Thread.sleep(50)) {
                stillLost = catchThrowable(() -> read(client, "/r/doomed"));
            }
            assertThat(stillLost).hasMessageContaining("block report shows generation 0");
            assertThat(((TarnError) stillLost).code()).isEqualTo(ErrorCode.DATA_LOST);
            assertThat(awaitFsck(client, r -> r.damagedFiles() > 0).files()).singleElement()
                    .satisfies(f -> assertThat(f.path()).isEqualTo("/r/doomed"));
            assertThat(client.delete("/r/doomed", false)).isTrue();
            byte[] fresh = random(BLOCKS_PER_REGION * BLOCK, 5);
            write(client, "/r/fresh", fresh);
            assertThat(regionsOf(client, "/r/fresh")).as("the region made whole serves new blocks")
                    .containsExactly(region);
            assertThat(read(client, "/r/fresh")).isEqualTo(fresh);
            assertThat(read(client, "/r/kept")).isEqualTo(kept);
            assertThat(read(client, "/r/fill")).isEqualTo(fill);
            assertThat(awaitFsck(client, r -> r.damagedFiles() == 0).damagedFiles()).isZero();
        }
    }

    private static Set<Integer> regionsOf(TarnClient client, String path) throws Exception {
        FileStatus status = client.getStatus(path);
        Set<Integer> regions = new HashSet<>();
        for (int i = 0; (long) i * BLOCK < status.size(); i++) {
            BlockRef ref = client.getBlock(status.fileId(), i);
            regions.add(ref.regionId());
        }
        return regions;
    }

    /** The namenode's fsck once it satisfies {@code done} (the maintenance thread rescans on changes). */
    private static FsckResponse awaitFsck(TarnClient client, java.util.function.Predicate<FsckResponse> done)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            FsckResponse r = client.fsckOfEach(100).values().iterator().next().get(10, TimeUnit.SECONDS);
            if (done.test(r) || System.nanoTime() > deadline) {
                return r;
            }
            Thread.sleep(50);
        }
    }
}
