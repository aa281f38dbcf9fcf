package io.tarn.benchmarks;

import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs benchmark method bodies once, directly (not through JMH), against tiny setups, so the
 * build exercises the benchmark code without running benchmarks.
 */
class BenchmarkSmokeTest {

    @Test
    void codecBenchmarksRoundTripTheirMessages() {
        CodecBenchmark b = new CodecBenchmark();
        b.setUp();
        try {
            assertThat(b.decodePathRequest()).isEqualTo(new PathRequest(CodecBenchmark.PATH));
            assertThat(b.decodeFileStatus()).isEqualTo(CodecBenchmark.STATUS);
            assertThat(b.decodeGetBlockRequest()).isEqualTo(CodecBenchmark.GET_BLOCK);
            assertThat(b.decodeBlockRef()).isEqualTo(CodecBenchmark.BLOCK);
            assertThat(b.encodePathRequest()).isEqualTo(2 + CodecBenchmark.PATH.length());
            assertThat(b.encodeFileStatus()).isPositive();
            assertThat(b.encodeGetBlockRequest()).isPositive();
            assertThat(b.encodeBlockRef()).isPositive();
        } finally {
            b.tearDown();
        }
    }

    @Test
    void namenodeServiceBenchmarksAnswerForTheirFiles() throws Exception {
        NamenodeServiceBenchmark b = new NamenodeServiceBenchmark();
        b.files = 4;
        b.setUp();

        FileStatus first = b.getFile();
        assertThat(first.name()).isEqualTo("file-0");
        assertThat(first.fileId()).isEqualTo(b.fileIds[0]);
        assertThat(first.size()).isEqualTo(1);
        assertThat(b.getFile().name()).isEqualTo("file-1");

        BlockRef block = b.getBlock(); // the third file
        assertThat(block.blockIndex()).isNotNegative();
        assertThat(block.writable()).isFalse();
        assertThat(block.host()).isEqualTo("127.0.0.1");

        FileStatus created = b.createClose();
        assertThat(created.name()).isEqualTo("file-0");
        assertThat(created.underConstruction()).isFalse();
        assertThat(b.nn.namespace().getFile("/created/file-0").fileId()).isEqualTo(created.fileId());
    }

    @Test
    void loopbackBenchmarksCompleteTheirBatchesAndMeasureTheNamenode() throws Exception {
        LoopbackRpcBenchmark b = new LoopbackRpcBenchmark();
        b.inFlight = 16;
        b.setUp();
        try {
            CpuCounters counters = new CpuCounters();
            counters.reset(true);
            assertThat(b.getStatusAsync(counters)).isEqualTo(LoopbackRpcBenchmark.BATCH);
            assertThat(counters.namenodeNanosPerOp()).isPositive();
            assertThat(counters.processNanosPerOp()).isGreaterThanOrEqualTo(counters.namenodeNanosPerOp());
            assertThat(b.getBlockAsync(counters)).isEqualTo(LoopbackRpcBenchmark.BATCH);
        } finally {
            b.tearDown();
        }
    }

    @Test
    void loopbackCreateCloseLeavesAClosedFile() throws Exception {
        LoopbackCreateBenchmark b = new LoopbackCreateBenchmark();
        b.setUp();
        try {
            CpuCounters counters = new CpuCounters();
            counters.reset(true);
            String path = b.createClose(counters);
            assertThat(b.client.getStatus(path).underConstruction()).isFalse();
            assertThat(b.client.getStatus(path).size()).isZero();
            assertThat(counters.nnCpuNanos).isPositive();
        } finally {
            b.tearDown();
        }
    }

    @Test
    void dataPathBenchmarksWriteAndReadWholeMebibytes() throws Exception {
        DataPathBenchmark b = new DataPathBenchmark();
        b.fileMiB = 2;
        b.setUp();
        try {
            byte[] expected = b.buffer.clone();
            assertThat(b.write()).isEqualTo(DataPathBenchmark.BUFFER);
            assertThat(b.write()).isEqualTo(2L * DataPathBenchmark.BUFFER); // and closes the file
            assertThat(b.client.getStatus("/write/file").size()).isEqualTo(2L * DataPathBenchmark.BUFFER);
            assertThat(b.client.getStatus("/write/file").underConstruction()).isFalse();

            Arrays.fill(b.buffer, (byte) 0);
            assertThat(b.read()).isEqualTo(DataPathBenchmark.BUFFER);
            assertThat(b.buffer).isEqualTo(expected);
            assertThat(b.read()).isEqualTo(2L * DataPathBenchmark.BUFFER);
            assertThat(b.read()).isEqualTo(DataPathBenchmark.BUFFER); // wrapped around to the start
            assertThat(b.buffer).isEqualTo(expected);
        } finally {
            b.tearDown();
        }
    }
}
