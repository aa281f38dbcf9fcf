package io.tarn.replication.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.host.GroupRunner.Outcome;
import io.tarn.replication.host.LocalGroup.Bytes;
import io.tarn.replication.BlockRange;
import io.tarn.replication.DiskOp;
import io.tarn.replication.Role;
import io.tarn.replication.Status;
import io.tarn.replication.WriteCommand;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The host side of a replica on real threads and a real clock: timing, effects, failover, timeouts. */
class GroupRunnerTest {

    private static WriteCommand write(long client, long seq, int offset, String text) {
        return new WriteCommand(client, seq, seq, new BlockRange(offset, text.length()), new Bytes(text));
    }

    private static int awaitLeader(LocalGroup g, long timeoutMs) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadline) {
            int leader = g.activeLeader();
            if (leader >= 0) {
                return leader;
            }
            Thread.sleep(2);
        }
        throw new AssertionError("no active leader within " + timeoutMs + " ms");
    }

    private static void awaitIdentical(LocalGroup g, List<Integer> members) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (true) {
            byte[] first = g.onLoop(members.get(0), () -> g.stores.get(members.get(0)).bytes.clone());
            boolean same = true;
            for (int m : members) {
                byte[] other = g.onLoop(m, () -> g.stores.get(m).bytes.clone());
                same &= Arrays.equals(first, other);
            }
            if (same) {
                return;
            }
            assertThat(System.nanoTime()).as("replicas never became identical").isLessThan(deadline);
            Thread.sleep(5);
        }
    }

    @Test
    void leadershipChangesAreReportedToTheListenerAsTheyHappen() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            Map<Integer, List<String>> told = new ConcurrentHashMap<>();
            for (int m : g.members) {
                told.put(m, new CopyOnWriteArrayList<>());
                GroupRunner r = g.runner(m);
                // What the member's own status says when it is told: the listener runs after the change.
                r.onLeadershipChange(() -> told.get(m).add(r.role() + " term " + r.term() + " leader "
                        + r.leaderId() + (r.leads() ? " leads" : "")));
            }
            g.runner(1).campaign();
            assertThat(awaitLeader(g, 2000)).isEqualTo(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            while (told.get(1).stream().noneMatch(t -> t.endsWith(" leads")) && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            assertThat(told.get(1)).as("the elected member is told once it leads within its lease")
                    .anyMatch(t -> t.startsWith("LEADER") && t.endsWith("leader 1 leads"));
            for (int f : List.of(0, 2)) {
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
                while (told.get(f).stream().noneMatch(t -> t.endsWith("leader 1")) && System.nanoTime() < deadline) {
                    Thread.sleep(2);
                }
                assertThat(told.get(f)).as("follower %d is told who leads", f)
                        .anyMatch(t -> t.startsWith("FOLLOWER") && t.endsWith("leader 1"));
            }
            int before = told.get(1).size();
            Thread.sleep(300); // ten heartbeats: nothing changes, nothing is reported
            assertThat(told.get(1)).as("a steady leader is not told again").hasSize(before);
        }
    }

    @Test
    void aTimerOfSeveralTicksKeepsTheLeaderAndCommits() throws Exception {
        // A namenode group's loops fire every 5 ms and deliver the 1 ms ticks due in a batch.
        try (LocalGroup g = LocalGroup.withTimer(TimeUnit.MILLISECONDS.toNanos(5))) {
            g.runner(1).campaign();
            int leader = awaitLeader(g, 2000);
            long term = g.runner(leader).term();
            for (int i = 1; i <= 40; i++) {
                Outcome o = g.runner(leader).write(write(7, i, 0, String.format("t%03d", i))).get(5, TimeUnit.SECONDS);
                assertThat(o.status()).isEqualTo(Status.OK);
                Thread.sleep(10);
            }
            // 400 ms and more: heartbeats every 30 ticks in batches of five kept every follower quiet.
            assertThat(g.runner(leader).term()).as("no election while the leader is up").isEqualTo(term);
            assertThat(g.runner(leader).leads()).isTrue();
            awaitIdentical(g, g.members);
            assertThat(new String(g.stores.get(0).read(new BlockRange(0, 4)), StandardCharsets.ISO_8859_1))
                    .isEqualTo("t040");
        }
    }

    @Test
    void designatedLeaderServesConcurrentWritersAndReplicasConverge() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            g.runner(1).campaign();
            int leader = awaitLeader(g, 2000);
            assertThat(leader).as("the designated member leads").isEqualTo(1);
            int writers = 4;
            int each = 50;
            List<CompletableFuture<Outcome>> all = new ArrayList<>();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int client = w + 1;
                Thread t = new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < each; i++) {
                        String text = String.format("c%d-%03d|", client, i);
                        int offset = (client - 1) * 1024 + i * 8 % 1024;
                        CompletableFuture<Outcome> f = g.runner(leader).write(write(client, i + 1, offset, text));
                        synchronized (all) {
                            all.add(f);
                        }
                    }
                });
                threads.add(t);
                t.start();
            }
            go.countDown();
            for (Thread t : threads) {
                t.join();
            }
            for (CompletableFuture<Outcome> f : all) {
                Outcome o = f.get(5, TimeUnit.SECONDS);
                assertThat(o.status()).as("write outcome").isIn(Status.OK, Status.BUSY);
            }
            assertThat(all).filteredOn(f -> f.join().ok()).isNotEmpty();
            awaitIdentical(g, g.members);
            Outcome read = g.runner(leader).read(7, new BlockRange(0, 8)).get(5, TimeUnit.SECONDS);
            assertThat(read.ok()).isTrue();
            assertThat(read.data()).isEqualTo(g.onLoop(leader, () -> Arrays.copyOf(g.stores.get(leader).bytes, 8)));
            assertThat(g.journals.get(0)).anyMatch(op -> op instanceof DiskOp.PersistEntries);
        }
    }

    @Test
    void writesBeyondTheWindowWaitAtTheLeaderAndApplyInArrivalOrder() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            g.runner(1).campaign();
            int leader = awaitLeader(g, 2000);
            // A window's worth in flight, the rest held (far below the group's share of 64 MiB).
            int n = 4 * LocalGroup.CONFIG.window();
            List<CompletableFuture<Outcome>> all = new ArrayList<>();
            for (int i = 1; i <= n; i++) {
                // Every write overwrites the same bytes: the last one proposed is what stays.
                all.add(g.runner(leader).write(write(9, i, 100, String.format("w%04d", i))));
            }
            for (CompletableFuture<Outcome> f : all) {
                assertThat(f.get(10, TimeUnit.SECONDS).status()).as("no write bounced for a full window")
                        .isEqualTo(Status.OK);
            }
            awaitIdentical(g, g.members);
            byte[] last = g.onLoop(leader, () -> Arrays.copyOfRange(g.stores.get(leader).bytes, 100, 105));
            assertThat(new String(last, java.nio.charset.StandardCharsets.US_ASCII))
                    .isEqualTo(String.format("w%04d", n));
        }
    }

    /**
     * More writers than the window and the held room take, each trying a bounced write again after
     * a pause as a client does: the bounced writes wait in line for the room that frees up, and
     * every write is applied well within its client's timeout.
     */
    @Test
    void writersBeyondTheHeldRoomAreBouncedAndAllGetThrough() throws Exception {
        int writers = 96;
        int each = 4;
        WriteCommand sample = write(9, 1, 0, "w0000");
        // Room for 8 held writes: the window (32) and the held ones take 40 of the 96 offered.
        try (LocalGroup g = new LocalGroup(16 * HeldWrites.charge(sample))) {
            g.runner(1).campaign();
            int leader = awaitLeader(g, 2000);
            List<Integer> followers = g.members.stream().filter(m -> m != leader).toList();
            followers.forEach(g::stallDisk); // nothing commits: the window fills and stays full
            AtomicInteger bounced = new AtomicInteger();
            AtomicInteger mostBounces = new AtomicInteger();
            ScheduledExecutorService pause = Executors.newSingleThreadScheduledExecutor();
            try {
                List<CompletableFuture<Void>> all = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    long client = 100 + w;
                    int offset = (w % 64) * 6;
                    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
                    for (int i = 1; i <= each; i++) {
                        WriteCommand c = write(client, i, offset, String.format("%05d", w * 10 + i));
                        chain = chain.thenCompose(v ->
                                untilNotBusy(g.runner(leader), c, pause, bounced, mostBounces, 0));
                    }
                    all.add(chain);
                }
                Thread.sleep(300);
                assertThat(bounced.get()).as("writes were bounced while nothing committed").isPositive();
                followers.forEach(g::resumeDisk);
                CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).get(20, TimeUnit.SECONDS);
            } finally {
                pause.shutdownNow();
            }
            awaitIdentical(g, g.members);
            assertThat(mostBounces.get()).as("bounces of the most bounced write (pauses of 5 ms)")
                    .isLessThan(400);
        }
    }

    /** Writes {@code c} at {@code runner}, again after 5 ms each time it is bounced BUSY; fails on anything but OK. */
    private static CompletableFuture<Void> untilNotBusy(GroupRunner runner, WriteCommand c,
                                                        ScheduledExecutorService pause,
                                                        AtomicInteger bounced,
                                                        AtomicInteger mostBounces,
                                                        int bounces) {
        return runner.write(c).thenCompose(o -> {
            if (o.status() == Status.BUSY) {
                bounced.incrementAndGet();
                mostBounces.accumulateAndGet(bounces + 1, Math::max);
                CompletableFuture<Void> again = new CompletableFuture<>();
                pause.schedule(() -> untilNotBusy(runner, c, pause, bounced, mostBounces, bounces + 1)
                        .whenComplete((v, e) -> {
                            if (e != null) {
                                again.completeExceptionally(e);
                            } else {
                                again.complete(v);
                            }
                        }), 5, TimeUnit.MILLISECONDS);
                return again;
            }
            if (o.status() != Status.OK) {
                return CompletableFuture.failedFuture(new AssertionError("write " + c.clientId() + "/"
                        + c.sequence() + ": " + o));
            }
            return CompletableFuture.completedFuture(null);
        });
    }

    /**
     * Writes held because a live follower was about to fall off the leader's log go out once it
     * catches up, although its catching up moves no commit prefix (the other two committed
     * everything): they used to wait for a commit that only they could cause, until they timed out.
     */
    @Test
    void writesHeldForALaggingFollowerGoOutOnceItCatchesUp() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            g.runner(1).campaign();
            int leader = awaitLeader(g, 2000);
            int slow = (leader + 1) % 3;
            fallBehindTheLog(g, leader, slow);
            List<CompletableFuture<Outcome>> all = new ArrayList<>();
            for (int i = 65; i <= 64 + LocalGroup.CONFIG.window(); i++) {
                all.add(g.runner(leader).write(write(9, i, 100, String.format("w%04d", i))));
            }
            Thread.sleep(100);
            assertThat(all).as("the new writes are held").noneMatch(CompletableFuture::isDone);
            long committed = g.onLoop(leader, () -> g.runner(leader).replica().commitPrefix());
            long last = g.onLoop(leader, () -> g.runner(leader).replica().lastIndex());
            assertThat(committed).as("everything proposed is committed by the other two").isEqualTo(last);

            g.resumeDisk(slow);
            for (CompletableFuture<Outcome> f : all) {
                assertThat(f.get(10, TimeUnit.SECONDS).status()).as("held write").isEqualTo(Status.OK);
            }
            awaitIdentical(g, g.members);
        }
    }

    /**
     * Held writes whose requests timed out give their room back to the datanode's other groups at
     * once, though their group makes no progress and gets no new write (it proposes nothing again
     * until one of those happens).
     */
    @Test
    void heldWritesThatTimedOutFreeTheirRoomWhileTheGroupIsStuck() throws Exception {
        WriteCommand sample = write(9, 65, 100, "w0065");
        HeldWrites.Budget budget = new HeldWrites.Budget(4 * HeldWrites.charge(sample)); // two per group
        try (LocalGroup g = new LocalGroup(m -> budget)) {
            g.runner(1).campaign();
            int leader = awaitLeader(g, 2000);
            fallBehindTheLog(g, leader, (leader + 1) % 3);
            CompletableFuture<Outcome> a = g.runner(leader).write(write(9, 65, 100, "w0065"));
            CompletableFuture<Outcome> b = g.runner(leader).write(write(9, 66, 100, "w0066"));
            Outcome c = g.runner(leader).write(write(9, 67, 100, "w0067")).get(1, TimeUnit.SECONDS);
            assertThat(c.status()).as("no room left: bounced").isEqualTo(Status.BUSY);
            assertThat(budget.used()).as("two writes held").isEqualTo(2 * HeldWrites.charge(sample));
            assertThat(a.get(10, TimeUnit.SECONDS).status()).as("timed out").isNull();
            assertThat(b.get(10, TimeUnit.SECONDS).status()).as("timed out").isNull();
            // Within a few ticks, well before the leader stops waiting for its laggard (3 s after the
            // first write it held back) and proposes again.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (budget.used() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(budget.used()).as("their room is free without another write to the group").isZero();
        }
    }

    /** A write the leader holds for a lagging member until the request times out says so, naming it. */
    @Test
    void aWriteHeldUntilItTimesOutSaysWhatTheLeaderWaitsFor() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            g.runner(1).campaign();
            int leader = awaitLeader(g, 2000);
            int slow = (leader + 1) % 3;
            fallBehindTheLog(g, leader, slow);
            Outcome o = g.runner(leader).write(write(9, 65, 100, "late")).get(10, TimeUnit.SECONDS);
            assertThat(o.status()).as("timed out").isNull();
            assertThat(o.unavailable()).contains("did not answer within 2000 ms (LEADER here); the leader holds writes "
                    + "back: it waits for member " + slow + " to catch up before its next checkpoint cuts the log");
        }
    }

    /**
     * Stalls {@code slow}'s journal and writes past the leader's first checkpoint (64 writes), after
     * which the leader waits for that member before it admits more.
     */
    private static void fallBehindTheLog(LocalGroup g, int leader, int slow) throws Exception {
        g.stallDisk(slow);
        for (int i = 1; i <= 64; i++) {
            assertThat(g.runner(leader).write(write(9, i, 100, String.format("w%04d", i)))
                    .get(10, TimeUnit.SECONDS).status()).isEqualTo(Status.OK);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (g.onLoop(leader, () -> g.runner(leader).replica().admitsWrites()) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(g.onLoop(leader, () -> g.runner(leader).replica().admitsWrites()))
                .as("writes wait for the live follower that fell behind").isFalse();
        assertThat(g.onLoop(leader, () -> g.runner(leader).replica().busyReason()))
                .contains("waits for member " + slow);
    }

    @Test
    void followerAnswersNotLeaderWithAHint() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            g.runner(0).campaign();
            TestWriter writer = new TestWriter(g::runner, 3, 0);
            writer.write(write(1, 1, 0, "x"));
            int follower = (writer.leader() + 1) % 3;
            Outcome o = g.runner(follower).write(write(1, 2, 0, "y")).get(5, TimeUnit.SECONDS);
            assertThat(o.status()).isEqualTo(Status.NOT_LEADER);
            assertThat(o.leaderHint()).isEqualTo(writer.leader());
        }
    }

    @Test
    void newLeaderTakesOverWithinASecondAndARetriedWriteAppliesOnce() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            g.runner(0).campaign();
            TestWriter writer = new TestWriter(g::runner, 3, 0);
            writer.write(write(5, 1, 100, "first"));
            int old = writer.leader();
            long cutAt = System.nanoTime();
            g.cut.add(old);
            WriteCommand retried = write(5, 2, 200, "second");
            TestWriter survivors = new TestWriter(m -> m == old ? null : g.runner(m), 3, (old + 1) % 3);
            survivors.write(retried);
            int leader = survivors.leader();
            assertThat(leader).isNotEqualTo(old);
            long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt);
            assertThat(failoverMs).as("cut to first write acknowledged by the new leader (an election, not a "
                    + "request timeout; the figure itself is measured by the failover benchmark)").isLessThan(3000);
            int other = 3 - leader - old;
            awaitIdentical(g, List.of(leader, other));
            int appliedBefore = g.onLoop(other, () -> g.stores.get(other).applied);
            survivors.write(retried);
            survivors.write(write(5, 3, 300, "third"));
            awaitIdentical(g, List.of(leader, other));
            assertThat(g.onLoop(other, () -> g.stores.get(other).applied))
                    .as("the retried sequence is not applied twice, the next one once").isEqualTo(appliedBefore + 1);
        }
    }

    @Test
    void writeWithoutQuorumFailsInTimeNamingTheUnreachableMembers() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            g.runner(0).campaign();
            TestWriter writer = new TestWriter(g::runner, 3, 0);
            writer.write(write(3, 1, 0, "here"));
            int leader = writer.leader();
            int a = (leader + 1) % 3;
            int b = (leader + 2) % 3;
            g.cut.add(a);
            g.cut.add(b);
            long start = System.nanoTime();
            Outcome o = g.runner(leader).write(write(3, 2, 0, "lost?")).get(10, TimeUnit.SECONDS);
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(o.ok()).isFalse();
            assertThat(o.leaderHint()).isEqualTo(-1);
            assertThat(o.unavailable()).contains("group 42").contains("member " + a).contains("member " + b);
            assertThat(waitedMs).as("answered within the request timeout").isLessThan(2500L);
            Outcome later = g.runner(leader).write(write(3, 3, 0, "again")).get(10, TimeUnit.SECONDS);
            assertThat(later.ok()).isFalse();
            assertThat(later.unavailable()).contains("member " + a).contains("member " + b);
        }
    }

    @Test
    void pausedLeaderDoesNotServeAStaleReadAfterItResumes() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            g.runner(0).campaign();
            TestWriter writer = new TestWriter(g::runner, 3, 0);
            writer.write(write(1, 1, 0, "old"));
            int old = writer.leader();
            CountDownLatch paused = new CountDownLatch(1);
            g.runner(old).loop().execute(() -> {
                paused.countDown();
                try {
                    Thread.sleep(1500);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            paused.await();
            g.cut.add(old);
            new TestWriter(m -> m == old ? null : g.runner(m), 3, (old + 1) % 3).write(write(2, 1, 0, "new"));
            CompletableFuture<Outcome> staleRead = g.runner(old).read(9, new BlockRange(0, 3));
            Outcome r = staleRead.get(5, TimeUnit.SECONDS);
            assertThat(r.ok()).as("the old leader must not serve a read once its lease ran out").isFalse();
        }
    }

    /**
     * A follower whose loop stalls for longer than an election timeout (a GC pause, a thread that got
     * no core) finds the leader's heartbeats waiting in its queue when it resumes: it handles them
     * in time order before its election timer, and the leader keeps its term.
     */
    @Test
    void aFollowerWhoseLoopStalledDoesNotDeposeALeaderThatKeptSending() throws Exception {
        try (LocalGroup g = new LocalGroup()) {
            g.runner(0).campaign();
            TestWriter writer = new TestWriter(g::runner, 3, 0);
            assertThat(writer.write(write(1, 1, 0, "abc")).ok()).isTrue();
            int leader = writer.leader();
            long term = g.runner(leader).term();
            int follower = (leader + 1) % 3;
            CountDownLatch stalled = new CountDownLatch(1);
            g.runner(follower).loop().execute(() -> {
                stalled.countDown();
                try {
                    Thread.sleep(4L * LocalGroup.CONFIG.electionTimeoutMax());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            stalled.await();
            Thread.sleep(4L * LocalGroup.CONFIG.electionTimeoutMax() + 200);
            assertThat(g.onLoop(follower, () -> g.runner(follower).replica().role()))
                    .isEqualTo(Role.FOLLOWER);
            assertThat(g.runner(follower).term()).as("no election after the stall").isEqualTo(term);
            assertThat(g.runner(leader).term()).isEqualTo(term);
            assertThat(writer.write(write(1, 2, 0, "def")).ok()).isTrue();
            assertThat(writer.leader()).isEqualTo(leader);
        }
    }
}
