package io.tarn.tools;

import io.tarn.common.security.KeyFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import static org.assertj.core.api.Assertions.assertThat;

/** tarn secret, and the authentication tarn start gives a cluster (tarn start-plan --secret-file). */
class SecretCommandTest {
    @TempDir
    Path dir;

    @Test
    void writesAClusterSecretAndTheKeysDerivedFromIt() throws Exception {
        Path secret = dir.resolve("cluster.secret");
        Cli.Result r = Cli.run("secret", secret.toString());
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).isEqualTo("tarn secret: wrote the cluster key to " + secret + " (mode 600)\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret))).isEqualTo("rw-------");
        assertThat(KeyFile.load(secret, "k").kind()).isEqualTo(KeyFile.Kind.CLUSTER);

        Path alice = dir.resolve("alice.key");
        assertThat(Cli.run("secret", "--user", "alice", "--from", secret.toString(), alice.toString()).exit())
                .isZero();
        assertThat(KeyFile.load(alice, "k").format())
                .isEqualTo(KeyFile.load(secret, "k").userKey("alice").format());
        Path client = dir.resolve("client.key");
        assertThat(Cli.run("secret", "--client", "-Dtarn.security.secret.file=" + secret, client.toString()).exit())
                .as("--from defaults to tarn.security.secret.file").isZero();
        assertThat(KeyFile.load(client, "k").kind()).isEqualTo(KeyFile.Kind.CLIENT);
    }

    @Test
    void refusesWhatWouldLoseOrLeakAKey() throws Exception {
        Path secret = dir.resolve("cluster.secret");
        assertThat(Cli.run("secret", secret.toString()).exit()).isZero();
        String before = Files.readString(secret);
        Cli.Result again = Cli.run("secret", secret.toString());
        assertThat(again.exit()).isEqualTo(2);
        assertThat(again.err()).contains(secret + " exists: pass --force to replace it");
        assertThat(Files.readString(secret)).isEqualTo(before);

        Path client = dir.resolve("client.key");
        assertThat(Cli.run("secret", "--client", "--from", secret.toString(), client.toString()).exit()).isZero();
        Cli.Result fromClient = Cli.run("secret", "--user", "bob", "--from", client.toString(),
                dir.resolve("bob.key").toString());
        assertThat(fromClient.exit()).isEqualTo(2);
        assertThat(fromClient.err()).contains("not the cluster secret");
        Cli.Result noSource = Cli.run("secret", "--client", dir.resolve("x.key").toString());
        assertThat(noSource.exit()).isEqualTo(2);
        assertThat(noSource.err()).contains("--from FILE or tarn.security.secret.file");
        Cli.Result badUser = Cli.run("secret", "--user", "", "--from", secret.toString(),
                dir.resolve("y.key").toString());
        assertThat(badUser.exit()).isEqualTo(2);
        assertThat(badUser.err()).contains("user name is empty");

        Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r--r--"));
        Cli.Result exposed = Cli.run("secret", "--client", "--from", secret.toString(),
                dir.resolve("z.key").toString());
        assertThat(exposed.exit()).isEqualTo(2);
        assertThat(exposed.err()).contains("others can read or change it");
    }

    @Test
    void tarnStartAuthenticatesWithANewSecretUnlessTheConfigurationSaysOtherwise() throws Exception {
        Path made = dir.resolve("run/cluster.secret");
        Cli.Result r = Cli.run("start-plan", "--secret-file", made.toString(), "-Dtarn.namenode.address=h:1");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).isEqualTo("h:1\n-Dtarn.security.authentication=secret\n-Dtarn.security.secret.file="
                + made + "\n");
        assertThat(KeyFile.load(made, "k").kind()).isEqualTo(KeyFile.Kind.CLUSTER);

        Path own = dir.resolve("own.secret");
        KeyFile.newClusterSecret().write(own);
        Path unused = dir.resolve("unused.secret");
        assertThat(Cli.run("start-plan", "--secret-file", unused.toString(), "-Dtarn.namenode.address=h:1",
                "-Dtarn.security.secret.file=" + own).out())
                .as("its own key file").isEqualTo("h:1\n-Dtarn.security.authentication=secret\n");
        assertThat(Cli.run("start-plan", "--secret-file", unused.toString(), "-Dtarn.namenode.address=h:1",
                "-Dtarn.security.authentication=none").out()).as("told not to").isEqualTo("h:1\n");
        assertThat(Cli.run("start-plan", "--secret-file", unused.toString(), "-Dtarn.namenode.address=h:1",
                "-Dtarn.security.authentication=secret").out()).as("secret without a file: a new one")
                .isEqualTo("h:1\n-Dtarn.security.secret.file=" + unused + "\n");
        assertThat(Cli.run("start-plan", "-Dtarn.namenode.address=h:1").out()).as("without --secret-file")
                .isEqualTo("h:1\n");
    }
}
