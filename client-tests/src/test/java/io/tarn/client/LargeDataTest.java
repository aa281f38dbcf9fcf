package io.tarn.client;

import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.fs.BlockRef;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

/** One GiB written across four datanodes and read back, verified by CRC32C. */
class LargeDataTest {
    static final long GIB = 1L << 30;
    static final int BUFFER = 1 << 20;

    /** Fills the buffer with a deterministic pattern for buffer number {@code n}. */
    static void fill(ByteBuffer buf, long n) {
        buf.clear();
        long x = n * 0x9E3779B97F4A7C15L + 1;
        while (buf.remaining() >= 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            buf.putLong(x);
        }
        buf.flip();
    }

    @Test
    void oneGibAcrossSeveralDatanodesWithChecksums() throws IOException {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(4)
                .set(TarnKeys.DRAM_CAPACITY, 320L << 20).set(TarnKeys.DRAM_REGION_SIZE, 64L << 20)
                .set(TarnKeys.CLIENT_LOCATION_AFFINITY, false).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            ByteBuffer buf = ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
            CRC32C written = new CRC32C();
            try (TarnOutputStream out = client.create("/large/one-gib")) {
                for (long n = 0; n < GIB / BUFFER; n++) {
                    fill(buf, n);
                    written.update(buf.duplicate());
                    out.write(buf);
                }
            }
            assertThat(client.getStatus("/large/one-gib").size()).isEqualTo(GIB);

            long fileId = client.getStatus("/large/one-gib").fileId();
            Set<Integer> datanodes = new HashSet<>();
            for (int i = 0; i < GIB / (1 << 20); i += 97) {
                BlockRef ref = client.getBlock(fileId, i);
                datanodes.add(ref.datanodeId());
            }
            assertThat(datanodes).hasSize(4);

            CRC32C read = new CRC32C();
            long total = 0;
            try (TarnInputStream in = client.open("/large/one-gib")) {
                ByteBuffer into = ByteBuffer.allocateDirect(BUFFER);
                int n;
                while ((n = in.read(into.clear())) > 0) {
                    into.flip();
                    read.update(into);
                    total += n;
                }
            }
            assertThat(total).isEqualTo(GIB);
            assertThat(read.getValue()).isEqualTo(written.getValue());
        }
    }
}
