package io.tarn.it.dfsio;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;

/**
 * HDFS's side: Hadoop's MiniDFSCluster (a namenode and two datanodes in this JVM, storage on the
 * local disk under the work directory). Files are written with replication 1, like Tarn's
 * unreplicated DRAM tier, so both sides store each byte once.
 */
final class HdfsTarget implements BenchmarkTarget {
    static final int DATANODES = 2;
    static final short REPLICATION = 1;

    private final MiniDFSCluster cluster;

    private HdfsTarget(MiniDFSCluster cluster) {
        this.cluster = cluster;
    }

    static HdfsTarget start(Path baseDir) throws IOException {
        Configuration conf = new Configuration();
        conf.setInt("dfs.replication", REPLICATION);
        MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf, baseDir.toFile())
                .numDataNodes(DATANODES)
                .format(true)
                .build();
        cluster.waitActive();
        return new HdfsTarget(cluster);
    }

    @Override
    public String description() {
        return "HDFS (MiniDFSCluster, " + DATANODES + " datanodes, replication " + REPLICATION + ", local disk)";
    }

    @Override
    public URI uri() {
        return cluster.getURI();
    }

    @Override
    public void close() {
        cluster.shutdown(true);
    }
}
