package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReplicationConfigTest {

    @Test
    void defaultsMatchTheDocumentedValues() {
        ReplicationConfig c = ReplicationConfig.defaults();
        assertThat(c.mode()).isEqualTo(Mode.PARALLEL);
        assertThat(c.lookBehind()).isEqualTo(2);
        assertThat(c.window()).isEqualTo(32);
        assertThat(c.leaseTicks()).isLessThan(c.electionTimeoutMin());
        assertThat(c.retransmitTicks()).isEqualTo(20);
        assertThat(c.retransmitMaxTicks()).isEqualTo(500);
        assertThat(c.maxBytesInFlight()).isEqualTo(16L << 20);
    }

    @Test
    void rejectsALeaseThatOutlivesTheFollowersPromise() {
        assertThatThrownBy(() -> ReplicationConfig.builder().electionTimeout(100, 200).leaseTicks(100).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTicks");
    }

    @Test
    void rejectsInconsistentRelations() {
        assertThatThrownBy(() -> ReplicationConfig.builder().window(1).lookBehind(2).build())
                .hasMessageContaining("window");
        assertThatThrownBy(() -> ReplicationConfig.builder().electionTimeout(150, 150).build())
                .hasMessageContaining("electionTimeoutMax");
        assertThatThrownBy(() -> ReplicationConfig.builder().heartbeatTicks(100).build())
                .hasMessageContaining("two heartbeats");
        assertThatThrownBy(() -> ReplicationConfig.builder().checkpointInterval(4).build())
                .hasMessageContaining("checkpointInterval");
        assertThatThrownBy(() -> ReplicationConfig.builder().retransmitTicks(30).retransmitMaxTicks(20).build())
                .hasMessageContaining("retransmitMaxTicks");
        assertThatThrownBy(() -> ReplicationConfig.builder().maxBytesInFlight(0).build())
                .hasMessageContaining("maxBytesInFlight");
    }

    @Test
    void toBuilderRoundTrips() {
        ReplicationConfig c = ReplicationConfig.builder().mode(Mode.IN_ORDER).lookBehind(3).window(64)
                .retransmitMaxTicks(77).maxBytesInFlight(12_345).build();
        assertThat(c.toBuilder().build().toString()).isEqualTo(c.toString());
    }
}
