package io.tarn.client;

import io.netty.buffer.ByteBufUtil;
import io.tarn.common.config.ShortCircuitMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.security.BlockTokens;
import io.tarn.minicluster.MiniCluster;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Block tokens that expire and keys that rotate, on a real cluster whose tokens live
 * {@value #LIFETIME_MS} ms under keys rotated every {@value #ROTATION_MS} ms: streams open longer
 * than that go on reading and writing (they ask for new tokens when a datanode refuses theirs), and
 * a token replayed after its expiry, or used for another block or mode, or with a stamp changed,
 * is refused by the datanode with the reason.
 */
class BlockTokenExpiryTest {
    private static final long LIFETIME_MS = 1500;
    private static final long ROTATION_MS = 1000;
    private static final int BLOCK = 64 * 1024;

    private static MiniCluster cluster;
    private static Transport transport;

    @BeforeAll
    static void start() throws IOException {
        cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.HEARTBEAT_INTERVAL, 100L)
                .set(TarnKeys.SECURITY_BLOCK_TOKEN_LIFETIME, LIFETIME_MS)
                .set(TarnKeys.SECURITY_BLOCK_KEY_ROTATION, ROTATION_MS).start();
        transport = Transports.create(cluster.config());
    }

    @AfterAll
    static void stop() {
        transport.close();
        cluster.close();
    }

    private static TarnConfig config(ShortCircuitMode shortCircuit) {
        return cluster.config().toBuilder().set(TarnKeys.CLIENT_SHORTCIRCUIT, shortCircuit).build();
    }

    @ParameterizedTest
    @EnumSource(value = ShortCircuitMode.class, names = {"OFF", "AUTO"})
    void streamsOpenLongerThanATokensLifetimeRenewTheirTokens(ShortCircuitMode shortCircuit) throws Exception {
        String path = "/streams-" + shortCircuit;
        byte[] data = TestFiles.random(5 * BLOCK + 123, 11);
        try (TarnClient client = TarnClient.connect(config(shortCircuit))) {
            try (TarnOutputStream out = client.create(path)) {
                out.write(data, 0, BLOCK / 2);
                out.flush();
                // Past the token's expiry (whole seconds, rounded up) and a key rotation.
                Thread.sleep(LIFETIME_MS + 1000 + ROTATION_MS);
                out.write(data, BLOCK / 2, data.length - BLOCK / 2);
            }
            BlockRef first = client.getBlock(client.getStatus(path).fileId(), 0);
            try (TarnInputStream in = client.open(path)) {
                byte[] head = in.readNBytes(2 * BLOCK + 7); // the stream knows the locations of every block now
                sleepUntil(BlockTokens.expiryMillis(first.tokenStamp()) + ROTATION_MS);
                // The token the stream holds is refused now: the rest is read with new ones.
                assertRefused(readWith(first, first.token(), first.tokenStamp(), BlockTokens.READ),
                        ErrorCode.TOKEN_EXPIRED, "has expired; ask the namenode for the block again");
                byte[] rest = in.readAllBytes();
                byte[] all = Arrays.copyOf(head, head.length + rest.length);
                System.arraycopy(rest, 0, all, head.length, rest.length);
                assertThat(all).isEqualTo(data);
            }
            assertThat(read(client, path)).isEqualTo(data);
        }
    }

    @Test
    void aReplayedOrAlteredTokenOrOneForAnotherBlockOrModeIsRefused() throws Exception {
        byte[] data = TestFiles.random(2 * BLOCK, 5);
        try (TarnClient client = TarnClient.connect(config(ShortCircuitMode.OFF))) {
            write(client, "/replay", data);
            long id = client.getStatus("/replay").fileId();
            BlockRef b0 = client.getBlock(id, 0);
            BlockRef b1 = client.getBlock(id, 1);
            assertThat(BlockTokens.expiryMillis(b0.tokenStamp()) - System.currentTimeMillis())
                    .isBetween(0L, LIFETIME_MS + 1000);
            assertThat(readWith(b0, b0.token(), b0.tokenStamp(), BlockTokens.READ).join())
                    .isEqualTo(Arrays.copyOf(data, 16));
            // Another block's token, a read token to write, a stamp whose expiry was pushed back.
            assertRefused(readWith(b1, b0.token(), b0.tokenStamp(), BlockTokens.READ), ErrorCode.INVALID_TOKEN,
                    "does not grant reading");
            assertRefused(readWith(b0, b0.token(), b0.tokenStamp(), BlockTokens.WRITE), ErrorCode.INVALID_TOKEN,
                    "does not grant writing");
            long later = BlockTokens.stampOf(BlockTokens.issuer(b0.tokenStamp()), BlockTokens.keyId(b0.tokenStamp()),
                    BlockTokens.expiryMillis(b0.tokenStamp()) / 1000 + 3600);
            assertRefused(readWith(b0, b0.token(), later, BlockTokens.READ), ErrorCode.INVALID_TOKEN,
                    "does not grant reading");
            // Replayed after its expiry (whole seconds, rounded up): expired, and still after its key is gone.
            sleepUntil(BlockTokens.expiryMillis(b0.tokenStamp()) + 50);
            assertRefused(readWith(b0, b0.token(), b0.tokenStamp(), BlockTokens.READ), ErrorCode.TOKEN_EXPIRED,
                    "has expired");
            Thread.sleep(3 * ROTATION_MS);
            assertRefused(readWith(b0, b0.token(), b0.tokenStamp(), BlockTokens.READ), ErrorCode.TOKEN_EXPIRED,
                    "has expired");
            // Keys rotated: a new token is under a later key, and works.
            BlockRef again = client.getBlock(id, 0);
            assertThat(BlockTokens.keyId(again.tokenStamp())).isNotEqualTo(BlockTokens.keyId(b0.tokenStamp()));
            assertThat(readWith(again, again.token(), again.tokenStamp(), BlockTokens.READ).join())
                    .isEqualTo(Arrays.copyOf(data, 16));
        }
    }

    private static void sleepUntil(long epochMillis) throws InterruptedException {
        long wait = epochMillis - System.currentTimeMillis();
        if (wait > 0) {
            Thread.sleep(wait);
        }
    }

    /** The first 16 bytes of {@code ref}'s block read (or written, for WRITE) over TCP with the given token. */
    private static CompletableFuture<byte[]> readWith(BlockRef ref, long token, long stamp,
                                                                          int mode) {
        InetSocketAddress dn = cluster.datanode(0).address();
        RpcClient c = transport.connect(new InetSocketAddress("127.0.0.1", dn.getPort()));
        if (mode == BlockTokens.WRITE) {
            return c.call(Opcode.WRITE_BLOCK, b -> {
                DatanodeProtocol.writeAccess(b, ref.regionId(), ref.blockIndex(), ref.generation(), token, stamp, 0,
                        16);
                b.writeZero(16);
            }, ByteBufUtil::getBytes);
        }
        return c.call(Opcode.READ_BLOCK, b -> DatanodeProtocol.writeAccess(b, ref.regionId(), ref.blockIndex(),
                ref.generation(), token, stamp, 0, 16), ByteBufUtil::getBytes);
    }

    private static void assertRefused(CompletableFuture<byte[]> call, ErrorCode code,
                                      String message) {
        assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().satisfies(e -> {
                    Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                    assertThat(t).isInstanceOf(TarnError.class).hasMessageContaining(message);
                    assertThat(((TarnError) t).code()).isEqualTo(code);
                });
    }
}
