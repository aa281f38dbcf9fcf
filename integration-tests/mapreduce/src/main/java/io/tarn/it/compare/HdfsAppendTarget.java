package io.tarn.it.compare;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import java.io.File;
import java.io.IOException;

/**
 * HDFS for the replicated-write comparison: Hadoop's MiniDFSCluster with a namenode and three
 * datanodes in this JVM, storage on the local disk under the work directory, reached with
 * {@link DistributedFileSystem}. A file of replication 3 is written through HDFS's datanode
 * pipeline (client to the first datanode, on to the second and third, acknowledgments back);
 * {@code hflush} waits for every datanode of the pipeline to hold the packet, {@code hsync} also for
 * each of them to force it to disk.
 */
final class HdfsAppendTarget implements AppendTarget {
    static final int DATANODES = 3;
    /** HDFS's default block size: no file of the comparison crosses a block. */
    private static final long BLOCK_SIZE = 128L << 20;
    private static final int BUFFER = 4096;

    private final MiniDFSCluster cluster;
    private final DistributedFileSystem fs;
    private final String baseDir;

    private HdfsAppendTarget(MiniDFSCluster cluster, DistributedFileSystem fs, String baseDir) {
        this.cluster = cluster;
        this.fs = fs;
        this.baseDir = baseDir;
    }

    /** Starts the cluster with its storage under {@code baseDir}. */
    static HdfsAppendTarget start(File baseDir) throws IOException {
        Configuration conf = new Configuration();
        conf.setInt("dfs.replication", DATANODES);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, baseDir)
                .numDataNodes(DATANODES)
                .format(true)
                .build();
        try {
            cluster.waitActive();
            return new HdfsAppendTarget(cluster, cluster.getFileSystem(), baseDir.toString());
        } catch (IOException | RuntimeException e) {
            cluster.shutdown(true);
            throw e;
        }
    }

    @Override
    public String description() {
        return "HDFS (MiniDFSCluster, 1 namenode, " + DATANODES + " datanodes in the runner's JVM, storage on local"
                + " disk under " + baseDir + "; DistributedFileSystem, Hadoop's default settings)";
    }

    @Override
    public String name() {
        return "HDFS";
    }

    @Override
    public Appender create(String path, int replication) throws IOException {
        FSDataOutputStream out = fs.create(new Path(path), true, BUFFER, (short) replication, BLOCK_SIZE);
        return AppendTarget.over(out, out::hflush, out::hsync);
    }

    @Override
    public void deleteTree(String path) throws IOException {
        fs.delete(new Path(path), true);
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
