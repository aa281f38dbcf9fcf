package io.tarn.tools;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The command line's jar carries conf/logback.xml, copied by the build, as its logback.xml: the
 * default logback finds on the class path when neither $TARN_CONF_DIR nor the distribution's conf/
 * has one, so that client commands log warnings only instead of logback's DEBUG default
 * (DistributionIT runs tarn fs, iobench and status that way).
 */
class DefaultLoggingTest {
    @Test
    void theJarsLogbackXmlIsConfLogbackXml() throws Exception {
        byte[] shipped;
        try (InputStream in = TarnCli.class.getResourceAsStream("/logback.xml")) {
            assertThat(in).as("logback.xml beside io/tarn/tools in the jar").isNotNull();
            shipped = in.readAllBytes();
        }
        assertThat(shipped).isEqualTo(Files.readAllBytes(Path.of("..", "conf", "logback.xml")));
        assertThat(new String(shipped, java.nio.charset.StandardCharsets.UTF_8))
                .contains("${TARN_LOG_LEVEL:-INFO}", "${TARN_LOG_TARGET:-System.out}",
                        "<logger name=\"io.netty\" level=\"WARN\"/>");
    }
}
