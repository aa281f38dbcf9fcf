package io.tarn.hadoop;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

import java.net.URI;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TarnHadoopConfigTest {
    private static final URI NAMENODE = URI.create("tarn://nn.example.com:9999/");

    private static Configuration empty() {
        return new Configuration(false);
    }

    @Test
    void namenodeComesFromTheAuthority() {
        TarnConfig c = TarnHadoopConfig.of(NAMENODE, empty());
        assertThat(c.get(TarnKeys.NAMENODE_ADDRESS)).isEqualTo("nn.example.com:9999");
    }

    @Test
    void missingPortMeansTheDefaultNamenodePort() {
        TarnConfig c = TarnHadoopConfig.of(URI.create("tarn://nn/"), empty());
        assertThat(c.get(TarnKeys.NAMENODE_ADDRESS)).isEqualTo("nn:" + TarnHadoopConfig.defaultPort());
        assertThat(TarnHadoopConfig.defaultPort()).isEqualTo(9060);
    }

    @Test
    void ipv6AuthorityKeepsItsAddress() {
        TarnConfig c = TarnHadoopConfig.of(URI.create("tarn://[::1]:9061/"), empty());
        assertThat(c.get(TarnKeys.NAMENODE_ADDRESS)).isEqualTo("[::1]:9061");
    }

    @Test
    void uriWithoutHostIsRejected() {
        assertThatThrownBy(() -> TarnHadoopConfig.of(URI.create("tarn:///data"), empty()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tarn://host:port/");
    }

    @Test
    void fsTarnKeysBecomeTarnKeys() {
        Configuration conf = empty();
        conf.set("fs.tarn.client.readahead", "8m");
        conf.set("fs.tarn.rpc.timeout", "5s");
        TarnConfig c = TarnHadoopConfig.of(NAMENODE, conf);
        assertThat(c.get(TarnKeys.CLIENT_READAHEAD)).isEqualTo(8L << 20);
        assertThat(c.get(TarnKeys.RPC_TIMEOUT)).isEqualTo(5_000L);
    }

    @Test
    void hadoopsOwnPerSchemeKeysAreNotTarnKeys() {
        Configuration conf = empty();
        conf.set("fs.tarn.impl", TarnFileSystem.class.getName());
        conf.set("fs.tarn.impl.disable.cache", "true");
        assertThat(TarnHadoopConfig.tarnEntries(conf)).isEmpty();
        TarnHadoopConfig.of(NAMENODE, conf);
    }

    @Test
    void unknownKeyFailsWithTarnsSuggestion() {
        Configuration conf = empty();
        conf.set("fs.tarn.blocksze", "1m");
        assertThatThrownBy(() -> TarnHadoopConfig.of(NAMENODE, conf))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fs.tarn.blocksze")
                .hasMessageContaining("did you mean 'tarn.blocksize'");
    }

    @Test
    void malformedValueFailsNamingTheHadoopKey() {
        Configuration conf = empty();
        conf.set("fs.tarn.client.readahead", "lots");
        assertThatThrownBy(() -> TarnHadoopConfig.of(NAMENODE, conf))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fs.tarn.client.readahead");
    }

    @Test
    void namenodeAddressKeyIsRejectedInFavourOfTheUri() {
        Configuration conf = empty();
        conf.set("fs.tarn.namenode.address", "other:9060");
        assertThatThrownBy(() -> TarnHadoopConfig.of(NAMENODE, conf))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("authority");
    }
}
