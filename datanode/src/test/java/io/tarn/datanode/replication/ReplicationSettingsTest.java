package io.tarn.datanode.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tarn.common.config.ConfigException;
import io.tarn.common.config.ReplicationMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.replication.Mode;
import io.tarn.replication.ReplicationConfig;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import io.tarn.replication.host.ReplicationHost;

/** The {@code tarn.replication.*} keys become a datanode's replication settings, one tick per millisecond. */
class ReplicationSettingsTest {

    @Test
    void theDefaultsAreTheCoresDefaults() {
        ReplicationHost.Settings s = HostedGroups.settings(TarnConfig.defaults());
        ReplicationConfig core = ReplicationConfig.defaults();
        assertThat(s.config().mode()).isEqualTo(core.mode()).isEqualTo(Mode.PARALLEL);
        assertThat(s.config().electionTimeoutMin()).isEqualTo(core.electionTimeoutMin());
        assertThat(s.config().electionTimeoutMax()).isEqualTo(core.electionTimeoutMax());
        assertThat(s.config().heartbeatTicks()).isEqualTo(core.heartbeatTicks());
        assertThat(s.config().leaseTicks()).isEqualTo(core.leaseTicks());
        assertThat(s.config().window()).isEqualTo(core.window());
        assertThat(s.config().checkpointInterval()).isEqualTo(core.checkpointInterval());
        assertThat(s.config().checkpointBytes()).isEqualTo(core.checkpointBytes());
        assertThat(s.config().maxBytesInFlight()).isEqualTo(core.maxBytesInFlight());
        assertThat(s.config().stepDownTicks()).as("1 s, longer than the core's default of three 300 ms timeouts")
                .isEqualTo(1000);
        assertThat(s.tickNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(s.requestTimeoutNanos()).isEqualTo(TimeUnit.MILLISECONDS.toNanos(
                TarnKeys.RPC_TIMEOUT.defaultValue()));
        assertThat(s.threads()).isEqualTo(1);
        assertThat(s.heldBytes()).as("256 MiB, or a quarter of a smaller heap")
                .isEqualTo(Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4));
        // The one setting the datanode does not take from the core: its TCP links report losses.
        assertThat(core.reliableLinks()).isFalse();
        assertThat(s.config().reliableLinks()).isTrue();
    }

    @Test
    void everyKeyReachesTheSettings() {
        TarnConfig c = TarnConfig.builder().set(TarnKeys.REPLICATION_MODE, ReplicationMode.IN_ORDER)
                .set(TarnKeys.REPLICATION_ELECTION_TIMEOUT, 400L).set(TarnKeys.REPLICATION_HEARTBEAT_INTERVAL, 50L)
                .set(TarnKeys.REPLICATION_LEASE, 300L).set(TarnKeys.REPLICATION_WINDOW, 64)
                .set(TarnKeys.REPLICATION_CHECKPOINT_INTERVAL, 4096).set(TarnKeys.REPLICATION_THREADS, 2)
                .set(TarnKeys.REPLICATION_CHECKPOINT_BYTES, 8L << 20)
                .set(TarnKeys.REPLICATION_MAX_BYTES_IN_FLIGHT, 4L << 20)
                .set(TarnKeys.REPLICATION_LAGGARD_WAIT, 10_000L).set(TarnKeys.REPLICATION_PRE_VOTE, false)
                .set(TarnKeys.REPLICATION_HELD_BYTES, 3L << 20).set(TarnKeys.REPLICATION_STEP_DOWN, 2_500L)
                .set(TarnKeys.RPC_TIMEOUT, 5_000L).build();
        ReplicationHost.Settings s = HostedGroups.settings(c);
        assertThat(s.config().mode()).isEqualTo(Mode.IN_ORDER);
        assertThat(s.config().electionTimeoutMin()).isEqualTo(400);
        assertThat(s.config().electionTimeoutMax()).isEqualTo(800);
        assertThat(s.config().heartbeatTicks()).isEqualTo(50);
        assertThat(s.config().leaseTicks()).isEqualTo(300);
        assertThat(s.config().window()).isEqualTo(64);
        assertThat(s.config().checkpointInterval()).isEqualTo(4096);
        assertThat(s.config().checkpointBytes()).isEqualTo(8L << 20);
        assertThat(s.config().maxBytesInFlight()).isEqualTo(4L << 20);
        assertThat(s.config().laggardWaitTicks()).isEqualTo(10_000);
        assertThat(s.config().stepDownTicks()).isEqualTo(2_500);
        assertThat(s.config().preVote()).isFalse();
        assertThat(HostedGroups.settings(TarnConfig.builder().build()).config().preVote()).as("default").isTrue();
        assertThat(s.threads()).isEqualTo(2);
        assertThat(s.heldBytes()).isEqualTo(3L << 20);
        assertThat(s.requestTimeoutNanos()).isEqualTo(TimeUnit.SECONDS.toNanos(5));
        assertThat(TarnKeys.REPLICATION_MODE.parse("in_order")).isEqualTo(ReplicationMode.IN_ORDER);
    }

    @Test
    void keysThatContradictEachOtherAreAClearError() {
        TarnConfig c = TarnConfig.builder().set(TarnKeys.REPLICATION_ELECTION_TIMEOUT, 100L)
                .set(TarnKeys.REPLICATION_LEASE, 150L).build();
        assertThatThrownBy(() -> HostedGroups.settings(c)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("tarn.replication.election.timeout = 100 ms")
                .hasMessageContaining("tarn.replication.lease = 150 ms");
        TarnConfig slow = TarnConfig.builder().set(TarnKeys.REPLICATION_ELECTION_TIMEOUT, 600L).build();
        assertThatThrownBy(() -> HostedGroups.settings(slow)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("tarn.replication.leader.stepdown = 1000 ms")
                .hasMessageContaining("stepDownTicks must be at least electionTimeoutMax");
    }
}
