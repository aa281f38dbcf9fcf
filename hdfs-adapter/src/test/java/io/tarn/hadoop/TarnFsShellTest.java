package io.tarn.hadoop;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FsStatus;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How {@code tarn fs} turns Tarn settings into FsShell's Hadoop configuration. */
class TarnFsShellTest {

    @Test
    void tarnKeysAmongTheLeadingGenericOptionsAreTakenOut() {
        List<String> rest = new ArrayList<>();
        Map<String, String> tarn = TarnFsShell.tarnOptions(new String[] {"-D", "tarn.namenode.address=h:1",
                "-Dtarn.client.readahead=1m", "-D", "fs.trash.interval=5", "-fs", "file:///", "-ls", "-D",
                "tarn.not.an.option.here=1", "/"}, rest);
        assertThat(tarn).containsExactly(Map.entry("tarn.namenode.address", "h:1"),
                Map.entry("tarn.client.readahead", "1m"));
        assertThat(rest).containsExactly("-D", "fs.trash.interval=5", "-fs", "file:///", "-ls", "-D",
                "tarn.not.an.option.here=1", "/");
    }

    @Test
    void theDefaultFileSystemIsTheTarnClusterAndNonDefaultKeysTravelAsFsTarnOptions() {
        TarnConfig tarn = TarnConfig.builder().set("tarn.namenode.address", "nn.example:9999")
                .set("tarn.client.readahead", "8m").build();
        Configuration conf = TarnFsShell.hadoopConfiguration(tarn);
        assertThat(conf.get("fs.defaultFS")).isEqualTo("tarn://nn.example:9999/");
        assertThat(conf.get("fs.tarn.client.readahead")).isEqualTo(tarn.describe().get("tarn.client.readahead"));
        assertThat(conf.get("fs.tarn.namenode.address")).as("the URI carries it").isNull();
        assertThat(conf.get("fs.tarn." + TarnKeys.BLOCK_SIZE.name().substring(5))).as("defaults stay out").isNull();
    }

    @Test
    void withSeveralNamenodesTheDefaultFileSystemNamesTheFirst() {
        TarnConfig tarn = TarnConfig.builder()
                .set("tarn.namenode.address", "nn0.example:9060,nn1.example:9061,[::1]:9062,nn3.example:9063").build();
        Configuration conf = TarnFsShell.hadoopConfiguration(tarn);
        assertThat(conf.get("fs.defaultFS")).isEqualTo("tarn://nn0.example:9060/");
        assertThat(conf.get("fs.tarn.namenode.address")).as("the others are learned from the first").isNull();

        TarnConfig ipv6First = TarnConfig.builder().set("tarn.namenode.address", "[::1]:9062,nn1.example:9061").build();
        assertThat(TarnFsShell.hadoopConfiguration(ipv6First).get("fs.defaultFS")).isEqualTo("tarn://[::1]:9062/");
    }

    @Test
    void aLeadingConfigFileReplacesTarnSiteConf(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("other.conf"), "tarn.namenode.address other.example:7000\n");
        List<String> rest = new ArrayList<>();
        assertThat(TarnFsShell.configFile(new String[] {"--config", file.toString(), "-ls", "/"}, rest))
                .isEqualTo(file);
        assertThat(rest).containsExactly("-ls", "/");
        rest.clear();
        assertThat(TarnFsShell.configFile(new String[] {"--config=" + file, "-D", "a=b"}, rest)).isEqualTo(file);
        assertThat(rest).containsExactly("-D", "a=b");
        rest.clear();
        assertThat(TarnFsShell.configFile(new String[] {"-ls", "--config", "x"}, rest)).as("only leading").isNull();
        assertThat(rest).containsExactly("-ls", "--config", "x");
        assertThat(TarnFsShell.hadoopConfiguration(TarnFsShell.tarnConfiguration(file, Map.of())).get("fs.defaultFS"))
                .isEqualTo("tarn://other.example:7000/");
        assertThatThrownBy(() -> TarnFsShell.configFile(new String[] {"--config"}, new ArrayList<>()))
                .hasMessage("--config needs a file");
    }

    @Test
    void aConfigFileThatCannotBeReadIsAUsageErrorAsInEveryTarnCommand(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nonexistent.conf");
        ShellRun r = ShellRun.of("--config", missing.toString(), "-ls", "/");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("tarn fs: cannot read configuration file " + missing + ": no such file\n");
    }

    /** A local file system under another scheme that reports no capacity, as a cluster without datanodes does. */
    public static final class ZeroCapacityFileSystem extends RawLocalFileSystem {
        @Override
        public URI getUri() {
            return URI.create("zerocap:///");
        }

        @Override
        public String getScheme() {
            return "zerocap";
        }

        @Override
        public FsStatus getStatus(org.apache.hadoop.fs.Path p) {
            return new FsStatus(0, 0, 0);
        }
    }

    @Test
    void dfShowsZeroPercentUsedOfNoCapacityWhereHadoopsDfShowsNaN() throws Exception {
        ShellRun r = ShellRun.of("-D", "fs.zerocap.impl=" + ZeroCapacityFileSystem.class.getName(),
                "-D", "fs.zerocap.impl.disable.cache=true", "-df", "zerocap:///");
        assertThat(r.code()).as(r.err()).isZero();
        // Ends with: the test's logback configuration logs to standard output, too.
        assertThat(r.out()).doesNotContain("NaN").endsWith(
                "Filesystem   Size  Used  Available  Use%\n"
                        + "zerocap:///     0     0          0    0%\n");
        assertThat(r.err()).as("not a Tarn cluster: no word about datanodes").isEmpty();
    }
}
