package io.tarn.rpc;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * Marks the threads that run a transport's I/O (its event loops), so that code above the transport
 * can tell when it runs on one: a call that blocks there for an answer would stall every
 * connection the thread serves, and hang when the answer is to arrive on that same thread.
 * Transports create their I/O threads with {@link #factory(String)}.
 */
public final class IoThreads {
    private IoThreads() {
    }

    /** True when the calling thread is one of a Tarn transport's I/O threads. */
    public static boolean onIoThread() {
        return Thread.currentThread() instanceof IoThread;
    }

    /** A factory of daemon I/O threads named {@code prefix-N-M}, which {@link #onIoThread()} recognises. */
    public static DefaultThreadFactory factory(String prefix) {
        return new DefaultThreadFactory(prefix, true) {
            @Override
            protected Thread newThread(Runnable r, String name) {
                return new IoThread(threadGroup, r, name);
            }
        };
    }

    /** Netty's fast thread-local thread, as DefaultThreadFactory makes them, with Tarn's mark. */
    private static final class IoThread extends FastThreadLocalThread {
        IoThread(ThreadGroup group, Runnable r, String name) {
            super(group, r, name);
        }
    }
}
