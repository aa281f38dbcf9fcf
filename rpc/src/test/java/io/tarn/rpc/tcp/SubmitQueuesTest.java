package io.tarn.rpc.tcp;

import org.jctools.queues.MpscUnboundedArrayQueue;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/** The queue of submitted calls: JCTools' unbounded MPSC queue, each producer's order kept. */
class SubmitQueuesTest {
    @Test
    void usesUnsafeOnlyBeforeJava24() {
        Queue<Object> q = SubmitQueues.newMpscQueue();
        if (Runtime.version().feature() >= 24) {
            assertThat(q).isInstanceOf(MpscUnboundedAtomicArrayQueue.class);
        } else {
            assertThat(q).isInstanceOf(SubmitQueues.UNSAFE
                    ? MpscUnboundedArrayQueue.class : MpscUnboundedAtomicArrayQueue.class);
        }
    }

    @Test
    void neverFullAndKeepsEachProducersOrder() throws Exception {
        Queue<long[]> q = SubmitQueues.newMpscQueue();
        int producers = 4;
        int each = 20 * SubmitQueues.CHUNK + 7; // across many chunks
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            long producer = p;
            Thread t = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (long i = 0; i < each; i++) {
                    assertThat(q.offer(new long[] {producer, i})).isTrue();
                }
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        long[] next = new long[producers];
        int seen = 0;
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (seen < producers * each && System.nanoTime() < deadline) {
            long[] e = q.poll();
            if (e == null) {
                Thread.onSpinWait();
                continue;
            }
            assertThat(e[1]).as("next element of producer %d", e[0]).isEqualTo(next[(int) e[0]]);
            next[(int) e[0]]++;
            seen++;
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(seen).isEqualTo(producers * each);
        assertThat(q.poll()).isNull();
    }
}
