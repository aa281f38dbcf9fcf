package io.tarn.it.compare;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import java.io.File;
import java.io.IOException;

/**
 * HDFS's side: Hadoop's MiniDFSCluster (a namenode and one datanode in this JVM, storage on the local
 * disk under the work directory), reached with {@link DistributedFileSystem}, i.e. DFSClient over
 * Hadoop RPC. Its client API is blocking, so N calls in flight are N threads sharing one client (and
 * so one RPC connection, as in an application). Replication 1, like Tarn's unreplicated DRAM tier.
 */
final class HdfsSide implements StorageSide {
    static final short REPLICATION = 1;
    private static final Path ROOT = new Path("/compare");
    private static final Path STATUS_FILE = new Path(ROOT, "getfile");
    private static final Path DATA_FILE = new Path(ROOT, "sequential");

    private final MiniDFSCluster cluster;
    private final DistributedFileSystem fs;
    private int createRuns;

    private HdfsSide(MiniDFSCluster cluster, DistributedFileSystem fs) {
        this.cluster = cluster;
        this.fs = fs;
    }

    static HdfsSide start(java.nio.file.Path baseDir) throws IOException { // qualified: Hadoop's Path is imported
        MiniDFSCluster cluster = startCluster(baseDir.toFile());
        try {
            DistributedFileSystem fs = cluster.getFileSystem();
            fs.mkdirs(ROOT);
            fs.create(STATUS_FILE, false).close();
            return new HdfsSide(cluster, fs);
        } catch (IOException | RuntimeException e) {
            cluster.shutdown(true);
            throw e;
        }
    }

    /**
     * One namenode and one datanode on local disk under {@code base}, replication 1, active. Its edit
     * log is forced as a deployed NameNode's is (and as Tarn's journal is): MiniDFSCluster skips the
     * fsync unless told otherwise.
     */
    static MiniDFSCluster startCluster(File base) throws IOException {
        Configuration conf = new Configuration();
        conf.setInt("dfs.replication", REPLICATION);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, base)
                .numDataNodes(1)
                .format(true)
                .skipFsyncForTesting(false)
                .build();
        try {
            cluster.waitActive();
            return cluster;
        } catch (IOException | RuntimeException e) {
            cluster.shutdown(true);
            throw e;
        }
    }

    @Override
    public String description() {
        return "HDFS (MiniDFSCluster, 1 namenode with its edit log forced to the work directory's disk as a "
                + "deployed one, 1 datanode on local disk, replication " + REPLICATION
                + "; DistributedFileSystem, no short-circuit local reads: Hadoop's default)";
    }

    @Override
    public LoadResult getFile(int inflight, CompareSettings s) throws IOException, InterruptedException {
        return LoadDriver.threads(inflight, s.warmupSeconds(), s.seconds(), (t, i) -> fs.getFileStatus(STATUS_FILE));
    }

    @Override
    public LoadResult createClose(int inflight, CompareSettings s) throws IOException, InterruptedException {
        Path dir = new Path(ROOT, "create-" + inflight + "-" + createRuns++);
        fs.mkdirs(dir);
        return LoadDriver.threads(inflight, s.warmupSeconds(), s.seconds(),
                (t, i) -> fs.create(new Path(dir, "f-" + t + "-" + i), false).close());
    }

    @Override
    public LoadResult rename(int inflight, CompareSettings s) throws IOException, InterruptedException {
        Path dir = new Path(ROOT, "rename-" + inflight + "-" + createRuns++);
        fs.mkdirs(dir);
        for (int t = 0; t < inflight; t++) {
            fs.create(new Path(dir, "f-" + t + "-0"), false).close();
        }
        return LoadDriver.threads(inflight, s.warmupSeconds(), s.seconds(), (t, i) -> {
            if (!fs.rename(new Path(dir, "f-" + t + "-" + (i & 1)), new Path(dir, "f-" + t + "-" + ((i + 1) & 1)))) {
                throw new IOException("HDFS refused to rename in " + dir);
            }
        });
    }

    @Override
    public double writeSequential(long bytes) throws IOException {
        byte[] buffer = SequentialData.array();
        long start = System.nanoTime();
        try (FSDataOutputStream out = fs.create(DATA_FILE, true)) {
            for (long written = 0; written < bytes; written += buffer.length) {
                out.write(buffer);
            }
        }
        return SequentialData.rate(bytes, start);
    }

    @Override
    public double readSequential(long bytes) throws IOException {
        byte[] buffer = new byte[CompareSettings.IO_BUFFER];
        long total = 0;
        long start = System.nanoTime();
        try (FSDataInputStream in = fs.open(DATA_FILE)) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                total += n;
            }
        }
        double rate = SequentialData.rate(total, start);
        SequentialData.checkLength(fs.makeQualified(DATA_FILE).toString(), total, bytes);
        fs.delete(DATA_FILE, false);
        return rate;
    }

    @Override
    public void close() throws IOException {
        try {
            fs.close();
        } finally {
            cluster.shutdown(true);
        }
    }
}
