package io.tarn.client.random;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import static io.tarn.client.random.Scenario.SEED_PROPERTY;

/**
 * What the clients did in /shared, shared by them: the events, every identity's content, the
 * files offered for stealing, and a logical clock. Names of /shared are never reused (fresh names,
 * and contested names that are never vacated), so a name identifies the file that had it.
 */
final class Ledger {
    /** A file of /shared offered for stealing: its name identifies it, as /shared names are never reused. */
    record Holding(String identity, int client) {
    }

    final long seed;
    private final AtomicLong clock = new AtomicLong();
    private final Queue<Event> events = new ConcurrentLinkedQueue<>();
    private final Map<String, byte[]> contents = new ConcurrentHashMap<>();
    private final Map<String, Holding> offers = new ConcurrentHashMap<>();
    private volatile boolean stopped;

    Ledger(long seed) {
        this.seed = seed;
    }

    long tick() {
        return clock.incrementAndGet();
    }

    void stop() {
        stopped = true;
    }

    boolean stopped() {
        return stopped;
    }

    byte[] register(String identity, int repeats) {
        byte[] data = Contents.content(identity, repeats);
        contents.put(identity, data);
        return data;
    }

    byte[] content(String identity) {
        return contents.get(identity);
    }

    Event record(Event e) {
        events.add(e);
        return e;
    }

    void offer(String path, String identity, int client) {
        offers.put(path, new Holding(identity, client));
    }

    void withdraw(String path) {
        offers.remove(path);
    }

    /** A file another client offers, or null. */
    Map.Entry<String, Holding> pickOffer(Random random, int client) {
        List<Map.Entry<String, Holding>> others = new ArrayList<>();
        for (Map.Entry<String, Holding> e : new TreeMap<>(offers).entrySet()) {
            if (e.getValue().client() != client) {
                others.add(e);
            }
        }
        return others.isEmpty() ? null : others.get(random.nextInt(others.size()));
    }

    String seedText() {
        return "seed " + seed + " (replay with -D" + SEED_PROPERTY + "=" + seed + ")";
    }

    /**
     * Checks everything the recorded outcomes allow.
     *
     * @param found      identity → the paths where the final walk found a file with its content
     * @param inSubtrees identity → where a client's model has it in its subtree
     */
    void verify(Map<String, List<String>> found, Map<String, String> inSubtrees, List<Problem> problems) {
        LedgerChecks.verify(new ArrayList<>(events), found, inSubtrees, problems);
    }
}
