package io.tarn.client;

import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TCP data path with socket send buffers far smaller than a chunk (64 KiB, the least the key takes)
 * ({@code tarn.rpc.send.buffer.local}): every WRITE_BLOCK and READ_BLOCK frame leaves in many
 * partial writes, while the datanode places written payloads straight into its region and the
 * client lands read payloads in the caller's buffer. Two writers at once share the connection.
 */
class TinySendBuffersTest {
    @Test
    void filesWrittenAndReadThroughTinySendBuffersKeepEveryByte() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, 2L << 20)
                .set(TarnKeys.CLIENT_IO_CHUNK, 1L << 20)
                .set(TarnKeys.CLIENT_SHORTCIRCUIT, ShortCircuitMode.OFF)
                .set(TarnKeys.RPC_SEND_BUFFER_LOCAL, 64L * 1024)
                .start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[][] data = new byte[2][];
            for (int i = 0; i < data.length; i++) {
                data[i] = new byte[(5 << 20) + 777 * (i + 1)];
                new Random(40 + i).nextBytes(data[i]);
            }
            CompletableFuture<?>[] writers = new CompletableFuture<?>[data.length];
            for (int i = 0; i < data.length; i++) {
                int k = i;
                writers[i] = CompletableFuture.runAsync(() -> {
                    try (TarnOutputStream out = client.create("/tiny/f" + k)) {
                        if (k == 0) {
                            out.write(data[k]); // byte[]: copied into chunks
                        } else {
                            ByteBuffer direct = ByteBuffer.allocateDirect(data[k].length).put(data[k]).flip();
                            out.write(direct);
                        }
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
            }
            CompletableFuture.allOf(writers).get();

            for (int i = 0; i < data.length; i++) {
                ByteBuffer into = ByteBuffer.allocateDirect(1 << 20);
                byte[] back = new byte[data[i].length];
                int at = 0;
                try (TarnInputStream in = client.open("/tiny/f" + i)) {
                    int n;
                    while ((n = in.read(into.clear())) >= 0) {
                        into.flip().get(back, at, n);
                        at += n;
                    }
                    assertThat(at).isEqualTo(data[i].length);
                    assertThat(Arrays.equals(back, data[i])).as("file %d read sequentially", i).isTrue();

                    ByteBuffer middle = ByteBuffer.allocateDirect(3 << 20);
                    long from = (1 << 20) + 12_345;
                    in.readFully(from, middle);
                    byte[] got = new byte[middle.flip().remaining()];
                    middle.get(got);
                    assertThat(Arrays.equals(got, Arrays.copyOfRange(data[i], (int) from, (int) from + got.length)))
                            .as("file %d read at %d", i, from).isTrue();
                }
            }
        }
    }
}
