package io.tarn.tools;

import io.tarn.common.config.ConfigException;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Configuration sources and their order: defaults, file, tarn.* system properties, -D options. */
class ConfigTest {
    @TempDir
    Path dir;

    @Test
    void dashDOverridesInBothSpellings() {
        Cli.Result r = Cli.run("conf", "-D", "tarn.blocksize=2m", "-Dtarn.rpc.timeout=5s");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).contains("tarn.blocksize = 2m\n").contains("tarn.rpc.timeout = 5000\n");
        assertThat(r.out().lines().count()).isEqualTo(TarnKeys.ALL.size());
    }

    @Test
    void dashDIsAcceptedBeforeAndAfterTheCommandName() {
        Cli.Result r = Cli.run("-Dtarn.blocksize=2m", "conf", "-Dtarn.rpc.timeout=7s");
        assertThat(r.out()).contains("tarn.blocksize = 2m\n").contains("tarn.rpc.timeout = 7000\n");
    }

    @Test
    void anUnknownKeyIsAUsageErrorNamingTheKey() {
        Cli.Result r = Cli.run("conf", "-D", "tarn.blocksiz=2m");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("tarn conf: ").contains("'tarn.blocksiz'").contains("tarn.blocksize")
                .doesNotContain("\tat ");
    }

    @Test
    void aBadValueIsAUsageErrorNamingTheKey() {
        Cli.Result r = Cli.run("conf", "-D", "tarn.blocksize=3m");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("tarn.blocksize").contains("power of two");
        assertThat(Cli.run("conf", "-D", "novalue").exit()).isEqualTo(2);
    }

    @Test
    void configFileThenSystemPropertiesThenOptions() throws Exception {
        Path file = Files.writeString(dir.resolve("tarn-site.conf"),
                "tarn.blocksize 4m\ntarn.rpc.timeout = 9s\ntarn.datanode.hostname = from-file\n");
        Properties system = new Properties();
        system.setProperty(ConfigLoader.CONF_PROPERTY, file.toString());
        system.setProperty("tarn.home", "/ignored/launcher/property");
        system.setProperty("tarn.rpc.timeout", "11s");
        system.setProperty("tarn.datanode.hostname", "from-system");
        TarnConfig c = ConfigLoader.load(null, system, Map.of("tarn.datanode.hostname", "from-option"));
        assertThat(c.get(TarnKeys.BLOCK_SIZE)).isEqualTo(4L << 20);
        assertThat(c.get(TarnKeys.RPC_TIMEOUT)).isEqualTo(11_000L);
        assertThat(c.get(TarnKeys.DATANODE_HOSTNAME)).isEqualTo("from-option");
    }

    @Test
    void aMissingDefaultFileIsSkippedButAMissingExplicitFileIsAnError() {
        Properties system = new Properties();
        system.setProperty(ConfigLoader.CONF_PROPERTY, dir.resolve("absent.conf").toString());
        assertThat(ConfigLoader.load(null, system, Map.of()).get(TarnKeys.BLOCK_SIZE)).isEqualTo(1L << 20);
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("absent.conf"), system, Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("absent.conf");
        Cli.Result r = Cli.run("conf", "--config", dir.resolve("absent.conf").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("tarn conf: cannot read configuration file " + dir.resolve("absent.conf")
                + ": no such file\n");
        Cli.Result bench = Cli.run("iobench", "-t", "getFile", "--config", dir.resolve("absent.conf").toString());
        assertThat(bench.exit()).isEqualTo(2);
        assertThat(bench.err()).isEqualTo("tarn iobench: cannot read configuration file " + dir.resolve("absent.conf")
                + ": no such file\n");
    }

    @Test
    void aBadLineInTheFileNamesFileAndLine() throws Exception {
        Path file = Files.writeString(dir.resolve("bad.conf"), "# fine\ntarn.nosuch.key 1\n");
        Cli.Result r = Cli.run("conf", "--config", file.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("bad.conf:2").contains("tarn.nosuch.key");
    }

    @Test
    void aLineThatIsNoKeyValuePairIsReportedAsMalformedWithFileAndLine() throws Exception {
        Path file = Files.writeString(dir.resolve("garbage.conf"), "tarn.blocksize 2m\n=== garbage ===\n");
        Cli.Result r = Cli.run("conf", "--config", file.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("tarn conf: " + file + ":2: malformed line '=== garbage ===': expected "
                + "'key value' or 'key = value', such as 'tarn.blocksize 1m'\n");
    }
}
