package io.tarn.it.dfsio;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The TestDFSIO comparison end to end at a tiny size (2 × 8 MiB): both file systems run the write
 * and the read job through the same code, store every byte (checked by length after the write), and
 * TestDFSIO reports the full volume at a positive rate. No timing is asserted: this proves the
 * benchmark works, {@code bin/tarn-dfsio} measures.
 */
class DfsioComparisonIT {
    private static final int FILES = 2;
    private static final int FILE_MB = 8;

    @TempDir
    Path workDir;

    @Test
    void bothFileSystemsWriteAndReadEveryByte() throws Exception {
        DfsioComparison.Comparison c = DfsioComparison.run(new DfsioSettings(FILES, FILE_MB, 0, workDir));

        for (DfsioResult r : new DfsioResult[] {c.tarn(), c.hdfs()}) {
            for (DfsioFigures f : new DfsioFigures[] {r.write(), r.read()}) {
                assertThat(f.files()).as(r.fileSystem()).isEqualTo(FILES);
                assertThat(f.megabytes()).as(r.fileSystem()).isEqualTo(FILES * FILE_MB);
                assertThat(f.throughput()).as(r.fileSystem()).isPositive();
                assertThat(f.averageIoRate()).as(r.fileSystem()).isPositive();
            }
        }
        assertThat(c.tarn().fileSystem()).startsWith("Tarn");
        assertThat(c.hdfs().fileSystem()).startsWith("HDFS");
        assertThat(c.markdown()).contains("| write throughput, MiB/s |").contains("| read throughput, MiB/s |");
    }
}
