package io.tarn.replication.host;

import io.tarn.replication.DiskOp;
import io.tarn.replication.PersistentState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** A real process crash: SIGKILL in the middle of a stream of group commits loses no acknowledged op. */
class JournalCrashTest {

    @TempDir
    Path tmp;

    @Test
    void everyOpReportedDurableSurvivesKillDashNine() throws Exception {
        Path dir = tmp.resolve("group-7");
        Files.createDirectories(dir);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                JournalCrashChild.class.getName(), dir.toString())
                .redirectError(tmp.resolve("child.err").toFile())
                .start();
        AtomicLong lastDurable = new AtomicLong();
        AtomicBoolean killed = new AtomicBoolean();
        List<String> other = new CopyOnWriteArrayList<>(); // journal failures reported by the child
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("durable ")) {
                        long id = Long.parseLong(line.substring(8));
                        assertThat(id).isEqualTo(lastDurable.get() + 1); // in order, none skipped
                        lastDurable.set(id);
                    } else if (line.startsWith("failed ")) {
                        other.add(line);
                    }
                }
            } catch (IOException e) {
                if (!killed.get()) { // destroying the child closes its output under the reader
                    other.add(e.toString());
                }
            } catch (RuntimeException e) {
                other.add(e.toString());
            }
        });
        reader.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (lastDurable.get() < 1500 && child.isAlive() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(child.isAlive()).as("child died early: %s", Files.readString(tmp.resolve("child.err"))).isTrue();
        killed.set(true);
        child.destroyForcibly(); // SIGKILL on Linux: no shutdown hooks, no final flush
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        reader.join();
        assertThat(other).isEmpty();
        long acked = lastDurable.get();
        assertThat(acked).isGreaterThanOrEqualTo(1500);

        PersistentState recovered;
        try (JournalWriter writer = new JournalWriter(16, new JournalFixtures.Recorder());
             GroupJournal j = GroupJournal.open(JournalCrashChild.GROUP, dir, PersistentState.initialVoter(),
                     writer, new FileImageStore(dir), JournalCrashChild.SEGMENT_BYTES)) {
            assertThat(j.failure()).isNull();
            recovered = JournalFixtures.inBytes(j.recovered());
        }
        // The recovered state is that of the stream's prefix 1..n, where n is the last entry op recovered or the
        // checkpoint op right after it; n must reach the last acknowledged op.
        long m = recovered.entries().lastKey();
        List<DiskOp> ops = new ArrayList<>();
        for (long id = 1; id <= m + 1; id++) {
            ops.add(JournalCrashChild.op(id));
        }
        PersistentState fresh = PersistentState.initialVoter();
        long n = -1;
        if (recovered.equals(JournalFixtures.model(fresh, ops.subList(0, (int) m)))) {
            n = m;
        }
        if ((m + 1) % 100 == 0 && recovered.equals(JournalFixtures.model(fresh, ops))) {
            n = m + 1;
        }
        assertThat(n).as("recovered state is a prefix of the stream (last entry %d)", m).isPositive();
        assertThat(n).as("ops recovered vs acknowledged").isGreaterThanOrEqualTo(acked);
    }
}
