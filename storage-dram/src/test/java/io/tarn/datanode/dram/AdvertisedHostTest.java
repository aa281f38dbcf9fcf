package io.tarn.datanode.dram;

import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AdvertisedHostTest {

    @Test
    void theConfiguredHostNameWins() {
        TarnConfig c = TarnConfig.builder().set(TarnKeys.DATANODE_HOSTNAME, "dn7.example.org").build();
        assertThat(DramDatanode.advertisedHost(c, HostPort.parse("10.0.0.7:9070"))).isEqualTo("dn7.example.org");
    }

    @Test
    void otherwiseTheBindHost() {
        assertThat(DramDatanode.advertisedHost(TarnConfig.defaults(), HostPort.parse("10.0.0.7:9070")))
                .isEqualTo("10.0.0.7");
    }

    @Test
    void aWildcardBindAdvertisesThisMachinesName() {
        String host = DramDatanode.advertisedHost(TarnConfig.defaults(), HostPort.parse("0.0.0.0:0"));
        assertThat(host).isNotBlank().isNotEqualTo("0.0.0.0");
    }
}
