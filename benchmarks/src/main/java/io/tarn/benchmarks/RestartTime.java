package io.tarn.benchmarks;

import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.AdminProtocol.BlockReport;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.namenode.Namenode;
import io.tarn.namenode.NamenodeService;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * How long a namenode with {@code tarn.namenode.journal = disk} takes to restart with a namespace of
 * {@code files} files (default 1,000,000; each with one block, closed, 1,000 per directory): from
 * {@code Namenode.start} to serving, (a) replaying the whole journal (3 records per file), and (b)
 * loading a checkpoint with an empty journal after it. Also the time to write that checkpoint. The
 * namespace is built once through the namenode's own methods (no network), journaled on disk in
 * {@code dir} (default: a new directory under the temporary directory), and the restarts are
 * repeated {@code rounds} times (default 3); medians are printed.
 *
 * <pre>
 * java -Xmx6g -cp benchmarks/target/benchmarks.jar io.tarn.benchmarks.RestartTime [files] [rounds] [dir]
 * </pre>
 */
public final class RestartTime {
    private static final int BLOCK = 4096;
    private static final int PER_DIRECTORY = 1_000;

    private RestartTime() {
    }

    public static void main(String[] args) throws Exception {
        int files = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Path dir = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("tarn-restart-time-");
        Path journal = dir.resolve("journal");
        TarnConfig config = TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.NAMENODE_ADDRESS, "127.0.0.1:0")
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.RPC_IO_THREADS, 1)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK)
                .set(TarnKeys.NAMENODE_JOURNAL_DIR, journal.toString())
                .set(TarnKeys.NAMENODE_CHECKPOINT_INTERVAL, 0L)
                .set(TarnKeys.NAMENODE_CHECKPOINT_RECORDS, Integer.MAX_VALUE)
                .build();
        try {
            long built = System.nanoTime();
            try (Namenode nn = Namenode.start(config)) {
                build(nn.service(), files);
            }
            System.out.printf(Locale.ROOT, "built %,d files in %.1f s; journal %s: %,d bytes%n", files,
                    (System.nanoTime() - built) / 1e9, journal, size(journal));
            List<Double> replay = new ArrayList<>();
            List<Double> reports = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                replay.add(restart(config, files, "journal replay", reports));
            }
            double checkpointSeconds;
            try (Namenode nn = Namenode.start(config)) {
                long start = System.nanoTime();
                nn.checkpoint();
                checkpointSeconds = (System.nanoTime() - start) / 1e9;
            }
            System.out.printf(Locale.ROOT, "checkpoint written in %.2f s; journal directory now %,d bytes%n",
                    checkpointSeconds, size(journal));
            List<Double> load = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                load.add(restart(config, files, "checkpoint load", reports));
            }
            System.out.printf(Locale.ROOT, "median restart with %,d files: %.2f s replaying the journal, %.2f s "
                    + "loading the checkpoint (%d rounds each; %d cores, max heap %d MiB); the datanode's "
                    + "registration with its block report checked in a median of %.0f ms%n", files, median(replay),
                    median(load), rounds, Runtime.getRuntime().availableProcessors(),
                    Runtime.getRuntime().maxMemory() >> 20, median(reports) * 1000);
        } finally {
            if (args.length <= 2) {
                deleteTree(dir);
            }
        }
    }

    private static final int BLOCKS_PER_REGION = 1024;

    private static int regions(int files) {
        return (files + BLOCKS_PER_REGION - 1) / BLOCKS_PER_REGION + 1;
    }

    /** Files of one block each, closed, {@value #PER_DIRECTORY} per directory, through the namenode's methods. */
    private static void build(NamenodeService nn, int files) throws Exception {
        nn.register(new RegisterRequest(0, 1, "127.0.0.1", 9070, 0, (long) BLOCKS_PER_REGION * BLOCK, regions(files),
                0, 1, false));
        long client = 42;
        for (int i = 0; i < files; i++) {
            String path = "/d" + (i / PER_DIRECTORY) + "/f" + i;
            FileStatus s = nn.create(new CreateRequest(path, FileType.FILE, NamenodeProtocol.CREATE_PARENTS, 0,
                    client, "", Ownership.UNSPECIFIED));
            nn.files().getBlock(s.fileId(), 0, true, client, "");
            nn.files().close(s.fileId(), client, BLOCK - (i % 100));
        }
        nn.journal().barrier(() -> { }, why -> { });
    }

    /**
     * Restarts the namenode, then registers its datanode again with its data intact and a block
     * report naming every file's block (generation 1 in slots 0 .. files - 1): the report is
     * checked against the whole file table under the registry's lock, as on the I/O thread.
     */
    private static double restart(TarnConfig config, int files, String what, List<Double> reports)
            throws Exception {
        long start = System.nanoTime();
        try (Namenode nn = Namenode.start(config)) {
            double seconds = (System.nanoTime() - start) / 1e9;
            if (nn.fileCount() != files) {
                throw new IllegalStateException("restarted with " + nn.fileCount() + " files, not " + files);
            }
            int[] generations = new int[regions(files) * BLOCKS_PER_REGION];
            Arrays.fill(generations, 0, files, 1);
            long registering = System.nanoTime();
            RegisterResponse r = nn.service().register(new RegisterRequest(0, 1, "127.0.0.1", 9070, 0,
                    (long) BLOCKS_PER_REGION * BLOCK, regions(files), 0, 1, true, false,
                    new BlockReport(BLOCK, generations)));
            double report = (System.nanoTime() - registering) / 1e9;
            int lost = nn.service().datanodes().get(r.datanodeId()).lostBlocks();
            if (lost != 0) {
                throw new IllegalStateException("the block report showed " + lost + " block(s) lost");
            }
            reports.add(report);
            System.out.printf(Locale.ROOT, "restart (%s): %.2f s, %,d files, %,d directories; block report checked "
                    + "in %.0f ms%n", what, seconds, nn.fileCount(), nn.directoryCount(), report * 1000);
            return seconds;
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static long size(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
