package io.tarn.rpc.tcp;

import org.jctools.queues.MpscUnboundedArrayQueue;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

import java.util.Queue;

/**
 * Makes the queue a {@link TcpClient} hands submitted calls to its event loop through: JCTools'
 * unbounded multi-producer single-consumer array queue in chunks of {@value #CHUNK} elements, the
 * queue Netty's {@code PlatformDependent.newMpscQueue()} made before (Netty shades its own copy
 * of JCTools, which is internal).
 *
 * <p>Called once per client, at construction. The queue it returns is lock-free, never full (a
 * producer never waits), keeps each producer's elements in the order offered, and allows one
 * consumer at a time. Like Netty, it uses the variant built on {@code sun.misc.Unsafe} where that
 * is quiet, and on Java 24 and later, which warns on the first use of Unsafe's memory access (JEP
 * 498), or where Unsafe cannot be had, the one built on {@code java.util.concurrent.atomic}.
 */
final class SubmitQueues {
    /** Elements per chunk; Netty's choice. */
    static final int CHUNK = 1024;
    /** True when queues use {@code sun.misc.Unsafe}. */
    static final boolean UNSAFE = unsafeUsable();

    private SubmitQueues() {
    }

    /** A new empty queue. */
    static <T> Queue<T> newMpscQueue() {
        return UNSAFE ? new MpscUnboundedArrayQueue<>(CHUNK) : new MpscUnboundedAtomicArrayQueue<>(CHUNK);
    }

    private static boolean unsafeUsable() {
        if (Runtime.version().feature() >= 24) {
            return false;
        }
        try {
            new MpscUnboundedArrayQueue<>(CHUNK); // loads JCTools' access to Unsafe, which may fail
            return true;
        } catch (LinkageError | RuntimeException e) {
            return false;
        }
    }
}
