package io.tarn.hadoop.fc;

import io.tarn.hadoop.TarnTestCluster;
import org.apache.hadoop.fs.FileContextMainOperationsBaseTest;
import org.apache.hadoop.fs.FileContextTestHelper;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;

/** Hadoop's FileContext main-operations suite against Tarn, through {@code TarnFs}. */
public class TarnFileContextMainOperationsIT extends FileContextMainOperationsBaseTest {

    @BeforeAll
    static void connect() throws IOException {
        fc = TarnTestCluster.get().newFileContext();
    }

    @Override
    protected FileContextTestHelper createFileContextHelper() {
        return new FileContextTestHelper("/fc-main-operations");
    }

    /** Tarn keeps no block checksums, so it has no corrupt blocks to list. */
    @Override
    protected boolean listCorruptedBlocksSupported() {
        return false;
    }
}
