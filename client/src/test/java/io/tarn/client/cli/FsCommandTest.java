package io.tarn.client.cli;

import io.tarn.client.minicluster.MiniCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Random;

import static io.tarn.client.cli.Cli.against;
import static org.assertj.core.api.Assertions.assertThat;

/** tarn fs against a real MiniCluster: each test works under its own directory. */
class FsCommandTest extends WithCluster {

    @TempDir
    Path local;

    private static Cli.Result ok(String... args) {
        Cli.Result r = against(cluster, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.err()).as(r.toString()).isEmpty();
        return r;
    }

    private static byte[] sha256(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    @Test
    void putAndGetRoundTripAFileSpanningSeveralBlocks() throws Exception {
        byte[] data = randomBytes(3 * (1 << 20) + 12345);
        Path src = Files.write(local.resolve("data.bin"), data);
        ok("fs", "-mkdir", "-p", "/rt/a/b");
        ok("fs", "-put", src.toString(), "/rt/a/b");
        assertThat(client.getStatus("/rt/a/b/data.bin").size()).isEqualTo(data.length);

        Path back = local.resolve("back.bin");
        ok("fs", "-get", "/rt/a/b/data.bin", back.toString());
        assertThat(sha256(Files.readAllBytes(back))).isEqualTo(sha256(data));

        Cli.Result cat = ok("fs", "-cat", "/rt/a/b/data.bin");
        assertThat(sha256(cat.rawOut())).isEqualTo(sha256(data));
    }

    @Test
    void putRefusesToOverwriteWithoutForce() throws Exception {
        Path src = Files.write(local.resolve("x"), randomBytes(100));
        ok("fs", "-mkdir", "-p", "/ow");
        ok("fs", "-put", src.toString(), "/ow/x");
        Cli.Result again = against(cluster, "fs", "-put", src.toString(), "/ow/x");
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.err()).contains("tarn fs: -put:").contains("File exists");
        Files.write(src, randomBytes(200));
        ok("fs", "-put", "-f", src.toString(), "/ow/x");
        assertThat(client.getStatus("/ow/x").size()).isEqualTo(200);
    }

    @Test
    void getRefusesToOverwriteALocalFileWithoutForce() throws Exception {
        ok("fs", "-mkdir", "-p", "/gx");
        ok("fs", "-touchz", "/gx/empty");
        Path target = Files.writeString(local.resolve("existing"), "keep me");
        Cli.Result r = against(cluster, "fs", "-get", "/gx/empty", target.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("File exists");
        assertThat(Files.readString(target)).isEqualTo("keep me");
    }

    @Test
    void lsShowsTypeSizeTimeAndPath() throws Exception {
        ok("fs", "-mkdir", "-p", "/ls/sub");
        Path src = Files.write(local.resolve("f"), randomBytes(4321));
        ok("fs", "-put", src.toString(), "/ls/f");
        Cli.Result r = ok("fs", "-ls", "/ls");
        assertThat(r.out()).startsWith("Found 2 items");
        assertThat(r.out()).containsPattern("(?m)^- 4321 \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d /ls/f$");
        assertThat(r.out()).containsPattern("(?m)^d +0 \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d /ls/sub$");

        ok("fs", "-touchz", "/ls/sub/deep");
        Cli.Result recursive = ok("fs", "-ls", "-R", "/ls");
        assertThat(recursive.out()).doesNotContain("Found").contains("/ls/sub/deep");
        assertThat(ok("fs", "-ls", "-h", "/ls/f").out()).contains("4.2 K");
    }

    @Test
    void mkdirWithoutParentsNeedsTheParent() {
        Cli.Result r = against(cluster, "fs", "-mkdir", "/nomk/a/b");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("No such file or directory");
        ok("fs", "-mkdir", "/nomk");
        ok("fs", "-mkdir", "/nomk/a");
        Cli.Result exists = against(cluster, "fs", "-mkdir", "/nomk/a");
        assertThat(exists.err()).contains("File exists");
        ok("fs", "-mkdir", "-p", "/nomk/a");
    }

    @Test
    void mvRenamesAndMovesIntoDirectories() throws Exception {
        ok("fs", "-mkdir", "-p", "/mv/dir");
        ok("fs", "-touchz", "/mv/one");
        ok("fs", "-mv", "/mv/one", "/mv/two");
        assertThat(client.exists("/mv/one")).isFalse();
        assertThat(client.exists("/mv/two")).isTrue();
        ok("fs", "-mv", "/mv/two", "/mv/dir");
        assertThat(client.exists("/mv/dir/two")).isTrue();
    }

    @Test
    void rmNeedsRecursiveForDirectories() throws Exception {
        ok("fs", "-mkdir", "-p", "/rm/d/e");
        ok("fs", "-touchz", "/rm/d/e/f");
        Cli.Result r = against(cluster, "fs", "-rm", "/rm/d");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("Is a directory");
        ok("fs", "-rm", "-r", "/rm/d");
        assertThat(client.exists("/rm/d")).isFalse();
        ok("fs", "-rm", "-f", "/rm/never-was");
    }

    @Test
    void statPrintsTheRequestedFields() throws Exception {
        Path src = Files.write(local.resolve("s"), randomBytes(777));
        ok("fs", "-mkdir", "-p", "/st");
        ok("fs", "-put", src.toString(), "/st/s");
        Cli.Result r = ok("fs", "-stat", "%n|%b|%F|%o|%r|%y", "/st/s", "/st");
        String[] lines = r.out().split("\n");
        assertThat(lines[0]).matches("s\\|777\\|regular file\\|1048576\\|1\\|\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
        assertThat(lines[1]).startsWith("st|0|directory|");
        assertThat(ok("fs", "-stat", "/st/s").out().trim()).matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
    }

    @Test
    void duSumsSubtrees() throws Exception {
        ok("fs", "-mkdir", "-p", "/du/a/b");
        Files.write(local.resolve("x"), randomBytes(1000));
        Files.write(local.resolve("y"), randomBytes(2500));
        ok("fs", "-put", local.resolve("x").toString(), "/du/a/x");
        ok("fs", "-put", local.resolve("y").toString(), "/du/a/b/y");
        assertThat(ok("fs", "-du", "-s", "/du").out()).matches("3500 +/du\\s*");
        Cli.Result perEntry = ok("fs", "-du", "/du/a");
        assertThat(perEntry.out()).containsPattern("(?m)^2500 +/du/a/b$").containsPattern("(?m)^1000 +/du/a/x$");
        assertThat(ok("fs", "-du", "-s", "-h", "/du").out()).startsWith("3.4 K");
    }

    @Test
    void touchzAndTest() {
        ok("fs", "-mkdir", "-p", "/tz");
        ok("fs", "-touchz", "/tz/e");
        assertThat(against(cluster, "fs", "-test", "-e", "/tz/e").exit()).isZero();
        assertThat(against(cluster, "fs", "-test", "-f", "/tz/e").exit()).isZero();
        assertThat(against(cluster, "fs", "-test", "-z", "/tz/e").exit()).isZero();
        assertThat(against(cluster, "fs", "-test", "-d", "/tz/e").exit()).isEqualTo(1);
        assertThat(against(cluster, "fs", "-test", "-d", "/tz").exit()).isZero();
        Cli.Result missing = against(cluster, "fs", "-test", "-e", "/tz/none");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).isEmpty();
    }

    @Test
    void aMissingPathIsOneCleanLineAndExitCodeOne() {
        for (String[] cmd : new String[][] {{"-ls", "/missing"}, {"-cat", "/missing"}, {"-stat", "/missing"},
                {"-rm", "/missing"}, {"-du", "/missing"}, {"-mv", "/missing", "/elsewhere"}}) {
            String[] args = new String[cmd.length + 1];
            args[0] = "fs";
            System.arraycopy(cmd, 0, args, 1, cmd.length);
            Cli.Result r = against(cluster, args);
            assertThat(r.exit()).as(r.toString()).isEqualTo(1);
            assertThat(r.err()).as(r.toString()).startsWith("tarn fs: " + cmd[0] + ": /missing")
                    .contains("No such file or directory").doesNotContain("Exception").doesNotContain("\tat ");
            assertThat(r.err().lines().count()).isEqualTo(1);
        }
    }

    @Test
    void debugAddsTheStackTrace() {
        Cli.Result r = Cli.run("fs", "-ls", "/", "--debug", "-Dtarn.namenode.address=127.0.0.1:1",
                "-Dtarn.rpc.connect.timeout=500", "-Dtarn.transport=tcp");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).startsWith("tarn fs: ").contains("\tat ");
    }

    @Test
    void usageErrorsExitWithTwo() {
        assertThat(against(cluster, "fs", "-ls", "--no-such-option").exit()).isEqualTo(2);
        assertThat(against(cluster, "fs", "-nosuchcommand").exit()).isEqualTo(2);
        assertThat(against(cluster, "fs", "-mv", "/only-one").exit()).isEqualTo(2);
    }
}
