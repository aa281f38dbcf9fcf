package io.tarn.replication.host;

import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.tarn.rpc.IoThreads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The threads that run a host's replication groups (a datanode's block groups, a namenode's
 * namespace group): a few single-threaded event loops, each owning
 * the groups assigned to it and a timer that gives each of them its ticks. A group stays on one
 * loop for its whole life, so its replica is only ever touched by that thread.
 *
 * <p>The threads are marked as I/O threads ({@link IoThreads}): a message sent to a peer whose
 * connection has no free call slot then waits in the connection's line instead of blocking the
 * loop. Groups are spread over the loops by id. The timer fires every tick, or every few ticks
 * where an idle host should wake less often; a loop whose groups are busy or paused, or whose timer
 * is longer than a tick, delivers several ticks at once ({@link GroupRunner#onTimer()}).
 */
public final class ReplicationLoops implements AutoCloseable {

    private final DefaultEventExecutor[] loops;
    private final List<List<GroupRunner>> groupsOf;

    /**
     * @param threads   how many loops
     * @param timerNanos each loop's timer fires at this period (a tick or more)
     * @param name      thread name prefix
     */
    public ReplicationLoops(int threads, long timerNanos, String name) {
        if (threads < 1) {
            throw new IllegalArgumentException("at least one replication thread is needed");
        }
        loops = new DefaultEventExecutor[threads];
        groupsOf = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            DefaultEventExecutor loop = new DefaultEventExecutor(IoThreads.factory(name + "-" + i));
            List<GroupRunner> groups = new ArrayList<>();
            loops[i] = loop;
            groupsOf.add(groups);
            loop.scheduleAtFixedRate(() -> {
                for (int g = 0; g < groups.size(); g++) {
                    groups.get(g).onTimer();
                }
            }, timerNanos, timerNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The loop that owns group {@code groupId}. */
    public EventExecutor loopFor(long groupId) {
        return loops[index(groupId)];
    }

    /** Starts ticking {@code runner} (created with {@link #loopFor} its group's loop). */
    public void add(GroupRunner runner) {
        int i = index(runner.groupId());
        loops[i].execute(() -> groupsOf.get(i).add(runner));
    }

    /** Stops ticking {@code runner} and closes it. */
    public void remove(GroupRunner runner) {
        int i = index(runner.groupId());
        loops[i].execute(() -> groupsOf.get(i).remove(runner));
        runner.close();
    }

    private int index(long groupId) {
        return (int) Math.floorMod(groupId ^ (groupId >>> 32), (long) loops.length);
    }

    @Override
    public void close() {
        for (DefaultEventExecutor loop : loops) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        for (DefaultEventExecutor loop : loops) {
            loop.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }
    }
}
