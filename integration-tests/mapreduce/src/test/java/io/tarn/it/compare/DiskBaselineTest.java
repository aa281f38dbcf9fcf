package io.tarn.it.compare;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.withinPercentage;

/** The disk baselines: fio's output read from its write section, the Java loop on a real file. */
class DiskBaselineTest {
    /** The shape of fio 3.33's JSON, trimmed: a read section with its own figures comes first. */
    private static final String FIO_JSON = """
            {
              "fio version" : "fio-3.33",
              "jobs" : [
                {
                  "jobname" : "fdatasync-4096",
                  "read" : {
                    "io_bytes" : 0,
                    "bw_bytes" : 7,
                    "iops" : 3.000000
                  },
                  "write" : {
                    "io_bytes" : 160702464,
                    "io_kbytes" : 156936,
                    "bw_bytes" : 53567488,
                    "bw" : 52312,
                    "iops" : 13077.998047,
                    "runtime" : 3000
                  },
                  "sync" : { "total_ios" : 39234 }
                }
              ]
            }
            """;

    @Test
    void fioFiguresComeFromTheWriteSection() throws IOException {
        DiskBaseline.Rate r = DiskBaseline.parseFio(FIO_JSON);
        assertThat(r.opsPerSecond()).isEqualTo(13077.998047);
        assertThat(r.bytesPerSecond()).isEqualTo(53567488);
    }

    @Test
    void outputWithoutAWriteSectionIsRefusedNamingWhatIsMissing() {
        assertThatThrownBy(() -> DiskBaseline.parseFio("{ \"jobs\" : [] }"))
                .isInstanceOf(IOException.class).hasMessageContaining("no write section");
    }

    @Test
    void theFioCommandWritesSequentiallyWithFdatasyncAfterEachWrite(@TempDir Path dir) {
        assertThat(DiskBaseline.fioCommand(dir, 4096, 2)).contains("--rw=write", "--bs=4096", "--fdatasync=1",
                "--ioengine=sync", "--runtime=2", "--directory=" + dir, "--output-format=json");
    }

    @Test
    void theJavaLoopMeasuresForcedWritesAndRemovesItsFile(@TempDir Path dir) throws IOException {
        DiskBaseline.JavaLoop r = DiskBaseline.javaLoop(dir, 4096, 0.2);
        assertThat(r.opsPerSecond()).isPositive();
        assertThat(r.bytesPerSecond()).isCloseTo(r.opsPerSecond() * 4096, withinPercentage(0.1));
        assertThat(r.p50Micros()).isPositive().isLessThanOrEqualTo(r.p99Micros());
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }

    @Test
    void fioRunsWhereInstalledAndLeavesNothingBehind(@TempDir Path dir) throws Exception {
        Optional<DiskBaseline.Rate> r = DiskBaseline.fio(dir, 4096, 1);
        r.ifPresent(rate -> assertThat(rate.opsPerSecond()).isPositive());
        try (Stream<Path> left = Files.list(dir)) {
            assertThat(left).isEmpty();
        }
    }
}
