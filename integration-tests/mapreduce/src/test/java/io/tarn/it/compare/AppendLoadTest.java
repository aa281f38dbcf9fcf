package io.tarn.it.compare;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

/**
 * The workloads against local files (a target whose flush is the file's flush, or fsync for
 * {@code hsync}): what they count, and that they leave nothing behind.
 */
class AppendLoadTest {

    /** Files under a local directory; counts what the workloads do to it. */
    private static final class LocalTarget implements AppendTarget {
        final Path root;
        final AtomicInteger created = new AtomicInteger();
        final AtomicLong bytes = new AtomicLong();
        final AtomicInteger syncs = new AtomicInteger();
        volatile String failWith;
        volatile long flushMillis;

        LocalTarget(Path root) {
            this.root = root;
        }

        @Override
        public String description() {
            return "local files under " + root;
        }

        @Override
        public String name() {
            return "local";
        }

        @Override
        public Appender create(String path, int replication) throws IOException {
            Path file = root.resolve(path.substring(1));
            Files.createDirectories(file.getParent());
            FileOutputStream out = new FileOutputStream(file.toFile());
            created.incrementAndGet();
            return new Appender() {
                @Override
                public void write(byte[] data, int off, int len) throws IOException {
                    if (failWith != null) {
                        throw new IOException(failWith);
                    }
                    out.write(data, off, len);
                    bytes.addAndGet(len);
                }

                @Override
                public void flush(boolean sync) throws IOException {
                    if (flushMillis > 0) {
                        try {
                            Thread.sleep(flushMillis);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IOException(e);
                        }
                    }
                    out.flush();
                    if (sync) {
                        out.getFD().sync();
                        syncs.incrementAndGet();
                    }
                }

                @Override
                public void close() throws IOException {
                    out.close();
                }
            };
        }

        @Override
        public void deleteTree(String path) throws IOException {
            Path dir = root.resolve(path.substring(1));
            if (!Files.exists(dir)) {
                return;
            }
            try (Stream<Path> walk = Files.walk(dir)) {
                for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                    Files.delete(p);
                }
            }
        }

        @Override
        public void close() {
        }

        boolean empty() throws IOException {
            try (Stream<Path> left = Files.list(root)) {
                return left.findAny().isEmpty();
            }
        }
    }

    @Test
    void smallWritesCountAcknowledgedAppendsPerThreadAndDeleteTheirFiles(@TempDir Path dir) throws Exception {
        LocalTarget target = new LocalTarget(dir);
        AppendLoad.Figures f = AppendLoad.smallWrites(target, "/point", 3, true, 2, 0.1, 0.3);
        assertThat(f.opsPerSecond()).isPositive();
        assertThat(f.mbPerSecond()).isCloseTo(f.opsPerSecond() * AppendLoad.SMALL / 1e6,
                withinPercentage(0.001));
        assertThat(f.p50Micros()).isPositive().isLessThanOrEqualTo(f.p99Micros());
        assertThat(target.created.get()).isEqualTo(2); // one file per thread, far below the roll size
        assertThat(target.syncs.get()).isPositive(); // hsync asked for: every append forced
        assertThat(target.bytes.get() % AppendLoad.SMALL).isZero();
        assertThat(target.empty()).isTrue();
    }

    @Test
    void sequentialWritesCountOnlyTheWindowsBytesAndLatenciesAreNotClaimed(@TempDir Path dir) throws Exception {
        LocalTarget target = new LocalTarget(dir);
        AppendLoad.Figures f = AppendLoad.sequential(target, "/seq", 1, 2, 0.1, 0.3);
        assertThat(f.mbPerSecond()).isPositive();
        assertThat(f.opsPerSecond()).isCloseTo(f.mbPerSecond() * 1e6 / AppendLoad.LARGE,
                withinPercentage(0.001));
        // Counted bytes are those of calls made in the measured window: fewer than all written.
        assertThat(f.mbPerSecond() * 0.3 * 1e6).isLessThan(target.bytes.get());
        assertThat(f.p50Micros()).isNaN();
        assertThat(f.p99Micros()).isNaN();
        // Files roll over at the roll size, so the threads made at least one file each, more if they wrote more.
        assertThat((long) target.created.get())
                .isGreaterThanOrEqualTo(Math.max(2, target.bytes.get() / AppendLoad.ROLL_BYTES));
        assertThat(target.empty()).isTrue();
    }

    @Test
    void aPointWhereNothingCompletedInTheWindowClaimsNoLatency(@TempDir Path dir) throws Exception {
        LocalTarget target = new LocalTarget(dir);
        target.flushMillis = 400; // longer than the whole window: no append completes inside it
        AppendLoad.Figures f = AppendLoad.smallWrites(target, "/slow", 3, false, 1, 0, 0.1);
        assertThat(f.opsPerSecond()).isZero();
        assertThat(f.p50Micros()).isNaN();
        assertThat(f.p99Micros()).isNaN();
        assertThat(target.empty()).isTrue();
    }

    @Test
    void aFailedWriteFailsThePointAndStillDeletesItsFiles(@TempDir Path dir) {
        LocalTarget target = new LocalTarget(dir);
        target.failWith = "group 7 has no leader";
        assertThatThrownBy(() -> AppendLoad.sequential(target, "/broken", 3, 2, 0, 0.2))
                .isInstanceOf(IOException.class).hasMessageContaining("group 7 has no leader");
        assertThat(dir.resolve("broken")).doesNotExist();
    }
}
