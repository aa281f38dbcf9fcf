package io.tarn.client;

import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.FileExistsException;
import io.tarn.common.fs.FileStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Blocking namespace calls poll for their answer before sleeping ({@code tarn.client.wait.spin})
 * when no other thread of the client waits for one, and answer exactly as without polling.
 */
class AnswerWaitTest {
    static MiniCluster cluster;
    static TarnClient polling;
    static TarnClient sleeping;

    @BeforeAll
    static void start() throws IOException {
        cluster = MiniCluster.builder().datanodes(1).set(TarnKeys.CLIENT_WAIT_SPIN, 10_000).start();
        polling = TarnClient.connect(cluster.config());
        sleeping = TarnClient.connect(cluster.config().toBuilder().set(TarnKeys.CLIENT_WAIT_SPIN, 0).build());
    }

    @AfterAll
    static void stop() {
        for (AutoCloseable c : new AutoCloseable[] {sleeping, polling, cluster}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void namespaceCallsAnswerTheSameWithAndWithoutPolling() throws IOException {
        for (TarnClient c : new TarnClient[] {polling, sleeping}) {
            String dir = c == polling ? "/polling" : "/sleeping";
            c.mkdirs(dir);
            try (TarnOutputStream out = c.create(dir + "/f")) {
                out.write(new byte[] {1, 2, 3});
            }
            assertThat(c.getStatus(dir + "/f").size()).isEqualTo(3);
            c.rename(dir + "/f", dir + "/g");
            assertThat(c.list(dir)).extracting(FileStatus::name).containsExactly("g");
            assertThatThrownBy(() -> c.getStatus(dir + "/f")).isInstanceOf(FileNotFoundException.class)
                    .hasMessageContaining(dir + "/f");
            assertThat(c.delete(dir, true)).isTrue();
        }
        // Whether a given wait of the polling client polled depends on whether its answer was already
        // there (aSecondWaiterSleepsAtOnce counts polls where that cannot be); the other never polls.
        assertThat(sleeping.answers().polls()).isZero();
    }

    /**
     * Blocking namespace calls are made on the caller's thread over a second connection of the
     * client ({@code tarn.client.wait.direct}, on by default); with the key off the client keeps one
     * connection. Both answer alike, errors included.
     */
    @Test
    void blockingCallsTakeTheirOwnConnectionUnlessSwitchedOff() throws Exception {
        int before = cluster.namenode().connectionCount();
        for (boolean direct : new boolean[] {true, false}) {
            try (TarnClient c = TarnClient.connect(cluster.config().toBuilder()
                    .set(TarnKeys.CLIENT_WAIT_DIRECT, direct).build())) {
                String dir = "/direct-" + direct;
                c.mkdirs(dir);
                c.create(dir + "/f").close();
                assertThat(c.getStatus(dir + "/f").size()).isZero();
                assertThatThrownBy(() -> c.create(dir + "/f", new CreateOptions(false, false, -1)))
                        .isInstanceOf(FileExistsException.class).hasMessageContaining(dir + "/f");
                c.rename(dir + "/f", dir + "/g");
                assertThat(c.list(dir)).extracting(FileStatus::name).containsExactly("g");
                assertThat(c.delete(dir, true)).isTrue();
                assertThat(cluster.namenode().connectionCount() - before).as("connections of a client, direct=%s",
                        direct).isEqualTo(direct ? 2 : 1);
            }
            Eventually.value(Duration.ofSeconds(10), "the closed client's connections gone (the namenode's count back"
                    + " to " + before + ", direct=" + direct + ")",
                    () -> cluster.namenode().connectionCount(), n -> n == before);
        }
    }

    /**
     * While one thread waits (polling, then asleep) a second waiter sleeps at once: at most one
     * thread per client spins. Decided by the waiters' count, not by timing.
     */
    @Test
    void aSecondWaiterSleepsAtOnce() throws Exception {
        long polls = polling.answers().polls();
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> second = new CompletableFuture<>();
        AtomicReference<Object> firstGot = new AtomicReference<>();
        AtomicReference<Object> secondGot = new AtomicReference<>();
        Thread a = waiter(first, firstGot);
        a.start();
        awaitWaiters(1);
        Thread b = waiter(second, secondGot);
        b.start();
        awaitWaiters(2);
        assertThat(polling.answers().polls() - polls).as("only the first waiter polled").isEqualTo(1);

        second.complete("two");
        b.join(TimeUnit.SECONDS.toMillis(10));
        first.completeExceptionally(new FileNotFoundException("no such file: '/x'"));
        a.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(secondGot.get()).isEqualTo("two");
        assertThat(firstGot.get()).isInstanceOf(FileNotFoundException.class);
        assertThat(polling.answers().waiters()).isZero();
    }

    @Test
    void aWaitOnAnIoThreadIsRefusedBeforeAnyPolling() throws Exception {
        long polls = polling.answers().polls();
        CompletableFuture<String> never = new CompletableFuture<>();
        int refused = 0;
        // A callback runs on the I/O thread that reads the answer, unless the answer came before the
        // callback was attached (then on this thread, where it does not wait): try until it did.
        for (int i = 0; i < 50 && refused == 0; i++) {
            Object got = polling.getStatusAsync("/").thenApply(st -> {
                if (!Thread.currentThread().getName().startsWith("tarn-tcp")) {
                    return "not on an I/O thread";
                }
                try {
                    return polling.answers().awaitAnswer(() -> never);
                } catch (IOException | RuntimeException e) {
                    return e;
                }
            }).get(10, TimeUnit.SECONDS);
            if (got instanceof IllegalStateException e) {
                assertThat(e).hasMessageContaining("I/O thread");
                refused++;
            } else {
                assertThat(got).isEqualTo("not on an I/O thread");
            }
        }
        assertThat(refused).isEqualTo(1);
        assertThat(polling.answers().polls()).isEqualTo(polls);
        assertThat(polling.answers().waiters()).isZero();
    }

    private static Thread waiter(CompletableFuture<String> f, AtomicReference<Object> got) {
        return new Thread(() -> {
            try {
                got.set(polling.answers().awaitAnswer(() -> f));
            } catch (IOException e) {
                got.set(e);
            }
        });
    }

    private static void awaitWaiters(int n) {
        Eventually.value(Duration.ofSeconds(10), n + " waiters", () -> polling.answers().waiters(), w -> w >= n);
    }
}
