package io.tarn.hadoop.fc;

import io.tarn.hadoop.TarnTestCluster;
import org.apache.hadoop.fs.FileContextUtilBase;
import org.junit.jupiter.api.BeforeEach;

/** Hadoop's FileContext.Util suite (copies) against Tarn. */
public class TarnFileContextUtilIT extends FileContextUtilBase {

    @BeforeEach
    @Override
    public void setUp() throws Exception {
        fc = TarnTestCluster.get().newFileContext();
        super.setUp();
    }
}
