package io.tarn.hadoop.fc;

import io.tarn.hadoop.TarnTestCluster;
import org.apache.hadoop.fs.FileContextURIBase;
import org.junit.jupiter.api.BeforeEach;

/** Hadoop's FileContext URI suite against Tarn: two contexts on the same cluster. */
public class TarnFileContextURIIT extends FileContextURIBase {

    @BeforeEach
    @Override
    public void setUp() throws Exception {
        fc1 = TarnTestCluster.get().newFileContext();
        fc2 = TarnTestCluster.get().newFileContext();
        super.setUp();
    }
}
