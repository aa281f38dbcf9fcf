package io.tarn.benchmarks;

import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.Clock;
import io.tarn.namenode.NamenodeService;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The namenode's typed operations called directly, without a transport or codec: what one request
 * costs the namenode itself.
 *
 * <p>The setup builds a {@link NamenodeService} on the system clock, registers one datanode
 * (registration only: no datanode runs, and block references are never used) and creates
 * {@code files} files of one block each under {@code /bench}. {@code getFile} looks up their
 * statuses in turn ({@code namespace().getFile}); {@code getBlock} asks for their block 0 for
 * reading ({@code files().getBlock}, which signs a token); {@code createClose} creates a new empty
 * file under {@code /created} and closes it (the namespace grows by one file per operation).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class NamenodeServiceBenchmark {
    static final int BLOCK_SIZE = 1 << 20;
    static final long CLIENT = 0x5EED_0000_0000_0001L;

    /** Files created at setup, looked up in turn; a power of two. */
    @Param({"1024"})
    public int files;

    NamenodeService nn;
    String[] paths;
    long[] fileIds;
    final AtomicLong next = new AtomicLong();
    final AtomicLong created = new AtomicLong();

    @Setup(Level.Trial)
    public void setUp() throws TarnException {
        if (Integer.bitCount(files) != 1) {
            throw new IllegalArgumentException("files must be a power of two, got " + files);
        }
        // Timeouts of an hour: nothing expires during a run (no maintenance runs anyway).
        nn = new NamenodeService(Clock.system(), BLOCK_SIZE, 3_600_000, 3_600_000, BlockTokens.random());
        int regions = Math.max(1, files / 1024);
        nn.register(new RegisterRequest(0, 1, "127.0.0.1", 9070, 0, 2048L * BLOCK_SIZE, regions + 1, 0, 1, true));
        paths = new String[files];
        fileIds = new long[files];
        for (int i = 0; i < files; i++) {
            paths[i] = "/bench/dir-" + (i % 32) + "/file-" + i;
            FileStatus s = create(paths[i]);
            nn.files().getBlock(s.fileId(), 0, true, CLIENT, "");
            nn.files().close(s.fileId(), CLIENT, 1);
            fileIds[i] = s.fileId();
        }
    }

    FileStatus create(String path) throws TarnException {
        return nn.create(new CreateRequest(path, FileType.FILE, NamenodeProtocol.CREATE_PARENTS, 0, CLIENT, "",
                Ownership.UNSPECIFIED));
    }

    /** Status of the next prepared file by path. */
    @Benchmark
    public FileStatus getFile() throws TarnException {
        return nn.namespace().getFile(paths[(int) next.getAndIncrement() & (files - 1)]);
    }

    /** Read reference to block 0 of the next prepared file, by file id. */
    @Benchmark
    public BlockRef getBlock() throws TarnException {
        return nn.files().getBlock(fileIds[(int) next.getAndIncrement() & (files - 1)], 0, false, 0, "");
    }

    /** Creates a new empty file and closes it: CREATE then CLOSE, with the lease taken and released. */
    @Benchmark
    public FileStatus createClose() throws TarnException {
        FileStatus s = create("/created/file-" + created.getAndIncrement());
        return nn.files().close(s.fileId(), CLIENT, 0);
    }
}
