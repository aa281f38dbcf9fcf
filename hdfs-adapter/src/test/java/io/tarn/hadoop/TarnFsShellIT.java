package io.tarn.hadoop;

import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code tarn fs} is Hadoop's FsShell on tarn://: every command run here, in process, against the
 * test cluster, with its output and exit code checked.
 */
class TarnFsShellIT {
    private static String namenode;

    @TempDir
    Path local;

    @BeforeAll
    static void cluster() {
        namenode = TarnTestCluster.get().uri().getAuthority();
    }

    @AfterAll
    static void cleanUp() throws Exception {
        shell("-rm", "-r", "-f", "/shell");
    }

    private static ShellRun shell(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("-D", "tarn.namenode.address=" + namenode));
        all.addAll(List.of(args));
        return ShellRun.of(all.toArray(new String[0]));
    }

    private static ShellRun ok(String... args) throws Exception {
        ShellRun r = shell(args);
        assertThat(r.code()).as("%s: %s", String.join(" ", args), r.err()).isZero();
        return r;
    }

    private Path localFile(String name, String content) throws IOException {
        return Files.writeString(local.resolve(name), content);
    }

    @Test
    void filesGoInComeOutAndAreDescribedAsHdfsDfsWould() throws Exception {
        ok("-mkdir", "-p", "/shell/in");
        ok("-put", localFile("a.txt", "alpha\n").toString(), "/shell/in/a.txt");
        ok("-copyFromLocal", localFile("b.txt", "beta\n").toString(), "/shell/in/");
        ok("-moveFromLocal", localFile("c.txt", "gamma\n").toString(), "/shell/in/c.txt");
        assertThat(local.resolve("c.txt")).doesNotExist();
        ok("-appendToFile", localFile("more.txt", "alpha again\n").toString(), "/shell/in/a.txt");

        assertThat(ok("-cat", "/shell/in/a.txt").out()).isEqualTo("alpha\nalpha again\n");
        assertThat(ok("-head", "/shell/in/b.txt").out()).isEqualTo("beta\n");
        assertThat(ok("-tail", "/shell/in/c.txt").out()).isEqualTo("gamma\n");
        assertThat(ok("-text", "/shell/in/b.txt").out()).isEqualTo("beta\n");

        String ls = ok("-ls", "/shell/in").out();
        assertThat(ls).startsWith("Found 3 items").contains("/shell/in/a.txt", "/shell/in/b.txt", "/shell/in/c.txt");
        String user = System.getProperty("user.name");
        assertThat(ls.lines().skip(1))
                .allMatch(l -> l.startsWith("-rw-r--r--   1 " + user + " "), "mode, 1 replica, owner");
        assertThat(ok("-ls", "-R", "/shell").out()).contains("drwxr-xr-x", "/shell/in/a.txt");
        assertThat(ok("-stat", "%n %b %r %o %F", "/shell/in/a.txt").out())
                .isEqualTo("a.txt 18 1 " + TarnTestCluster.BLOCK_SIZE + " regular file\n");
        assertThat(ok("-du", "-s", "/shell/in").out()).startsWith("29 ");
        assertThat(ok("-count", "/shell/in").out().trim()).matches("1\\s+3\\s+29\\s+/shell/in");
        assertThat(ok("-find", "/shell", "-name", "b.*").out()).isEqualTo("/shell/in/b.txt\n");
        assertThat(ok("-df", "/").out()).contains("Filesystem", "tarn://" + namenode);

        ok("-get", "/shell/in/a.txt", local.resolve("got.txt").toString());
        assertThat(Files.readString(local.resolve("got.txt"))).isEqualTo("alpha\nalpha again\n");
        ok("-copyToLocal", "/shell/in/b.txt", local.resolve("got-b.txt").toString());
        assertThat(Files.readString(local.resolve("got-b.txt"))).isEqualTo("beta\n");
        ok("-getmerge", "/shell/in", local.resolve("merged.txt").toString());
        assertThat(Files.readString(local.resolve("merged.txt"))).isEqualTo("alpha\nalpha again\nbeta\ngamma\n");
    }

    @Test
    void namespaceCommandsChangeWhatTheyShould() throws Exception {
        ok("-mkdir", "-p", "/shell/ns/sub");
        ok("-touchz", "/shell/ns/empty");
        ok("-touch", "/shell/ns/touched");
        assertThat(shell("-test", "-e", "/shell/ns/empty").code()).isZero();
        assertThat(shell("-test", "-z", "/shell/ns/empty").code()).isZero();
        assertThat(shell("-test", "-d", "/shell/ns/sub").code()).isZero();
        assertThat(shell("-test", "-f", "/shell/ns/sub").code()).isEqualTo(1);
        assertThat(shell("-test", "-e", "/shell/ns/nothing").code()).isEqualTo(1);

        ok("-cp", "/shell/ns/empty", "/shell/ns/copy");
        ok("-mv", "/shell/ns/copy", "/shell/ns/sub/moved");
        assertThat(ok("-ls", "-C", "/shell/ns/sub").out()).isEqualTo("/shell/ns/sub/moved\n");

        ok("-chmod", "640", "/shell/ns/empty");
        ok("-chown", "alice:analysts", "/shell/ns/empty");
        ok("-chgrp", "-R", "staff", "/shell/ns/sub");
        assertThat(ok("-stat", "%A %u %g", "/shell/ns/empty").out()).isEqualTo("rw-r----- alice analysts\n");
        assertThat(ok("-stat", "%g", "/shell/ns/sub/moved").out()).isEqualTo("staff\n");

        ok("-rm", "/shell/ns/empty");
        assertThat(shell("-rmdir", "/shell/ns/sub").code()).as("not empty").isEqualTo(1);
        ok("-rm", "-r", "/shell/ns/sub");
        ok("-rmdir", "--ignore-fail-on-non-empty", "/shell/ns");
        assertThat(ok("-ls", "-C", "/shell/ns").out()).isEqualTo("/shell/ns/touched\n");
    }

    @Test
    void unsupportedAndWrongCommandsFailClearlyAndChangeNothing() throws Exception {
        ok("-mkdir", "-p", "/shell/bad");
        ok("-put", localFile("x.txt", "x\n").toString(), "/shell/bad/x");
        ShellRun setrep = shell("-setrep", "3", "/shell/bad/x");
        assertThat(setrep.code()).isNotZero();
        assertThat(setrep.err()).contains("/shell/bad/x", "from 1 to 3", "holds data already");
        assertThat(ok("-stat", "%r", "/shell/bad/x").out()).isEqualTo("1\n");
        ShellRun truncate = shell("-truncate", "1", "/shell/bad/x");
        assertThat(truncate.code()).isNotZero();
        assertThat(truncate.err()).contains("truncate");
        ShellRun missing = shell("-cat", "/shell/bad/nope");
        assertThat(missing.code()).isNotZero();
        assertThat(missing.err()).contains("/shell/bad/nope", "No such file or directory");
        assertThat(ok("-cat", "/shell/bad/x").out()).isEqualTo("x\n");
        assertThat(ok("-checksum", "/shell/bad/x").out()).contains("/shell/bad/x", "NONE");
    }

    @Test
    void setrepSetsADirectorysDefaultForNewFilesAndStatShowsIt() throws Exception {
        ok("-mkdir", "-p", "/shell/rep/sub");
        assertThat(ok("-stat", "%r", "/shell/rep").out()).as("no default of its own").isEqualTo("0\n");
        assertThat(ok("-setrep", "-w", "2", "/shell/rep").out())
                .isEqualTo("Default replication 3 set for new files in: /shell/rep\n"
                        + "Waiting for /shell/rep ... done\n");
        assertThat(ok("-stat", "%r", "/shell/rep").out()).isEqualTo("3\n");
        ShellRun three = shell("-touchz", "/shell/rep/sub/new");
        assertThat(three.code()).as("inherits 3, with two datanodes alive").isNotZero();
        assertThat(three.err()).contains("replication 3 needs 3 live datanodes; 2 are alive");
        assertThat(ok("-setrep", "-R", "1", "/shell/rep").out())
                .isEqualTo("Default replication 1 set for new files in: /shell/rep\n");
        ok("-touchz", "/shell/rep/sub/new");
        assertThat(ok("-stat", "%r", "/shell/rep/sub/new").out()).isEqualTo("1\n");
        assertThat(ok("-setrep", "1", "/shell/rep/sub/new").out())
                .isEqualTo("Replication 1 set: /shell/rep/sub/new\n");
        ShellRun strict = shell("-setrep", "3", "/shell/rep/sub/new");
        assertThat(strict.code()).as("an empty file, two datanodes alive").isNotZero();
        assertThat(strict.err()).contains("replication 3 needs 3 live datanodes; 2 are alive");
        assertThat(ok("-setrep", "-w", "10", "/shell/rep/sub/new", "/shell/rep").out())
                .as("above 3: as many as the cluster can place (the tests log to standard output too)")
                .endsWith("Replication 1 set: /shell/rep/sub/new (asked for 10)\n"
                        + "Default replication 1 set for new files in: /shell/rep (asked for 10)\n"
                        + "Waiting for /shell/rep/sub/new ... done\n"
                        + "Waiting for /shell/rep ... done\n");
        ShellRun bad = shell("-setrep", "0", "/shell/rep");
        assertThat(bad.code()).isNotZero();
        assertThat(bad.err()).contains("replication must be at least 1");
    }

    @Test
    void helpListsEveryCommandUnderTarnsName() throws Exception {
        String help = ok("-help").out();
        assertThat(help).startsWith("Usage: tarn fs [generic options]");
        assertThat(help).contains("-appendToFile", "-cat", "-chmod", "-copyFromLocal", "-du", "-getmerge", "-ls",
                "-mkdir", "-mv", "-rm", "-setrep", "-stat", "-tail", "-test", "-touchz");
    }

    @Test
    void dfOfAClusterWithoutLiveDatanodesShowsNoCapacityAndSaysWhy() throws Exception {
        try (MiniCluster empty = MiniCluster.builder().datanodes(0).start()) {
            String address = "127.0.0.1:" + empty.namenodeAddress().getPort();
            for (String[] df : List.of(new String[] {"-df"}, new String[] {"-df", "-h", "/"})) {
                List<String> args = new ArrayList<>(List.of("-D", "tarn.namenode.address=" + address));
                args.addAll(List.of(df));
                ShellRun r = ok(args.toArray(new String[0]));
                assertThat(r.out()).as(String.join(" ", df)).doesNotContain("NaN")
                        .containsPattern("(?m)^Filesystem +Size +Used +Available +Use%\n"
                                + "tarn://" + Pattern.quote(address) + " +0 +0 +0 +0%\n\\z");
                assertThat(r.err()).isEqualTo("df: tarn://" + address
                        + ": no live datanodes, so no capacity (see 'tarn status')\n");
            }
        }
        assertThat(ok("-df").err()).as("a cluster with datanodes").isEmpty();
        assertThat(ok("-usage", "df").out()).contains("-df [-h] [<path> ...]");
    }

    @Test
    void aBadTarnSettingIsReportedBeforeAnythingRuns() throws Exception {
        ShellRun r = shell("-D", "tarn.client.readahed=1m", "-ls", "/");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("tarn fs: ").contains("readahed", "tarn.client.readahead");
    }
}
