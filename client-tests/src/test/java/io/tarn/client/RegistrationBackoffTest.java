package io.tarn.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.datanode.NamenodeLink;
import io.tarn.minicluster.MiniCluster;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A datanode's registration loop against a real namenode: a registration the namenode accepts but
 * the datanode cannot apply (as when hosting its groups again fails) is retried with exponential
 * back-off instead of at every interval, and the back-off starts over once the
 * namenode answers heartbeats again.
 */
class RegistrationBackoffTest {
    private static final long BLOCK = 64 << 10;
    private static final long INTERVAL_MS = 20;

    @Test
    void aRegistrationThatCannotBeAppliedIsRetriedWithBackoffWhichResetsOnceHealthy() throws Exception {
        ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
        try (MiniCluster cluster = MiniCluster.builder().datanodes(0).set(TarnKeys.BLOCK_SIZE, BLOCK).start();
             Transport transport = Transports.create(TarnConfig.defaults())) {
            UUID storage = UUID.randomUUID();
            RegisterRequest request = new RegisterRequest(storage.getMostSignificantBits(),
                    storage.getLeastSignificantBits(), "127.0.0.1", 1, 0, 16 * BLOCK, 1, 0, 1, false, false);
            List<Long> answered = new CopyOnWriteArrayList<>();
            AtomicBoolean refusing = new AtomicBoolean(true);
            NamenodeLink link = new NamenodeLink(transport.connect(cluster.namenodeAddress()), () -> request,
                    response -> {
                        answered.add(System.nanoTime());
                        if (refusing.get()) {
                            throw new IOException("this datanode cannot apply the registration (test)");
                        }
                    }, Duration.ofMillis(INTERVAL_MS), thread);
            link.start();
            Thread.sleep(2_000);
            // Every one of these registrations reached the namenode, which logged a re-registration.
            List<Long> refused = List.copyOf(answered);
            assertThat(refused).as("about 10 registrations in 2 s, not one per 20 ms interval (100)")
                    .hasSizeBetween(4, 20);
            assertThat(link.registrations()).isGreaterThanOrEqualTo(refused.size());
            long cap = NamenodeLink.backoffCap(INTERVAL_MS);
            assertThat(cap).isEqualTo(320);
            for (int k = 1; k < refused.size(); k++) {
                assertThat(TimeUnit.NANOSECONDS.toMillis(refused.get(k) - refused.get(k - 1)))
                        .as("wait after %d refused registrations", k)
                        .isGreaterThanOrEqualTo(NamenodeLink.backoff(INTERVAL_MS, cap, k));
            }

            refusing.set(false);
            assertThat(link.awaitRegistered(Duration.ofSeconds(10))).isTrue();
            Thread.sleep(10 * INTERVAL_MS); // heartbeats answered: the failures are forgotten

            // The namenode forgets the datanode (as after a clean stop): its next heartbeat is answered
            // UNKNOWN_DATANODE, and it registers again at once; that registration is refused again.
            refusing.set(true);
            int before = answered.size();
            try (RpcClient admin = transport.connect(cluster.namenodeAddress())) {
                DeregisterRequest goodbye = new DeregisterRequest(link.datanodeId(), storage.getMostSignificantBits(),
                        storage.getLeastSignificantBits(), true);
                admin.call(Opcode.DEREGISTER_DATANODE, goodbye::encode, body -> Boolean.TRUE).get(10, TimeUnit.SECONDS);
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (answered.size() < before + 2) {
                assertThat(System.nanoTime()).as("registered again twice").isLessThan(deadline);
                Thread.sleep(5);
            }
            long gap = TimeUnit.NANOSECONDS.toMillis(answered.get(before + 1) - answered.get(before));
            assertThat(gap).as("the back-off started over: the second wait, not the cap")
                    .isGreaterThanOrEqualTo(NamenodeLink.backoff(INTERVAL_MS, cap, 2))
                    .isLessThan(cap);
            link.close();
        } finally {
            thread.shutdownNow();
        }
    }
}
