package io.tarn.dist;

import io.tarn.common.fs.Partitions;
import io.tarn.dist.LocalCluster.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The distribution as a user gets it: the tarball unpacked into an empty directory outside the
 * checkout, and its bin/tarn driving start/status/fs/iobench/stop there, with its own run
 * directory, configuration directory, loopback ports and memory directory, so that it neither
 * disturbs nor depends on a cluster a developer runs on the default ports. Runs after package
 * (failsafe), when the tarball exists.
 */
class DistributionIT {
    /** System property: the tarball the build made (set by failsafe). */
    static final String TARBALL_PROPERTY = "tarn.dist.tarball";

    /** The unpacked distribution, shared by the tests of this class. */
    private static Path home;

    @TempDir
    static Path unpacked;
    @TempDir
    Path tmp;
    private Path conf;
    private Path run;

    @BeforeAll
    static void unpack() throws Exception {
        Path tarball = Path.of(System.getProperty(TARBALL_PROPERTY, "")).toAbsolutePath();
        assertThat(tarball).as("the tarball the build made (%s)", TARBALL_PROPERTY).isRegularFile();
        Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", unpacked.toString())
                .redirectErrorStream(true).start();
        String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(tar.waitFor()).as(output).isZero();
        String name = tarball.getFileName().toString().replace(".tar.gz", "");
        home = unpacked.resolve(name);
        assertThat(home.resolve("bin").resolve("tarn")).isExecutable();
        assertThat(home.resolve("LICENSE")).isRegularFile();
        assertThat(home.resolve("conf").resolve("tarn-site.conf")).isRegularFile();
        assertThat(home.resolve("docs").resolve("cli.md")).isRegularFile();
        assertThat(home.resolve("lib").resolve("hadoop")).isDirectory();
    }

    @Test
    void theTarballHoldsOneJarOfEachModuleAndNoBuildTree() throws Exception {
        List<String> jars;
        try (var list = Files.list(home.resolve("lib"))) {
            jars = list.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".jar")).sorted().toList();
        }
        assertThat(jars).anyMatch(n -> n.startsWith("tarn-tools-")).anyMatch(n -> n.startsWith("tarn-client-"))
                .anyMatch(n -> n.startsWith("tarn-namenode-")).anyMatch(n -> n.startsWith("tarn-datanode-"))
                .anyMatch(n -> n.startsWith("tarn-storage-dram-")).anyMatch(n -> n.startsWith("picocli-"))
                .noneMatch(n -> n.startsWith("tarn-hdfs-adapter-")).noneMatch(n -> n.startsWith("hadoop-"))
                .noneMatch(n -> n.startsWith("tarn-spark-shuffle-"));
        try (var list = Files.list(home.resolve("lib").resolve("hadoop"))) {
            assertThat(list.map(p -> p.getFileName().toString()).toList())
                    .anyMatch(n -> n.startsWith("tarn-hdfs-adapter-"))
                    .anyMatch(n -> n.startsWith("hadoop-client-api-"));
        }
        try (var list = Files.list(home.resolve("lib").resolve("spark"))) {
            // The shuffle plugin alone: Spark brings Spark, and the adapter in lib/hadoop/ brings Tarn.
            assertThat(list.map(p -> p.getFileName().toString()).toList()).singleElement()
                    .satisfies(n -> assertThat(n).startsWith("tarn-spark-shuffle-").endsWith(".jar"));
        }
        assertThat(home.resolve("client")).doesNotExist();
        assertThat(home.resolve("pom.xml")).doesNotExist();
        Outcome version = LocalCluster.run(home, home.resolve("conf"), tmp.resolve("run"), "--version");
        assertThat(version.exit()).as(version.output()).isZero();
        assertThat(version.output()).contains("tarn ");
    }

    @BeforeEach
    void configure() throws IOException {
        // Spaces in the directories bin/tarn is given, as a user's may have.
        conf = Files.createDirectories(tmp.resolve("conf dir"));
        run = tmp.resolve("run dir");
        writeConf(freePorts());
        Files.copy(home.resolve("conf").resolve("logback.xml"), conf.resolve("logback.xml"));
    }

    /** 64 MiB datanodes in 16 MiB regions: enough for up to four namenodes (region r serves namenode r mod N). */
    private void writeConf(int namenodePort) throws IOException {
        Files.writeString(conf.resolve("tarn-site.conf"), String.join("\n",
                "tarn.namenode.address 127.0.0.1:" + namenodePort,
                "tarn.transport tcp",
                "tarn.rpc.io.threads 1",
                "tarn.datanode.bind 127.0.0.1:0",
                "tarn.datanode.hostname 127.0.0.1",
                "tarn.datanode.heartbeat.interval 200",
                "tarn.datanode.dram.capacity 64m",
                "tarn.datanode.dram.region.size 16m",
                "tarn.datanode.dram.path " + tmp.resolve("dram"),
                "tarn.namenode.journal.dir " + tmp.resolve("journal"), ""));
    }

    @AfterEach
    void stopWhateverIsLeft() throws Exception {
        if (run != null && Files.isDirectory(run)) {
            tarn("stop");
        }
    }

    /** A free port whose successor is free too: tarn start -n 2 puts namenode i on the configured port + i. */
    private static int freePorts() throws IOException {
        return freePorts(2);
    }

    /** A free port whose {@code n - 1} successors are free too. */
    private static int freePorts(int n) throws IOException {
        while (true) {
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            if (port + n - 1 <= 65535 && free(port + 1, n - 1)) {
                return port;
            }
        }
    }

    private static boolean free(int from, int count) {
        for (int p = from; p < from + count; p++) {
            try (ServerSocket taken = new ServerSocket(p)) {
                // free
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    private Outcome tarn(String... args) throws Exception {
        return LocalCluster.run(home, conf, run, args);
    }

    private long pid(String daemon) throws IOException {
        return Long.parseLong(Files.readString(run.resolve(daemon + ".pid")).trim());
    }

    private List<ProcessHandle> processes(String... daemons) throws IOException {
        List<ProcessHandle> out = new ArrayList<>();
        for (String d : daemons) {
            out.add(ProcessHandle.of(pid(d)).orElseThrow());
        }
        return out;
    }

    private static void assertExited(List<ProcessHandle> daemons) throws Exception {
        for (ProcessHandle d : daemons) {
            // The script saw it exit; the reaper (init here) may take a moment to collect the zombie.
            assertThat(d.onExit().get(10, TimeUnit.SECONDS).isAlive()).as("pid %d", d.pid()).isFalse();
        }
    }

    @Test
    void startStatusUseAndStopALocalClusterOfTwoNamenodes() throws Exception {
        Outcome start = tarn("start", "-n", "2", "-d", "1");
        assertThat(start.exit()).as(start.output()).isZero();
        assertThat(start.output()).contains("started 2 namenode(s)").contains("cluster is up")
                .contains("namenodes: 2 (2 up)").contains("datanodes: 1 (1 alive), as namenode 0 sees them");
        List<ProcessHandle> daemons = processes("namenode-0", "namenode-1", "datanode-0");
        String address = Files.readString(conf.resolve("tarn-site.conf")).lines()
                .filter(l -> l.startsWith("tarn.namenode.address ")).findFirst().orElseThrow().split(" ")[1];
        int port = Integer.parseInt(address.substring(address.indexOf(':') + 1));
        // Unless configured otherwise, the cluster authenticates with a new secret only its owner can read.
        Path secret = run.resolve("cluster.secret");
        assertThat(Files.readString(run.resolve("cluster.args")))
                .isEqualTo("-Dtarn.security.authentication=secret\n-Dtarn.security.secret.file=" + secret + "\n"
                        + "-Dtarn.namenode.address=127.0.0.1:" + port + ",127.0.0.1:" + (port + 1) + "\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)))
                .isEqualTo("rw-------");

        Outcome again = tarn("start", "-d", "1");
        assertThat(again.exit()).isEqualTo(1);
        assertThat(again.output()).contains("already running");
        Outcome missing = tarn("start");
        assertThat(missing.exit()).as(missing.output()).isZero();
        assertThat(missing.output()).contains("every daemon of the cluster from").contains("is running");

        Outcome status = tarn("status", "--interval", "0.3");
        assertThat(status.exit()).as(status.output()).isZero();
        assertThat(status.output()).containsPattern("namenode-0 +pid " + pid("namenode-0") + " +running")
                .containsPattern("namenode-1 +pid \\d+ +running").containsPattern("datanode-0 +pid \\d+ +running")
                .contains("namenodes: 2 (2 up)").containsPattern("(?m)^  0 +127\\.0\\.0\\.1:" + port + " ")
                .containsPattern("(?m)^  1 +127\\.0\\.0\\.1:" + (port + 1) + " ").containsPattern("(?m)^  total ")
                .contains("datanodes: 1 (1 alive)").contains("32 M, 32 M");

        Outcome mkdir = tarn("fs", "-mkdir", "-p", "/it/dir");
        assertThat(mkdir.exit()).as(mkdir.output()).isZero();
        // A name whose temporary copy (name._COPYING_, renamed when done) belongs to the other namenode,
        // so that -put moves the file between namenodes.
        String name = "hello.txt";
        for (int i = 0; Partitions.ofName(name, 2)
                == Partitions.ofName(name + "._COPYING_", 2); i++) {
            name = "hello" + i + ".txt";
        }
        Path local = Files.writeString(tmp.resolve(name), "hello, tarn\n");
        Outcome put = tarn("fs", "-put", local.toString(), "/it/dir/");
        assertThat(put.exit()).as(put.output()).isZero();
        // With --config, that file decides instead of the cluster's options: the key is named explicitly.
        Outcome cat = tarn("fs", "--config", conf.resolve("tarn-site.conf").toString(), "-D",
                "tarn.security.authentication=secret", "-D", "tarn.security.secret.file=" + secret, "-cat",
                "/it/dir/" + name);
        assertThat(cat.output()).isEqualTo("hello, tarn\n");
        Outcome badKey = tarn("fs", "-D", "tarn.client.readahed=1m", "-ls", "/");
        assertThat(badKey.exit()).isEqualTo(2);
        assertThat(badKey.output()).contains("did you mean 'tarn.client.readahead'");
        Outcome bench = tarn("iobench", "-t", "write", "-f", "/it/file", "-s", "64k", "-k", "16", "--json");
        assertThat(bench.exit()).as(bench.output()).isZero();
        assertThat(bench.output()).contains("\"type\":\"write\"").contains("\"bytes\":1048576");
        Outcome ls = tarn("fs", "-ls", "-R", "/it");
        assertThat(ls.exit()).as(ls.output()).isZero();
        assertThat(ls.output()).contains("/it/dir/" + name).containsPattern(" 1048576 \\S+ \\S+ /it/file");
        // Another Hadoop user is checked as that user: not the owner of /, so it removes nothing.
        Outcome denied = tarnWith(Map.of("HADOOP_USER_NAME", "nobody"), "fs", "-rm", "-r", "-skipTrash", "/it");
        assertThat(denied.exit()).as(denied.output()).isEqualTo(1);
        assertThat(denied.output()).contains("Permission denied: user=nobody, access=WRITE_EXECUTE, inode=\"/\"");
        assertThat(tarn("fs", "-test", "-e", "/it/file").exit()).isZero();

        Outcome stop = tarn("stop");
        assertThat(stop.exit()).as(stop.output()).isZero();
        assertThat(stop.output()).contains("stopped datanode-0").contains("stopped namenode-0")
                .contains("stopped namenode-1");
        assertExited(daemons);
        assertThat(Files.readString(run.resolve("logs").resolve("namenode-1.log"))).contains("stopping namenode");

        Outcome after = tarn("status");
        assertThat(after.exit()).isEqualTo(1);
        assertThat(after.output()).contains("none started");
    }

    /**
     * tarn start -r 3: one partition served by a replicated group of three namenodes; kill -9 of the
     * leader, and the cluster serves on through the others; tarn start brings the killed member back;
     * with member 0 down (the one tarn fs's URI names), tarn fs follows the others all the same.
     */
    @Test
    void aReplicatedGroupOfThreeNamenodesServesThroughItsLeadersDeath() throws Exception {
        int port = freePorts(3);
        writeConf(port);
        Outcome start = tarn("start", "-r", "3", "-d", "1");
        assertThat(start.exit()).as(start.output()).isZero();
        assertThat(start.output()).contains("started 3 namenode(s) at 127.0.0.1:" + port + "|")
                .contains("namenodes: 1 (1 up)").contains("datanodes: 1 (1 alive)");
        List<ProcessHandle> daemons = processes("namenode-0", "namenode-1", "namenode-2", "datanode-0");
        Outcome mkdir = tarn("fs", "-mkdir", "-p", "/group/before");
        assertThat(mkdir.exit()).as(mkdir.output()).isZero();

        String leader = null;
        for (int m = 0; m < 3 && leader == null; m++) {
            if (Files.readString(run.resolve("logs").resolve("namenode-" + m + ".log")).contains("leads in term")) {
                leader = "namenode-" + m;
            }
        }
        assertThat(leader).as("a member says it leads").isNotNull();
        ProcessHandle.of(pid(leader)).orElseThrow().destroyForcibly();
        Outcome after = tarn("fs", "-mkdir", "/group/after");
        assertThat(after.exit()).as(after.output()).isZero();
        Outcome ls = tarn("fs", "-ls", "/group");
        assertThat(ls.output()).contains("/group/before").contains("/group/after");

        Outcome missing = tarn("start");
        assertThat(missing.exit()).as(missing.output()).isZero();
        assertThat(missing.output()).contains(leader);
        // tarn fs names member 0 in its URI: with it down too, the client follows the others.
        if (!leader.equals("namenode-0")) {
            ProcessHandle.of(pid("namenode-0")).orElseThrow().destroyForcibly();
            Outcome third = tarn("fs", "-mkdir", "/group/third");
            assertThat(third.exit()).as(third.output()).isZero();
            assertThat(tarn("fs", "-ls", "/group").output()).contains("/group/third");
            assertThat(tarn("start").exit()).isZero();
        }
        Outcome stop = tarn("stop");
        assertThat(stop.output()).contains("stopped namenode-0").contains("stopped namenode-2");
        assertExited(daemons);
    }

    /**
     * tarn start -n 2 -r 3: two partitions, each served by a replicated group of three namenode
     * processes (namenode-0..2 and namenode-3..5); files moved between the partitions by -put; kill
     * -9 of both leaders at once, and the cluster serves on: a directory renamed (partition 0's
     * coordinator reaching partition 1 through its new leader), every file read back; tarn status
     * names each group's leader and the members it lost; tarn start brings them back.
     */
    @Test
    void twoPartitionsOfReplicatedGroupsServeThroughBothLeadersDeaths() throws Exception {
        int port = freePorts(6);
        writeConf(port);
        Outcome start = tarn("start", "-n", "2", "-r", "3", "-d", "1");
        assertThat(start.exit()).as(start.output()).isZero();
        assertThat(start.output()).contains("started 6 namenode(s) at 127.0.0.1:" + port + "|")
                .contains(",127.0.0.1:" + (port + 3) + "|").contains("namenodes: 2 (2 up)")
                .contains("group of partition 1: member ");
        List<ProcessHandle> daemons = processes("namenode-0", "namenode-1", "namenode-2", "namenode-3",
                "namenode-4", "namenode-5", "datanode-0");
        // Names whose temporary copies (name._COPYING_) belong to the other partition: -put moves them.
        List<String> names = new ArrayList<>();
        for (int i = 0; names.size() < 3; i++) {
            if (Partitions.ofName("f" + i, 2) != Partitions.ofName("f" + i + "._COPYING_", 2)) {
                names.add("f" + i);
            }
        }
        Outcome mkdir = tarn("fs", "-mkdir", "-p", "/pg/in");
        assertThat(mkdir.exit()).as(mkdir.output()).isZero();
        for (String name : names) {
            Path local = Files.writeString(tmp.resolve(name), "file " + name + "\n");
            Outcome put = tarn("fs", "-put", local.toString(), "/pg/in/");
            assertThat(put.exit()).as(put.output()).isZero();
        }

        List<String> leaders = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            for (int m = 0; m < 3; m++) {
                String daemon = "namenode-" + (3 * p + m);
                if (Files.readString(run.resolve("logs").resolve(daemon + ".log")).contains("leads in term")) {
                    leaders.add(daemon);
                    break;
                }
            }
        }
        assertThat(leaders).as("a member of each partition says it leads").hasSize(2);
        for (String leader : leaders) {
            ProcessHandle.of(pid(leader)).orElseThrow().destroyForcibly();
        }
        Outcome mv = tarn("fs", "-mv", "/pg/in", "/pg/out");
        assertThat(mv.exit()).as(mv.output()).isZero();
        for (String name : names) {
            Outcome cat = tarn("fs", "-cat", "/pg/out/" + name);
            assertThat(cat.output()).as(name).isEqualTo("file " + name + "\n");
        }
        Outcome status = tarn("status", "--interval", "0");
        assertThat(status.output()).contains("group of partition 0: member ").contains("group of partition 1: member ")
                .contains("NOT IN SYNC").contains("WARNING: the namenode group of partition");

        Outcome missing = tarn("start");
        assertThat(missing.exit()).as(missing.output()).isZero();
        assertThat(missing.output()).contains(leaders.get(0)).contains(leaders.get(1));
        Outcome stop = tarn("stop");
        assertThat(stop.output()).contains("stopped namenode-0").contains("stopped namenode-5");
        assertExited(daemons);
    }

    @Test
    void oneNamenodeWithTwoDatanodes() throws Exception {
        Outcome start = tarn("start", "-d", "2");
        assertThat(start.exit()).as(start.output()).isZero();
        assertThat(start.output()).contains("started 1 namenode(s)").contains("namenodes: 1 (1 up)")
                .contains("datanodes: 2 (2 alive)\n").doesNotContain("SHARE");
        List<ProcessHandle> daemons = processes("namenode-0", "datanode-0", "datanode-1");

        Outcome status = tarn("status", "--interval", "0");
        assertThat(status.exit()).as(status.output()).isZero();
        assertThat(status.output()).containsPattern("namenode-0 +pid \\d+ +running")
                .containsPattern("datanode-1 +pid \\d+ +running").doesNotContain("total");
        Outcome bench = tarn("iobench", "-t", "write", "-f", "/one/file", "-s", "64k", "-k", "16");
        assertThat(bench.exit()).as(bench.output()).isZero();

        Outcome stop = tarn("stop");
        assertThat(stop.output()).contains("stopped namenode-0").contains("stopped datanode-1");
        assertExited(daemons);
    }

    /**
     * A region file of a running datanode cut short (what a tmpfs clean-up does): the datanode keeps
     * running, takes the region out of service and tells the namenode; fsck lists the file it held,
     * a read of it fails saying why, and new files go elsewhere.
     */
    @Test
    void aRegionFileCutShortUnderARunningDatanodeIsReportedAndTheRestServed() throws Exception {
        Outcome start = tarn("start");
        assertThat(start.exit()).as(start.output()).isZero();
        List<ProcessHandle> daemons = processes("namenode-0", "datanode-0");
        Path local = tmp.resolve("three-mib");
        Files.write(local, new byte[3 << 20]);
        Outcome mkdir = tarn("fs", "-mkdir", "-p", "/data");
        assertThat(mkdir.exit()).as(mkdir.output()).isZero();
        Outcome put = tarn("fs", "-put", local.toString(), "/data/doomed");
        assertThat(put.exit()).as(put.output()).isZero();
        Path region;
        try (Stream<Path> dirs = Files.list(tmp.resolve("dram").resolve("dn0"))) {
            region = dirs.filter(Files::isDirectory).findFirst().orElseThrow().resolve("region-00000");
        }
        try (FileChannel ch = FileChannel.open(region, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }

        Outcome fsck = tarn("fsck");
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
             !fsck.output().contains("/data/doomed") && System.nanoTime() < deadline; Thread.sleep(200)) {
            fsck = tarn("fsck");
        }
        assertThat(fsck.output()).as(fsck.output()).contains("/data/doomed");
        Outcome cat = tarn("fs", "-cat", "/data/doomed");
        assertThat(cat.exit()).isNotZero();
        assertThat(cat.output()).contains("out of service").contains("was cut to 0 bytes");
        Outcome other = tarn("fs", "-put", local.toString(), "/data/other");
        assertThat(other.exit()).as(other.output()).isZero();
        Outcome copy = tarn("fs", "-get", "/data/other", tmp.resolve("back").toString());
        assertThat(copy.exit()).as(copy.output()).isZero();
        assertThat(Files.size(tmp.resolve("back"))).isEqualTo(3 << 20);
        assertThat(daemons).as("both daemons live on").allMatch(ProcessHandle::isAlive);
        assertThat(Files.readString(run.resolve("logs").resolve("datanode-0.log")))
                .contains("Region 0 is out of service");
    }

    @Test
    void clientCommandsStayQuietWithoutAnyLogbackXml() throws Exception {
        Outcome start = tarn("start");
        assertThat(start.exit()).as(start.output()).isZero();
        // A configuration directory without logback.xml: bin/tarn falls back to the distribution's conf/.
        Files.delete(conf.resolve("logback.xml"));
        Outcome ls = tarn("fs", "-ls", "/");
        assertThat(ls.exit()).as(ls.output()).isZero();
        assertThat(ls.output()).isEmpty();
        // Neither has one: a distribution whose conf/logback.xml was removed (its own bin/ and conf/, the same
        // lib/) runs on the copy of conf/logback.xml in the tools jar.
        Path bare = Files.createDirectories(tmp.resolve("bare distribution"));
        for (String dir : List.of("bin", "conf")) {
            Files.createDirectories(bare.resolve(dir));
            try (var files = Files.list(home.resolve(dir))) {
                for (Path f : files.toList()) {
                    Files.copy(f, bare.resolve(dir).resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
        Files.delete(bare.resolve("conf").resolve("logback.xml"));
        Files.createSymbolicLink(bare.resolve("lib"), home.resolve("lib"));
        Outcome mkdir = LocalCluster.run(bare, conf, run, "fs", "-mkdir", "/quiet");
        assertThat(mkdir.exit()).as(mkdir.output()).isZero();
        assertThat(mkdir.output()).isEmpty();
        Outcome bareLs = LocalCluster.run(bare, conf, run, "fs", "-ls", "/");
        assertThat(bareLs.exit()).as(bareLs.output()).isZero();
        assertThat(bareLs.output()).doesNotContain("DEBUG").doesNotContain("\tat ").startsWith("Found 1 items\n")
                .contains(" /quiet\n");
        Outcome bench = LocalCluster.run(bare, conf, run, "iobench", "-t", "getFile", "-k", "10");
        assertThat(bench.exit()).as(bench.output()).isZero();
        assertThat(bench.output()).doesNotContain("DEBUG").startsWith("getFile: 10 ops in ");
        Outcome status = LocalCluster.run(bare, conf, run, "status", "--interval", "0");
        assertThat(status.exit()).as(status.output()).isZero();
        assertThat(status.output()).doesNotContain("DEBUG").contains("namenodes: 1 (1 up)");
    }

    @Test
    void aConfigFileThatCannotBeReadIsTheSameUsageErrorForEveryCommand() throws Exception {
        Path missing = tmp.resolve("nonexistent.conf");
        for (String[] command : List.of(new String[] {"fs", "--config", missing.toString(), "-ls", "/"},
                new String[] {"fs", "--config=" + missing, "-ls", "/"},
                new String[] {"conf", "--config", missing.toString()},
                new String[] {"iobench", "-t", "getFile", "--config", missing.toString()})) {
            Outcome r = tarn(command);
            assertThat(r.exit()).as(r.output()).isEqualTo(2);
            assertThat(r.output()).as(String.join(" ", command)).isEqualTo("tarn " + command[0]
                    + ": cannot read configuration file " + missing + ": no such file\n");
        }
        Outcome noFile = tarn("fs", "--config");
        assertThat(noFile.exit()).isEqualTo(2);
        assertThat(noFile.output()).isEqualTo("tarn fs: --config needs a file\n");
    }

    @Test
    void startRefusesTooFewRegionsBeforeStartingAnything() throws Exception {
        Outcome start = tarn("start", "-n", "5");
        assertThat(start.exit()).as(start.output()).isEqualTo(2);
        assertThat(start.output()).startsWith("tarn start: 5 namenodes need at least 5 DRAM regions per datanode")
                .contains("tarn.datanode.dram.capacity = 64m").contains("tarn.datanode.dram.region.size = 16m");
        assertThat(tarn("status", "-q").output()).contains("none started");
    }

    @Test
    void startAndStatusRefuseCountsAndSecondsOutOfRangeBeforeStartingAnything() throws Exception {
        String[][] cases = {
            {"start -d 65", "tarn start: -d expects a number of datanodes from 1 to 64, got '65'\n"},
            {"start -d 99999999999", "tarn start: -d expects a number of datanodes from 1 to 64, got '99999999999'\n"},
            {"start -d 08", "tarn start: -d expects a number of datanodes from 1 to 64, got '08'\n"},
            {"start -n 257", "tarn start: -n expects a number of namenodes from 1 to 256, got '257'\n"},
            {"start -n 0", "tarn start: -n expects a number of namenodes from 1 to 256, got '0'\n"},
        };
        for (String[] c : cases) {
            Outcome r = tarn(c[0].split(" "));
            assertThat(r.exit()).as(c[0] + ": " + r.output()).isEqualTo(2);
            assertThat(r.output()).as(c[0]).isEqualTo(c[1]);
        }
        Outcome timeout = tarnWith(Map.of("TARN_START_TIMEOUT", "1e3"), "start");
        assertThat(timeout.exit()).as(timeout.output()).isEqualTo(2);
        assertThat(timeout.output()).isEqualTo(
                "tarn start: TARN_START_TIMEOUT must be a whole number of seconds from 1 to 86400, got '1e3'\n");
        Outcome stop = tarnWith(Map.of("TARN_STOP_TIMEOUT", "x"), "stop");
        assertThat(stop.exit()).as(stop.output()).isEqualTo(2);
        assertThat(stop.output()).isEqualTo(
                "tarn stop: TARN_STOP_TIMEOUT must be a whole number of seconds from 0 to 86400, got 'x'\n");
        Outcome interval = tarn("status", "--interval", "1e9");
        assertThat(interval.exit()).as(interval.output()).isEqualTo(2);
        assertThat(interval.output()).contains("--interval must be between 0 and 3600 seconds, got 1000000000\n");
        assertThat(tarn("status", "-q").output()).contains("none started");
    }

    /** bin/tarn with the test's directories and the given environment variables. */
    private Outcome tarnWith(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", home.resolve("bin").resolve("tarn").toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("TARN_CONF_DIR", conf.toString());
        pb.environment().put("TARN_RUN_DIR", run.toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Outcome(p.exitValue(), output);
    }

    @Test
    void startFailsClearlyWhenTheNamenodeCannotBind() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            writeConf(taken.getLocalPort());
            long started = System.nanoTime();
            Outcome start = tarn("start");
            assertThat(start.exit()).as(start.output()).isEqualTo(1);
            assertThat(start.output()).contains("did not come up").contains("namenode-0 (pid")
                    .contains("exited").contains("last lines of");
            assertThat(System.nanoTime() - started).isLessThan(40_000_000_000L);
        }
        assertThat(tarn("status").output()).contains("none started");
    }
}
