package io.tarn.hadoop.contract;

import io.tarn.hadoop.TarnTestCluster;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.contract.AbstractFSContract;

import java.io.IOException;

/**
 * Binds Hadoop's contract suites to the shared {@link TarnTestCluster}. What Tarn does and does not
 * do is declared in {@code contract/tarn.xml}; the suites skip exactly the tests those options
 * rule out.
 */
public class TarnContract extends AbstractFSContract {
    /** The contract options, on the test class path. */
    public static final String CONTRACT_XML = "contract/tarn.xml";

    public TarnContract(Configuration conf) {
        super(conf);
        addConfResource(CONTRACT_XML);
    }

    @Override
    public FileSystem getTestFileSystem() throws IOException {
        return FileSystem.get(TarnTestCluster.get().uri(), TarnTestCluster.withKey(getConf()));
    }

    @Override
    public String getScheme() {
        return "tarn";
    }

    @Override
    public Path getTestPath() {
        return new Path("/test");
    }
}
