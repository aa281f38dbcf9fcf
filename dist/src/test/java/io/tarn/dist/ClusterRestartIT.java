package io.tarn.dist;

import io.tarn.dist.LocalCluster.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A whole cluster stopped and started again by {@code bin/tarn} with real processes: with
 * {@code tarn.namenode.journal = disk} (the default) and datanodes that keep their memory files
 * ({@code tarn.datanode.dram.keep}), every closed file is there afterwards with its bytes; without
 * a journal the namenode starts empty, as documented. Also kill -9 of the namenode alone.
 */
class ClusterRestartIT {
    @TempDir
    Path tmp;

    private static void put(LocalCluster c, Path local, String path) throws Exception {
        Outcome put = c.tarn("fs", "-put", local.toString(), path);
        assertThat(put.exit()).as(put.output()).isZero();
    }

    private static String cat(LocalCluster c, String path) throws Exception {
        Outcome cat = c.tarn("fs", "-cat", path);
        assertThat(cat.exit()).as(cat.output()).isZero();
        return cat.output();
    }

    @Test
    void aFullClusterRestartKeepsEveryClosedFile() throws Exception {
        // tarn.namenode.journal is disk by default.
        Map<String, String> keys = Map.of("tarn.namenode.journal.dir", tmp.resolve("nn").toString(),
                "tarn.datanode.dram.keep", "true", "tarn.blocksize", "64k");
        try (LocalCluster c = LocalCluster.start(LocalCluster.home(), 2, keys)) {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < 20_000; i++) {
                text.append("line ").append(i).append(" of a file that spans several blocks\n");
            }
            Path local = Files.writeString(tmp.resolve("big.txt"), text);
            Path small = Files.writeString(tmp.resolve("small.txt"), "kept across restarts\n");
            assertThat(c.tarn("fs", "-mkdir", "-p", "/kept/dir").exit()).isZero();
            put(c, local, "/kept/dir/big.txt");
            put(c, small, "/kept/small.txt");
            assertThat(c.tarn("fs", "-mv", "/kept/small.txt", "/kept/dir/moved.txt").exit()).isZero();

            Outcome stop = c.tarn("stop");
            assertThat(stop.exit()).as(stop.output()).isZero();
            Outcome start = c.tarn("start", "-d", "2");
            assertThat(start.exit()).as(start.output()).isZero();
            assertThat(start.output()).contains("datanodes: 2 (2 alive)");

            assertThat(cat(c, "/kept/dir/big.txt")).isEqualTo(text.toString());
            assertThat(cat(c, "/kept/dir/moved.txt")).isEqualTo("kept across restarts\n");
            Outcome ls = c.tarn("fs", "-ls", "/kept");
            assertThat(ls.output()).contains("/kept/dir").doesNotContain("small.txt");
            String log = Files.readString(c.runDir().resolve("logs").resolve("namenode-0.log"));
            assertThat(log).containsPattern("Namespace restored from .* \\d+ record\\(s\\) applied");

            // kill -9 of the namenode alone: the datanodes stay up and register with the new one.
            long pid = Long.parseLong(Files.readString(c.runDir().resolve("namenode-0.pid")).trim());
            ProcessHandle.of(pid).orElseThrow().destroyForcibly();
            assertThat(ProcessHandle.of(pid).map(p -> p.onExit().join()).isPresent()).isTrue();
            Outcome again = c.tarn("start");
            assertThat(again.exit()).as(again.output()).isZero();
            assertThat(again.output()).contains("tarn: starting namenode-0");
            put(c, small, "/after-kill.txt");
            assertThat(cat(c, "/kept/dir/big.txt")).isEqualTo(text.toString());
            assertThat(cat(c, "/after-kill.txt")).isEqualTo("kept across restarts\n");
        }
    }

    @Test
    void withoutAJournalARestartedClusterStartsEmpty() throws Exception {
        try (LocalCluster c = LocalCluster.start(LocalCluster.home(), 1, Map.of("tarn.datanode.dram.keep", "true",
                "tarn.namenode.journal", "none"))) {
            put(c, Files.writeString(tmp.resolve("a.txt"), "scratch\n"), "/a.txt");
            assertThat(c.tarn("stop").exit()).isZero();
            assertThat(c.tarn("start").exit()).isZero();
            Outcome ls = c.tarn("fs", "-ls", "/");
            assertThat(ls.output()).doesNotContain("a.txt");
        }
    }
}
