package io.tarn.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Encoding and decoding of the namenode messages on the metadata hot path, on pooled direct Netty
 * buffers as the TCP transport uses them: GET_FILE's request ({@link PathRequest}) and response
 * ({@link FileStatus}), GET_BLOCK's request ({@link GetBlockRequest}) and response ({@link BlockRef}).
 *
 * <p>An {@code encode*} operation takes a buffer from the pooled allocator, writes one message
 * body and releases the buffer (as a response is allocated, written and freed after the flush). A
 * {@code decode*} operation reads one message body from a buffer encoded at setup, including the
 * string decoding and validation, and allocates the record. Frame headers are not included.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBenchmark {
    static final String PATH = "/shuffle/app-1700000000000-0042/stage-3/part-00042";
    static final FileStatus STATUS = new FileStatus("part-00042", 0x0001_0000_0000_2A2AL, FileType.FILE,
            123_456_789L, 1 << 20, 0, 1_700_000_000_000L, 1_700_000_000_123L, 1_700_000_000_000L, "spark",
            "supergroup", 0644, false);
    static final GetBlockRequest GET_BLOCK = new GetBlockRequest(0x0001_0000_0000_2A2AL, 117, false,
            0x5EED_1234_5678_9ABCL, "worker-17.example.com", -1);
    static final BlockRef BLOCK = new BlockRef(3, "datanode-3.example.com", 9070, 0, 2, 4711, 1 << 20, 9,
            0x0123_4567_89AB_CDEFL, 0x0000_0123_4567_89ABL, false);

    private final ByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
    private ByteBuf pathRequest;
    private ByteBuf status;
    private ByteBuf getBlock;
    private ByteBuf blockRef;

    @Setup(Level.Trial)
    public void setUp() {
        pathRequest = alloc.directBuffer(256);
        new PathRequest(PATH).encode(pathRequest);
        status = alloc.directBuffer(256);
        NamenodeProtocol.writeStatus(status, STATUS);
        getBlock = alloc.directBuffer(256);
        GET_BLOCK.encode(getBlock);
        blockRef = alloc.directBuffer(256);
        NamenodeProtocol.writeBlockRef(blockRef, BLOCK);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        pathRequest.release();
        status.release();
        getBlock.release();
        blockRef.release();
    }

    @Benchmark
    public int encodePathRequest() {
        ByteBuf buf = alloc.directBuffer(256);
        try {
            new PathRequest(PATH).encode(buf);
            return buf.writerIndex();
        } finally {
            buf.release();
        }
    }

    @Benchmark
    public PathRequest decodePathRequest() {
        pathRequest.readerIndex(0);
        return PathRequest.decode(pathRequest);
    }

    @Benchmark
    public int encodeFileStatus() {
        ByteBuf buf = alloc.directBuffer(256);
        try {
            NamenodeProtocol.writeStatus(buf, STATUS);
            return buf.writerIndex();
        } finally {
            buf.release();
        }
    }

    @Benchmark
    public FileStatus decodeFileStatus() {
        status.readerIndex(0);
        return NamenodeProtocol.decodeStatus(status);
    }

    @Benchmark
    public int encodeGetBlockRequest() {
        ByteBuf buf = alloc.directBuffer(256);
        try {
            GET_BLOCK.encode(buf);
            return buf.writerIndex();
        } finally {
            buf.release();
        }
    }

    @Benchmark
    public GetBlockRequest decodeGetBlockRequest() {
        getBlock.readerIndex(0);
        return GetBlockRequest.decode(getBlock);
    }

    @Benchmark
    public int encodeBlockRef() {
        ByteBuf buf = alloc.directBuffer(256);
        try {
            NamenodeProtocol.writeBlockRef(buf, BLOCK);
            return buf.writerIndex();
        } finally {
            buf.release();
        }
    }

    @Benchmark
    public BlockRef decodeBlockRef() {
        blockRef.readerIndex(0);
        return NamenodeProtocol.decodeBlockRef(blockRef);
    }
}
