package io.tarn.it.dfsio;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Parsing TestDFSIO's result block, as Hadoop 3.5's TestDFSIO writes it. */
class DfsioFiguresTest {

    @Test
    void parsesTestDfsIosResultBlock() {
        String block = """
                ----- TestDFSIO ----- : write
                            Date & time: Sun Nov 22 10:00:00 UTC 2026
                        Number of files: 2
                 Total MBytes processed: 512
                      Throughput mb/sec: 812.35
                 Average IO rate mb/sec: 815.5
                  IO rate std deviation: 3.1
                     Test exec time sec: 2.61
                """;
        assertThat(DfsioFigures.parse(block)).isEqualTo(new DfsioFigures(2, 512, 812.35, 815.5, 2.61));
    }

    @Test
    void aMissingFigureIsAnError() {
        assertThatThrownBy(() -> DfsioFigures.parse("Number of files: 2"))
                .hasMessageContaining("Total MBytes processed");
    }
}
