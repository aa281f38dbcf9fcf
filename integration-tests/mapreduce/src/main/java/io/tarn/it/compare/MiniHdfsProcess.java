package io.tarn.it.compare;

import org.apache.hadoop.hdfs.MiniDFSCluster;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

/**
 * A MiniDFSCluster in a process of its own, for benchmarks whose own classpath cannot hold HDFS's
 * server side (the Spark shuffle comparison: Spark brings the shaded Hadoop client). One namenode
 * and one datanode on local disk under the directory given, replication 1, the edit log forced as
 * a deployed namenode's is. Once active it writes its {@code hdfs://} URI to {@code uri} in that
 * directory and on standard output, then runs until its standard input closes (its parent ended).
 *
 * <p>Usage: {@code MiniHdfsProcess <base directory>}
 */
public final class MiniHdfsProcess {
    private MiniHdfsProcess() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: MiniHdfsProcess <base directory>");
            System.exit(2);
        }
        File base = new File(args[0]);
        MiniDFSCluster cluster = HdfsSide.startCluster(base);
        try {
            String uri = cluster.getFileSystem().getUri().toString();
            Files.writeString(base.toPath().resolve("uri"), uri + "\n", StandardCharsets.UTF_8);
            System.out.println(uri);
            System.out.flush();
            InputStream in = System.in;
            while (in.read() >= 0) {
                // nothing to read: the parent's end closes the pipe
            }
        } finally {
            cluster.shutdown(true);
        }
        System.exit(0);
    }
}
