package io.tarn.client;

import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.DatanodeUnavailableException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.LeaseException;
import io.tarn.common.error.NoSpaceException;
import io.tarn.common.error.TarnError;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Leases, full storage, dead and restarted datanodes, and hostile peers, on real clusters. */
class ClusterFailuresTest {
    static final int BLOCK = 64 << 10;

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static FileStatus status(TarnClient client, String path) {
        try {
            return client.getStatus(path);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<DatanodeStatus> datanodes(TarnClient client) {
        try {
            return client.clusterStatus().datanodes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] readAll(TarnClient client, String path) throws IOException {
        try (TarnInputStream in = client.open(path)) {
            return in.readAllBytes();
        }
    }

    private static TarnClient client(MiniCluster cluster, ShortCircuitMode mode) {
        return TarnClient.connect(cluster.config().toBuilder().set(TarnKeys.CLIENT_SHORTCIRCUIT, mode).build());
    }

    @Test
    void secondWriterIsRefusedAndDeadWritersLeaseExpires() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.LEASE_TIMEOUT, 1000L).set(TarnKeys.CLIENT_LEASE_RENEW, 200L).start();
             TarnClient other = TarnClient.connect(cluster.config())) {
            TarnClient writer = TarnClient.connect(cluster.config());
            TarnOutputStream out = writer.create("/leased");
            byte[] data = random(BLOCK + BLOCK / 2, 1);
            out.write(data);
            out.hsync();
            out.write(random(1000, 2)); // written after the last hsync: may be lost with the writer

            assertThatThrownBy(() -> other.create("/leased", CreateOptions.OVERWRITE))
                    .isInstanceOf(LeaseException.class).hasMessageContaining("/leased");

            // A live writer keeps its lease past the timeout by renewing it.
            Thread.sleep(1500);
            assertThatThrownBy(() -> other.create("/leased", CreateOptions.OVERWRITE))
                    .isInstanceOf(LeaseException.class);

            writer.close(); // the writer dies without closing its file
            Eventually.value(Duration.ofSeconds(15), "the dead writer's lease on /leased to expire",
                    () -> status(other, "/leased"), st -> !st.underConstruction());
            FileStatus recovered = other.getStatus("/leased");
            assertThat(recovered.size()).isEqualTo(data.length); // everything up to the last hsync
            assertThat(readAll(other, "/leased")).isEqualTo(data);
            try (TarnOutputStream again = other.create("/leased", CreateOptions.OVERWRITE)) {
                again.write(7);
            }
            assertThat(readAll(other, "/leased")).containsExactly(7);
        }
    }

    @Test
    void fullStorageGivesNoSpaceAndLosesNothing() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.CLIENT_IO_CHUNK, (long) BLOCK)
                .set(TarnKeys.DRAM_CAPACITY, 16L * BLOCK).set(TarnKeys.DRAM_REGION_SIZE, 8L * BLOCK).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            byte[] keep = random(4 * BLOCK, 2);
            try (TarnOutputStream out = client.create("/keep")) {
                out.write(keep);
            }
            TarnOutputStream hog = client.create("/hog");
            assertThatThrownBy(() -> {
                for (int i = 0; i < 20; i++) {
                    hog.write(random(BLOCK, i));
                }
                hog.close();
            }).isInstanceOf(NoSpaceException.class).hasMessageContaining("/hog");
            // Whichever call failed, the stream is finished: writing again repeats the error.
            assertThatThrownBy(() -> hog.write(1)).isInstanceOf(IOException.class);

            assertThat(readAll(client, "/keep")).isEqualTo(keep);
            assertThat(client.exists("/hog")).isTrue();
            assertThatThrownBy(() -> {
                try (TarnOutputStream more = client.create("/more")) {
                    more.write(random(BLOCK, 3));
                }
            }).isInstanceOf(NoSpaceException.class);

            assertThat(client.delete("/hog", false)).isTrue();
            client.delete("/more", false);
            byte[] fits = random(8 * BLOCK, 4);
            try (TarnOutputStream out = client.create("/fits")) {
                out.write(fits);
            }
            assertThat(readAll(client, "/fits")).isEqualTo(fits);
            assertThat(readAll(client, "/keep")).isEqualTo(keep);
        }
    }

    /** Over TCP and short-circuit alike: a short-circuit call still asks the datanode first. */
    @ParameterizedTest
    @EnumSource(ShortCircuitMode.class)
    void deadDatanodeIsNamedAndLeftOutThenComesBack(ShortCircuitMode mode) throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(2).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DATANODE_TIMEOUT, 1000L).set(TarnKeys.HEARTBEAT_INTERVAL, 100L).start();
             TarnClient client = client(cluster, mode)) {
            byte[] data = random(8 * BLOCK, 5);
            try (TarnOutputStream out = client.create("/spread")) {
                out.write(data);
            }
            int port = cluster.datanode(0).address().getPort();
            cluster.crashDatanode(0);
            Eventually.value(Duration.ofSeconds(15), "datanode 0 to be marked dead", () -> datanodes(client),
                    dns -> dns.stream().anyMatch(d -> !d.alive()));
            assertThatThrownBy(() -> readAll(client, "/spread"))
                    .isInstanceOf(DatanodeUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + port)
                    .matches(e -> ((TarnError) e).code() == ErrorCode.DATANODE_DEAD);

            byte[] fresh = random(6 * BLOCK, 6);
            try (TarnOutputStream out = client.create("/fresh")) {
                out.write(fresh);
            }
            assertThat(readAll(client, "/fresh")).isEqualTo(fresh);

            cluster.restartDatanode(0);
            Eventually.value(Duration.ofSeconds(15), "datanode 0 to be alive again", () -> datanodes(client),
                    dns -> dns.stream().allMatch(DatanodeStatus::alive));
            assertThat(readAll(client, "/spread")).isEqualTo(data);
        }
    }

    /** Over TCP and short-circuit alike: a short-circuit call still asks the datanode first. */
    @ParameterizedTest
    @EnumSource(ShortCircuitMode.class)
    void cleanlyStoppedDatanodeIsLeftOutAtOnce(ShortCircuitMode mode) throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(2).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DATANODE_TIMEOUT, 3_600_000L).start();
             TarnClient client = client(cluster, mode)) {
            byte[] data = random(4 * BLOCK, 12);
            try (TarnOutputStream out = client.create("/before-stop")) {
                out.write(data);
            }
            cluster.stopDatanode(1); // no timeout to wait for: the datanode says goodbye
            assertThat(client.clusterStatus().datanodes()).filteredOn(d -> !d.alive())
                    .singleElement()
                    .matches(d -> d.state() == DatanodeStatus.STOPPED && d.stateName().equals("stopped"));
            assertThatThrownBy(() -> readAll(client, "/before-stop"))
                    .isInstanceOf(DatanodeUnavailableException.class)
                    .matches(e -> ((TarnError) e).code() == ErrorCode.DATA_LOST);
            byte[] fresh = random(4 * BLOCK, 13);
            try (TarnOutputStream out = client.create("/after-stop")) {
                out.write(fresh);
            }
            assertThat(readAll(client, "/after-stop")).isEqualTo(fresh);
        }
    }

    /** Over TCP and short-circuit alike: a short-circuit call still asks the datanode first. */
    @ParameterizedTest
    @EnumSource(ShortCircuitMode.class)
    void clientsSeeADatanodeRestartAndReconnect(ShortCircuitMode mode) throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1).set(TarnKeys.BLOCK_SIZE, (long) BLOCK).start();
             TarnClient client = client(cluster, mode)) {
            byte[] data = random(3 * BLOCK, 8);
            try (TarnOutputStream out = client.create("/survivor")) {
                out.write(data);
            }
            try (TarnInputStream in = client.open("/survivor")) {
                byte[] first = new byte[100];
                in.readFully(0, first, 0, 100);
                cluster.crashDatanode(0);
                cluster.restartDatanode(0);
                byte[] all = new byte[data.length];
                in.readFully(0, all, 0, all.length); // same stream: cached locations, new connection
                assertThat(all).isEqualTo(data);
            }
            try (TarnOutputStream out = client.create("/after-restart")) {
                out.write(data);
            }
            assertThat(readAll(client, "/after-restart")).isEqualTo(data);
        }
    }

    @Test
    void serversSurviveMalformedFramesAndServeOtherClients() throws Exception {
        try (MiniCluster cluster = MiniCluster.builder().datanodes(1).start();
             TarnClient client = TarnClient.connect(cluster.config())) {
            try (TarnOutputStream out = client.create("/ok")) {
                out.write(new byte[1000]);
            }
            int[] ports = {cluster.namenodeAddress().getPort(), cluster.datanode(0).address().getPort()};
            Random random = new Random(99);
            for (int port : ports) {
                for (int i = 0; i < 30; i++) {
                    byte[] junk = new byte[1 + random.nextInt(300)];
                    random.nextBytes(junk);
                    if (i % 3 == 0) {
                        junk[0] = (byte) 0x7f; // absurd length
                    }
                    if (i % 3 == 1 && junk.length >= 24) {
                        // A well-framed request with a garbage body for a real opcode.
                        java.nio.ByteBuffer.wrap(junk).putInt(junk.length - 4).put((byte) 1).put((byte) 0)
                                .putShort((short) (1 + random.nextInt(8))).putLong(1).putInt(0);
                        if (port == ports[1]) {
                            java.nio.ByteBuffer.wrap(junk).putShort(6, (short) (100 + random.nextInt(2)));
                        }
                    }
                    try (Socket s = new Socket("127.0.0.1", port)) {
                        s.setSoTimeout(2000);
                        s.getOutputStream().write(junk);
                        s.shutdownOutput();
                        try {
                            s.getInputStream().readAllBytes();
                        } catch (IOException ignored) {
                            // reset by the server: what we want
                        }
                    }
                }
            }
            assertThat(client.getStatus("/ok").size()).isEqualTo(1000);
            assertThat(readAll(client, "/ok")).hasSize(1000);
            try (TarnClient fresh = TarnClient.connect(cluster.config())) {
                assertThat(readAll(fresh, "/ok")).hasSize(1000);
            }
        }
    }
}
