package io.tarn.rpc.tcp;

import io.netty.util.ResourceLeakDetector;
import io.tarn.common.config.LeakDetection;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tarn.rpc.leak.detection} sets Netty's leak detector when a transport starts, unless the
 * JVM was started with an explicit {@code io.netty.leakDetection.level}.
 */
class LeakDetectionTest {
    private String property;
    private ResourceLeakDetector.Level level;

    @BeforeEach
    void remember() {
        property = System.getProperty(TcpTransport.NETTY_LEAK_PROPERTY);
        level = ResourceLeakDetector.getLevel();
    }

    @AfterEach
    void restore() {
        if (property == null) {
            System.clearProperty(TcpTransport.NETTY_LEAK_PROPERTY);
        } else {
            System.setProperty(TcpTransport.NETTY_LEAK_PROPERTY, property);
        }
        ResourceLeakDetector.setLevel(level);
    }

    @Test
    void theKeySetsTheLevelWhenTheJvmDoesNot() {
        System.clearProperty(TcpTransport.NETTY_LEAK_PROPERTY);
        TcpTransport.applyLeakDetection(LeakDetection.PARANOID);
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
        TcpTransport.applyLeakDetection(LeakDetection.SIMPLE);
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.SIMPLE);
        TcpTransport.applyLeakDetection(LeakDetection.ADVANCED);
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.ADVANCED);

        TarnConfig defaults = TarnConfig.builder().build();
        assertThat(defaults.get(TarnKeys.RPC_LEAK_DETECTION)).isEqualTo(LeakDetection.OFF);
        new TcpTransport(defaults).close();
        assertThat(ResourceLeakDetector.getLevel()).as("off by default").isEqualTo(ResourceLeakDetector.Level.DISABLED);

        new TcpTransport(TarnConfig.builder().set("tarn.rpc.leak.detection", "paranoid").build()).close();
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
    }

    @Test
    void anExplicitJvmLevelWins() {
        System.setProperty(TcpTransport.NETTY_LEAK_PROPERTY, "advanced");
        ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.ADVANCED);
        new TcpTransport(TarnConfig.builder().build()).close();
        TcpTransport.applyLeakDetection(LeakDetection.OFF);
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.ADVANCED);
    }
}
