package io.tarn.client;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.TarnPath;
import io.tarn.minicluster.MiniCluster;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A path longer than a namenode accepts fails with INVALID_PATH naming the limit, whether it would
 * fit in a frame's string field (the namenode refuses it) or not (the client does, before encoding
 * it), and changes nothing.
 */
class LongPathTest {
    static MiniCluster cluster;
    static TarnClient client;

    @BeforeAll
    static void start() throws IOException {
        cluster = MiniCluster.builder().datanodes(1).start();
        client = TarnClient.connect(cluster.config());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void refused(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOf(TarnException.class)
                .satisfies(e -> assertThat(((TarnException) e).code()).isEqualTo(ErrorCode.INVALID_PATH))
                .hasMessageContaining(String.valueOf(TarnPath.MAX_PATH_BYTES));
    }

    @Test
    void aPathBeyondAFramesStringFieldIsRefusedBeforeItIsSent() throws Exception {
        String huge = "/" + "a".repeat(70_000);
        long before = cluster.namenode().service().operations();
        refused(() -> client.getStatus(huge));
        refused(() -> client.create(huge).close());
        refused(() -> client.mkdirs(huge));
        refused(() -> client.delete(huge, true));
        refused(() -> client.rename("/x", huge));
        refused(() -> client.list(huge));
        assertThat(cluster.namenode().service().operations() - before).as("nothing sent").isZero();
        assertThat(client.getStatus("/").isDirectory()).as("the client still works").isTrue();
    }

    @Test
    void aPathThatFitsAFrameButNotANamenodeIsRefusedAsWell() {
        String long9k = "/" + "b".repeat(9_000);
        refused(() -> client.getStatus(long9k));
        String multibyte = "/" + "é".repeat(4_200); // 8,401 bytes in UTF-8 from 4,201 characters
        refused(() -> client.getStatus(multibyte));
    }
}
