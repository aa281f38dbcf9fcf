package io.tarn.rpc.tcp;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.RpcTimeoutException;
import io.tarn.common.error.TarnException;
import io.tarn.common.protocol.Wire;
import io.tarn.rpc.IoThreads;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import io.tarn.rpc.RpcServer;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code tarn.rpc.max.inflight} over real loopback sockets: a call made on an I/O thread when no
 * slot is free waits for one, in order, instead of failing; no more calls than the limit are ever
 * in flight; threads that may block still wait for a slot.
 */
class MaxInflightTest {
    /** Body: a long v and an int delay in ms; answers 2v after the delay, counting calls unanswered. */
    static final int COUNTED = 2000;
    /** Body: a long v; answers 2v at once, not counted (another client's calls). */
    static final int PLAIN = 2001;
    /** Never answered until the test ends. */
    static final int SILENT = 2002;

    final ScheduledExecutorService answers = Executors.newSingleThreadScheduledExecutor();
    final Queue<Long> arrivals = new ConcurrentLinkedQueue<>();
    final AtomicInteger unanswered = new AtomicInteger();
    final AtomicInteger mostUnanswered = new AtomicInteger();
    final Queue<RpcRequest> parked = new ConcurrentLinkedQueue<>();
    final List<Transport> transports = new ArrayList<>();
    RpcServer server;

    final RpcHandler handler = (RpcRequest r) -> {
        switch (r.opcode()) {
            case COUNTED: {
                long v = Wire.readLong(r.body());
                int delay = Wire.readInt(r.body());
                arrivals.add(v);
                mostUnanswered.accumulateAndGet(unanswered.incrementAndGet(), Math::max);
                // One thread, equal delays: answers leave in the order the calls arrived.
                answers.schedule(() -> {
                    unanswered.decrementAndGet();
                    ByteBuf out = r.response();
                    out.writeLong(2 * v);
                    r.send(out);
                }, delay, TimeUnit.MILLISECONDS);
                break;
            }
            case PLAIN: {
                long v = Wire.readLong(r.body());
                ByteBuf out = r.response();
                out.writeLong(2 * v);
                r.send(out);
                break;
            }
            case SILENT:
                parked.add(r);
                break;
            default:
                r.fail(ErrorCode.UNKNOWN_OPCODE, "opcode " + r.opcode());
        }
    };

    @BeforeEach
    void start() throws Exception {
        server = transport(1024, 30_000).bind(new InetSocketAddress("127.0.0.1", 0), handler);
    }

    @AfterEach
    void stop() {
        RpcRequest r;
        while ((r = parked.poll()) != null) {
            r.fail(ErrorCode.INTERNAL, "test over");
        }
        transports.forEach(Transport::close);
        answers.shutdownNow();
    }

    private Transport transport(int maxInflight, long timeoutMillis) {
        TarnConfig config = TarnConfig.builder().set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.RPC_TIMEOUT, timeoutMillis).set(TarnKeys.RPC_IO_THREADS, 2)
                .set(TarnKeys.RPC_MAX_INFLIGHT, maxInflight).set(TarnKeys.CLIENT_WAIT_DIRECT, false).build();
        Transport t = Transports.create(config);
        transports.add(t);
        return t;
    }

    private TcpClient client(int maxInflight, long timeoutMillis) {
        return (TcpClient) transport(maxInflight, timeoutMillis).connect(server.localAddress());
    }

    private static CompletableFuture<Long> counted(RpcClient c, long v, int delayMillis) {
        return c.call(COUNTED, b -> b.writeLong(v).writeInt(delayMillis), ByteBuf::readLong);
    }

    private static <T> T onLoop(TcpClient c, java.util.concurrent.Callable<T> task) throws Exception {
        return c.eventLoop().submit(task).get(10, TimeUnit.SECONDS);
    }

    /** The client's slots are all free again and nothing waits or is in flight. */
    private static void assertIdle(TcpClient c, int maxInflight) throws Exception {
        assertThat(onLoop(c, c::inFlight)).as("calls in flight").isZero();
        assertThat(onLoop(c, c::waitingForSlot)).as("calls waiting for a slot").isZero();
        assertThat(c.freeSlots()).as("free slots").isEqualTo(maxInflight);
    }

    @Test
    void callsChainedFromAnswerCallbacksBeyondTheLimitWaitForSlotsAndGoInOrder() throws Exception {
        int limit = 8;
        int chains = 3 * limit;
        int perChain = 10;
        TcpClient c = client(limit, 30_000);
        AtomicLong next = new AtomicLong();
        Queue<Long> completed = new ConcurrentLinkedQueue<>();
        AtomicInteger mostInFlight = new AtomicInteger();
        AtomicInteger mostWaiting = new AtomicInteger();
        AtomicBoolean offTheIoThread = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(chains);
        Chain chain = new Chain(c, next, completed, mostInFlight, mostWaiting, offTheIoThread, failure, done);

        // The answer comes after the callback is registered; the callback starts all chains at once, on
        // the I/O thread, three times as many as there are slots.
        counted(c, -1, 100).whenComplete((v, e) -> {
            offTheIoThread.compareAndSet(false, !IoThreads.onIoThread());
            for (int k = 0; k < chains; k++) {
                chain.link(perChain);
            }
        });

        assertThat(done.await(30, TimeUnit.SECONDS)).as("every chain finished").isTrue();
        assertThat(failure.get()).isNull();
        assertThat(offTheIoThread.get()).as("a callback ran off the I/O thread").isFalse();
        long calls = (long) chains * perChain;
        List<Long> inIssueOrder = LongStream.range(0, calls).boxed().collect(Collectors.toList());
        assertThat(arrivals.stream().filter(v -> v >= 0)).as("order the server received them in")
                .containsExactlyElementsOf(inIssueOrder);
        assertThat(completed).as("order the calls completed in").containsExactlyElementsOf(inIssueOrder);
        assertThat(mostWaiting.get()).as("calls waited for a slot").isPositive();
        assertThat(mostInFlight.get()).as("most calls in flight, seen by the client").isLessThanOrEqualTo(limit);
        assertThat(mostUnanswered.get()).as("most calls unanswered, seen by the server").isLessThanOrEqualTo(limit);
        assertIdle(c, limit);
    }

    /** Chains of calls, each made by the answer callback of the one before, on the client's I/O thread. */
    private record Chain(TcpClient c, AtomicLong next, Queue<Long> completed, AtomicInteger mostInFlight,
                         AtomicInteger mostWaiting, AtomicBoolean offTheIoThread, AtomicReference<Throwable> failure,
                         CountDownLatch done) {
        void link(int remaining) {
            long v = next.getAndIncrement();
            CompletableFuture<Long> f = counted(c, v, 2);
            sample();
            f.whenComplete((r, e) -> {
                offTheIoThread.compareAndSet(false, !IoThreads.onIoThread());
                sample();
                if (e != null) {
                    failure.compareAndSet(null, e);
                    done.countDown();
                    return;
                }
                if (r != 2 * v) {
                    failure.compareAndSet(null, new AssertionError("call " + v + " answered " + r));
                }
                completed.add(v);
                if (remaining > 1) {
                    link(remaining - 1);
                } else {
                    done.countDown();
                }
            });
        }

        private void sample() {
            if (c.eventLoop().inEventLoop()) {
                mostInFlight.accumulateAndGet(c.inFlight(), Math::max);
                mostWaiting.accumulateAndGet(c.waitingForSlot(), Math::max);
            }
        }
    }

    @Test
    void aCallOnTheIoThreadWithNoFreeSlotWaitsInsteadOfFailing() throws Exception {
        TcpClient c = client(1, 30_000);
        CompletableFuture<Long> first = counted(c, 1, 300);
        CompletableFuture<Long> second = onLoop(c, () -> counted(c, 2, 0));
        CompletableFuture<Boolean> firstDoneBefore = second.thenApply(v -> first.isDone());
        Thread.sleep(100);
        assertThat(second).as("waiting for the only slot").isNotDone();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(2L);
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo(4L);
        assertThat(firstDoneBefore.get(10, TimeUnit.SECONDS)).isTrue();
        assertIdle(c, 1);
    }

    @Test
    void aCallThatGetsNoSlotWithinTheTimeoutFailsWithATimeout() throws Exception {
        // One slot, held 1.5 s per call, 2 s timeout: the second call gets the slot at 1.5 s; the third
        // would get it at 3 s, and fails at 2 s instead.
        TcpClient c = client(1, 2_000);
        CompletableFuture<Long> first = counted(c, 1, 1_500);
        List<CompletableFuture<Long>> waiting = onLoop(c, () -> List.of(counted(c, 2, 1_500), counted(c, 3, 1_500)));
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(2L);
        assertThatThrownBy(() -> waiting.get(1).get(10, TimeUnit.SECONDS)).cause()
                .isInstanceOf(RpcTimeoutException.class).hasMessageContaining("no free call slot");
        assertThat(waiting.get(0).get(10, TimeUnit.SECONDS)).as("answered within its own timeout").isEqualTo(4L);
        assertThat(arrivals).containsExactly(1L, 2L);
        assertThat(counted(c, 4, 0).get(10, TimeUnit.SECONDS)).isEqualTo(8L);
        assertIdle(c, 1);
    }

    @Test
    void closingTheClientFailsTheCallsWaitingForASlot() throws Exception {
        TcpClient c = client(1, 30_000);
        assertThat(counted(c, 0, 0).get(10, TimeUnit.SECONDS)).isZero(); // connected
        CompletableFuture<Object> silent = c.call(SILENT, b -> { }, b -> null);
        List<CompletableFuture<Long>> waiting = onLoop(c, () -> List.of(counted(c, 1, 0), counted(c, 2, 0)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (onLoop(c, c::waitingForSlot) < 2 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(onLoop(c, c::waitingForSlot)).isEqualTo(2);
        c.close();
        for (CompletableFuture<?> f : List.of(silent, waiting.get(0), waiting.get(1))) {
            assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(TarnException.class)
                    .matches(e -> ((TarnException) e).code() == ErrorCode.CONNECTION_LOST);
        }
        assertThat(arrivals).containsExactly(0L);
        assertThat(c.freeSlots()).isEqualTo(1);
    }

    @Test
    void blockingThreadsAndOtherIoThreadsShareTheSlotsWithWaitingCalls() throws Exception {
        int limit = 2;
        TcpClient c = client(limit, 30_000);
        // Calls into c from the I/O thread of another transport (as callbacks of another client's answers
        // would make them).
        TcpClient other = (TcpClient) transport(1024, 30_000).connect(server.localAddress());
        assertThat(other.call(PLAIN, b -> b.writeLong(1), ByteBuf::readLong).get(10, TimeUnit.SECONDS)).isEqualTo(2L);
        int fromOtherLoop = 200;
        List<CompletableFuture<Long>> foreign = new ArrayList<>();
        io.netty.util.concurrent.Future<?> issued = other.eventLoop().submit(() -> {
            assertThat(IoThreads.onIoThread()).isTrue();
            assertThat(c.eventLoop().inEventLoop()).isFalse();
            for (int i = 0; i < fromOtherLoop; i++) {
                foreign.add(counted(c, 100_000 + i, 1));
            }
        });
        // Meanwhile threads that may block, each waiting for a slot per call, as before.
        int threads = 2;
        int perThread = 50;
        List<Thread> blocking = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            long base = (t + 1) * 10_000L;
            Thread thread = new Thread(() -> {
                List<CompletableFuture<Long>> fs = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                    fs.add(counted(c, base + i, 1));
                }
                for (int i = 0; i < perThread; i++) {
                    try {
                        assertThat(fs.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(2 * (base + i));
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }
            });
            thread.start();
            blocking.add(thread);
        }
        issued.get(30, TimeUnit.SECONDS);
        for (int i = 0; i < fromOtherLoop; i++) {
            assertThat(foreign.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(2 * (100_000L + i));
        }
        for (Thread t : blocking) {
            t.join(30_000);
        }
        assertThat(failure.get()).isNull();
        assertThat(mostUnanswered.get()).isLessThanOrEqualTo(limit);
        // Each thread's calls reached the server in the order it made them.
        for (long base : new long[] {10_000, 20_000, 100_000}) {
            long top = base == 100_000 ? base + fromOtherLoop : base + perThread;
            assertThat(arrivals.stream().filter(v -> v >= base && v < top))
                    .as("calls of the thread numbering from %d", base).isSorted().hasSize((int) (top - base));
        }
        assertIdle(c, limit);
    }
}
