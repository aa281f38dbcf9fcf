package io.tarn.client.random;

import io.tarn.client.TarnClient;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.namenode.blocks.DatanodeInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import static io.tarn.client.random.Contents.identityOf;
import static io.tarn.client.random.Contents.read;
import static io.tarn.client.random.Names.child;
import static io.tarn.client.random.Names.name;
import static io.tarn.client.random.Names.owner;
import static io.tarn.client.random.Scenario.CLIENTS;
import static io.tarn.client.random.Scenario.NAMENODES;
import static io.tarn.client.random.Scenario.OPERATIONS_PER_CLIENT;
import static io.tarn.client.random.Scenario.RUN_TIMEOUT_SECONDS;
import static io.tarn.client.random.Scenario.SUB;
import static org.assertj.core.api.Assertions.fail;

/** The cluster's clients, their workers, and the checks once they are done. */
final class Run implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RandomNamespaceConcurrencyTest.class);

    private final MiniCluster cluster;
    private final Ledger ledger;
    private final List<TarnClient> clients = new ArrayList<>();
    private final List<Worker> workers = new ArrayList<>();
    private final Map<String, LongAdder> divergences = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    private final TarnClient checker;
    /** What the final walk found, for the log. */
    private String walked = "";

    Run(long seed, MiniCluster cluster) {
        this.cluster = cluster;
        this.ledger = new Ledger(seed);
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(TarnClient.connect(cluster.config()));
            workers.add(new Worker(i, clients.get(i), seed, ledger, divergences, outcomes));
        }
        checker = TarnClient.connect(cluster.config());
        clients.add(checker);
    }

    void execute() throws Exception {
        long started = System.nanoTime();
        for (Worker w : workers) {
            checker.mkdirs(w.home);
        }
        checker.mkdirs(SUB);
        runWorkers();
        List<Problem> problems = new ArrayList<>();
        verify(problems);
        if (!problems.isEmpty()) {
            fail(report(problems));
        }
        LOG.info("{}: {} clients x {} operations and the checks took {} ms, leaving {}; outcomes: {}; "
                + "divergences from HDFS's rules met: {}", ledger.seedText(), CLIENTS, OPERATIONS_PER_CLIENT,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), walked, new TreeMap<>(outcomes),
                new TreeMap<>(divergences));
    }

    private void runWorkers() throws Exception {
        AtomicInteger threads = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS, r -> {
            Thread t = new Thread(r, "random-namespace-" + threads.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Void>> futures = new ArrayList<>();
            for (Worker w : workers) {
                futures.add(pool.submit(w));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RUN_TIMEOUT_SECONDS);
            for (Future<Void> f : futures) {
                try {
                    f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    ledger.stop();
                    if (e.getCause() instanceof AssertionError a) {
                        throw a;
                    }
                    throw new AssertionError(ledger.seedText() + ": a client failed: " + e.getCause() + "\n"
                            + histories(), e.getCause());
                } catch (TimeoutException e) {
                    ledger.stop();
                    throw new AssertionError(ledger.seedText() + ": the clients did not finish within "
                            + RUN_TIMEOUT_SECONDS + " s\n" + histories());
                }
            }
        } finally {
            ledger.stop();
            pool.shutdownNow();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
    }

    private String histories() {
        StringBuilder sb = new StringBuilder();
        for (Worker w : workers) {
            sb.append("client ").append(w.index).append(" is at: ").append(w.current()).append('\n')
                    .append(w.history()).append('\n');
        }
        return sb.toString();
    }

    /** Checks the quiescent namespace against the models, the ledger and the namenodes' counts. */
    private void verify(List<Problem> problems) throws Exception {
        Map<String, FileStatus> files = new TreeMap<>();
        Set<String> directories = new LinkedHashSet<>();
        walk(files, directories, problems);
        walked = files.size() + " files in " + directories.size() + " directories";
        Map<String, List<String>> found = new HashMap<>();
        for (Map.Entry<String, FileStatus> f : files.entrySet()) {
            String path = f.getKey();
            byte[] data = read(checker, path);
            String id = identityOf(data);
            if (id == null || !Arrays.equals(data, ledger.content(id))) {
                problems.add(new Problem(path + " holds \"" + new String(data, StandardCharsets.UTF_8)
                        + "\", which no client wrote as a whole", -1));
            } else {
                found.computeIfAbsent(id, k -> new ArrayList<>()).add(path);
            }
            if (FileIds.partition(f.getValue().fileId()) != owner(name(path))) {
                problems.add(new Problem(path + " lives on namenode " + FileIds.partition(f.getValue().fileId())
                        + ", not on " + owner(name(path)) + " which owns its name", -1));
            }
        }
        Map<String, String> inSubtrees = new HashMap<>();
        for (Worker w : workers) {
            w.checkSubtree(true);
            inSubtrees.putAll(w.identitiesInSubtree());
        }
        ledger.verify(found, inSubtrees, problems);
        checkNamenodeCounts(files.size(), directories.size(), problems);
    }

    /** Lists the whole namespace; no listing may show a name twice. */
    private void walk(Map<String, FileStatus> files, Set<String> directories, List<Problem> problems)
            throws IOException {
        Deque<String> pending = new ArrayDeque<>(List.of("/"));
        while (!pending.isEmpty()) {
            String dir = pending.poll();
            List<FileStatus> entries = checker.list(dir);
            Set<String> names = new HashSet<>();
            for (FileStatus s : entries) {
                String path = child(dir, s.name());
                if (!names.add(s.name())) {
                    problems.add(new Problem("the listing of " + dir + " shows " + s.name() + " twice", -1));
                } else if (s.isDirectory()) {
                    directories.add(path);
                    pending.add(path);
                } else {
                    files.put(path, s);
                }
            }
        }
    }

    /**
     * Each namenode counts the files it owns and every directory: the counts add up to what the
     * walk found, and the blocks allocated (one per file: files are smaller than a block) come
     * back to that too once freed blocks have travelled home (asynchronously; waited for).
     */
    private void checkNamenodeCounts(int files, int directories, List<Problem> problems) {
        long fileCount = 0;
        for (int p = 0; p < NAMENODES; p++) {
            fileCount += cluster.namenode(p).fileCount();
            long dirs = cluster.namenode(p).directoryCount();
            if (dirs != directories + 1) {
                problems.add(new Problem("namenode " + p + " counts " + dirs + " directories, the walk found "
                        + directories + " and the root", -1));
            }
        }
        if (fileCount != files) {
            problems.add(new Problem("the namenodes count " + fileCount + " files, the walk found " + files, -1));
        }
        try {
            Eventually.value(Duration.ofSeconds(10), "the blocks the namenodes hold allocated to equal the " + files
                    + " one-block files the walk found", this::usedBlocks, used -> used == files);
        } catch (AssertionError stillUsed) {
            // Reported with the others and the seed, not thrown on its own.
            problems.add(new Problem(stillUsed.getMessage(), -1));
        }
    }

    private long usedBlocks() {
        long used = 0;
        for (int p = 0; p < NAMENODES; p++) {
            for (DatanodeInfo dn : cluster.namenode(p).service().datanodes().all()) {
                used += dn.capacityBlocks() - dn.freeBlocks();
            }
        }
        return used;
    }

    private String report(List<Problem> problems) {
        StringBuilder sb = new StringBuilder(ledger.seedText()).append(": ").append(problems.size())
                .append(" problem(s) at quiescence:\n");
        problems.stream().limit(20).forEach(p -> sb.append("- ").append(p.text()).append('\n'));
        int client = problems.stream().mapToInt(Problem::client).filter(c -> c >= 0).findFirst().orElse(-1);
        if (client >= 0) {
            sb.append(workers.get(client).history());
        }
        return sb.toString();
    }

    @Override
    public void close() {
        clients.forEach(TarnClient::close);
    }
}
