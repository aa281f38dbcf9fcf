package io.tarn.common.security;

import io.tarn.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Key files on a real file system: written private, read back, refused when exposed or malformed. */
class KeyFileTest {
    @TempDir
    Path dir;

    @Test
    void aKeyIsWrittenReadableByItsOwnerOnlyAndReadsBackTheSame() throws Exception {
        KeyFile secret = KeyFile.newClusterSecret();
        Path file = dir.resolve("sub/cluster.secret");
        secret.writeNew(file);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
        KeyFile back = KeyFile.load(file, "tarn.security.secret.file");
        assertThat(back.kind()).isEqualTo(KeyFile.Kind.CLUSTER);
        assertThat(back.format()).isEqualTo(secret.format());
        assertThatThrownBy(() -> secret.writeNew(file)).hasMessageContaining("a key file is there already");

        Path alice = dir.resolve("alice.key");
        secret.userKey("alice").write(alice);
        KeyFile aliceBack = KeyFile.load(alice, "k");
        assertThat(aliceBack.kind()).isEqualTo(KeyFile.Kind.USER);
        assertThat(aliceBack.user()).isEqualTo("alice");
        assertThat(aliceBack.secret()).isEqualTo(secret.keyFor(KeyFile.Kind.USER, "alice"));
    }

    @Test
    void derivedKeysAreFixedByTheSecretAndDifferPerKindAndUser() {
        KeyFile secret = KeyFile.newClusterSecret();
        assertThat(secret.clientKey().secret()).isEqualTo(secret.clientKey().secret());
        assertThat(secret.userKey("a").secret()).isNotEqualTo(secret.userKey("b").secret())
                .isNotEqualTo(secret.clientKey().secret()).isNotEqualTo(secret.secret());
        assertThat(KeyFile.newClusterSecret().clientKey().secret()).isNotEqualTo(secret.clientKey().secret());
        assertThatThrownBy(() -> secret.clientKey().userKey("a")).hasMessageContaining("only the cluster secret");
        assertThat(secret.toString()).isEqualTo("cluster key");
        assertThat(secret.userKey("a").toString()).isEqualTo("user key of a");
    }

    @Test
    void aKeyFileOthersCanReadIsRefusedWithWhatToDo() throws Exception {
        Path file = dir.resolve("cluster.secret");
        KeyFile.newClusterSecret().write(file);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> KeyFile.load(file, "tarn.security.secret.file")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("is rw-r--r--: others can read or change it")
                .hasMessageContaining("chmod 600 " + file);
        assertThatThrownBy(() -> KeyFile.load(dir.resolve("none"), "tarn.security.secret.file"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("no such file");
    }

    @Test
    void malformedKeyFilesAreRefusedNamingTheLine() {
        String key = "key " + "ab".repeat(32);
        assertThat(KeyFile.parse(List.of("# c", "kind client", key), "f").kind()).isEqualTo(KeyFile.Kind.CLIENT);
        assertThatThrownBy(() -> KeyFile.parse(List.of("kind admin", key), "f"))
                .hasMessageContaining("f, line 1: kind must be cluster, client or user, not 'admin'");
        assertThatThrownBy(() -> KeyFile.parse(List.of("kind client", "key abcd"), "f"))
                .hasMessageContaining("line 2: the key has 2 bytes, not 32");
        assertThatThrownBy(() -> KeyFile.parse(List.of("kind client", "key zz"), "f"))
                .hasMessageContaining("not hexadecimal");
        assertThatThrownBy(() -> KeyFile.parse(List.of("kind user", key), "f"))
                .hasMessageContaining("a user key names its user");
        assertThatThrownBy(() -> KeyFile.parse(List.of("kind client", "user a", key), "f"))
                .hasMessageContaining("only a user key names a user");
        assertThatThrownBy(() -> KeyFile.parse(List.of("tarn.blocksize 1m"), "f"))
                .hasMessageContaining("unknown line 'tarn.blocksize'");
        assertThatThrownBy(() -> KeyFile.parse(List.of("kind client"), "f")).hasMessageContaining("lacks its key");
    }
}
