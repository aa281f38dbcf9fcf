package io.tarn.hadoop.fc;

import io.tarn.hadoop.TarnTestCluster;
import org.apache.hadoop.fs.FileContextCreateMkdirBaseTest;
import org.apache.hadoop.fs.FileContextTestHelper;
import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;

/** Hadoop's FileContext create and mkdir suite against Tarn. */
public class TarnFileContextCreateMkdirIT extends FileContextCreateMkdirBaseTest {

    @BeforeAll
    static void connect() throws IOException {
        fc = TarnTestCluster.get().newFileContext();
    }

    @Override
    protected FileContextTestHelper createFileContextHelper() {
        return new FileContextTestHelper("/fc-create-mkdir");
    }
}
