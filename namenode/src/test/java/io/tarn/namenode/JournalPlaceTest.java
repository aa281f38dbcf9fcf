package io.tarn.namenode;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a namenode journals by default (tarn.namenode.journal = disk): the configured directory,
 * a subdirectory per namenode when there are several, a directory named after its port under the
 * temporary directory when none is set, and, on port 0, a fresh one that goes when it stops.
 */
class JournalPlaceTest {
    @TempDir
    Path tmp;

    private static TarnConfig config(String addresses, int partition, String dir) {
        return TarnConfig.builder().set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.NAMENODE_ADDRESS, addresses).set(TarnKeys.NAMENODE_PARTITION, partition)
                .set(TarnKeys.NAMENODE_JOURNAL_DIR, dir).build();
    }

    @Test
    void theJournalIsOnByDefault() {
        assertThat(TarnConfig.builder().build().get(TarnKeys.NAMENODE_JOURNAL).name()).isEqualTo("DISK");
    }

    @Test
    void eachOfSeveralNamenodesTakesASubdirectoryOfTheConfiguredOne() {
        String dir = tmp.resolve("journal").toString();
        TarnConfig one = config("127.0.0.1:7000", 0, dir);
        assertThat(Namenode.journalDirectory(one, Partitioning.of(one), 7000)).isEqualTo(Path.of(dir));
        TarnConfig second = config("127.0.0.1:7000,127.0.0.1:7001", 1, dir);
        assertThat(Namenode.journalDirectory(second, Partitioning.of(second), 7001))
                .isEqualTo(Path.of(dir, "namenode-1"));
    }

    @Test
    void withNoDirectorySetTheJournalIsNamedAfterThePort() {
        TarnConfig c = config("127.0.0.1:7000,127.0.0.1:7001", 1, "");
        assertThat(Namenode.journalDirectory(c, Partitioning.of(c), 7001))
                .isEqualTo(Path.of(System.getProperty("java.io.tmpdir"), "tarn-namenode-7001"));
    }

    @Test
    void onPortZeroWithNoDirectoryTheJournalLivesForOneRunOnly() throws Exception {
        TarnConfig c = config("127.0.0.1:0", 0, "");
        Path journal;
        try (Namenode nn = Namenode.start(c)) {
            journal = nn.service().journal().directory();
            assertThat(journal.getFileName().toString()).startsWith("tarn-namenode-");
            assertThat(Files.list(journal)).isNotEmpty();
            nn.service().namespace().mkdirs("/kept/for/this/run");
        }
        assertThat(journal).doesNotExist();
    }
}
