package io.tarn.tools;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What bin/tarn start checks and plans before it starts anything, and tarn namenode --partition. */
class StartPlanCommandTest {
    private static Cli.Result plan(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "start-plan";
        System.arraycopy(args, 0, all, 1, args.length);
        return Cli.run(all);
    }

    @Test
    void numbersThePortsFromTheSingleConfiguredAddress() {
        Cli.Result r = plan("--namenodes", "3", "-Dtarn.namenode.address=localhost:9060");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.out()).isEqualTo("localhost:9060,localhost:9061,localhost:9062\n");
        assertThat(plan("-Dtarn.namenode.address=localhost:9060").out()).isEqualTo("localhost:9060\n");
    }

    @Test
    void aConfiguredListIsUsedAsItIsAndSetsTheDefaultCount() {
        String list = "-Dtarn.namenode.address=127.0.0.1:7000,127.0.0.1:7100";
        assertThat(plan(list).out()).isEqualTo("127.0.0.1:7000,127.0.0.1:7100\n");
        assertThat(plan("--namenodes", "2", list).out()).isEqualTo("127.0.0.1:7000,127.0.0.1:7100\n");
        Cli.Result r = plan("--namenodes", "3", list);
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("tarn start: tarn.namenode.address lists 2 namenodes but -n 3");
    }

    @Test
    void aReplicatedGroupNumbersItsMembersPortsOrTakesTheListedOnes() {
        assertThat(plan("--replicas", "3", "-Dtarn.namenode.address=localhost:9060").out())
                .isEqualTo("localhost:9060|localhost:9061|localhost:9062\n");
        String listed = "-Dtarn.namenode.address=h1:9060|h2:9060|h3:9060";
        assertThat(plan(listed).out()).as("as many replicas as listed").isEqualTo("h1:9060|h2:9060|h3:9060\n");
        assertThat(plan("--replicas", "3", listed).out()).isEqualTo("h1:9060|h2:9060|h3:9060\n");
        assertThat(plan("--replicas", "2").err()).contains("-r must be 1, 3 or 5 namenodes per partition, got 2");
        assertThat(plan("--replicas", "3", "--namenodes", "2", "-Dtarn.namenode.address=localhost:9060").out())
                .as("member m of partition p at the port + 3p + m")
                .isEqualTo("localhost:9060|localhost:9061|localhost:9062,"
                        + "localhost:9063|localhost:9064|localhost:9065\n");
        String two = "-Dtarn.namenode.address=h1:9060|h2:9060|h3:9060,h1:9061|h2:9061|h3:9061";
        assertThat(plan(two).out()).as("as many partitions and replicas as listed")
                .isEqualTo("h1:9060|h2:9060|h3:9060,h1:9061|h2:9061|h3:9061\n");
        assertThat(plan("--replicas", "3", "--namenodes", "3", two).err())
                .contains("does not list 3 partition(s) of 3 members, which -n 3 -r 3 asks for");
        assertThat(plan("--replicas", "3", "--namenodes", "2", "-Dtarn.namenode.address=localhost:9060",
                "-Dtarn.datanode.dram.capacity=256m", "-Dtarn.datanode.dram.region.size=256m").err())
                .as("a region per partition, not per member").contains("2 namenodes need at least 2 DRAM regions");
        Cli.Result clash = plan("--replicas", "3", "--datanodes", "2", "-Dtarn.namenode.address=localhost:9070",
                "-Dtarn.datanode.bind=0.0.0.0:9071");
        assertThat(clash.exit()).isEqualTo(TarnCli.EXIT_USAGE);
        assertThat(clash.err()).contains("datanode 0 would listen on port 9071, which namenode 1 uses");
    }

    @Test
    void tooFewRegionsPerDatanodeIsRefusedNamingTheKeys() {
        Cli.Result r = plan("--namenodes", "4", "-Dtarn.datanode.dram.capacity=64m",
                "-Dtarn.datanode.dram.region.size=32m");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("tarn start: 4 namenodes need at least 4 DRAM regions per datanode (region r "
                + "serves namenode r mod 4), but tarn.datanode.dram.capacity = 64m / tarn.datanode.dram.region.size "
                + "= 32m gives 2: raise tarn.datanode.dram.capacity to 128m or more, or lower "
                + "tarn.datanode.dram.region.size\n");
        // The defaults, 1g in 256m regions, hold four.
        assertThat(plan("--namenodes", "4").exit()).isZero();
        assertThat(plan("--namenodes", "5").err()).contains("gives 4");
    }

    @Test
    void portsAndBindAddressesThatCannotWorkAreRefused() {
        assertThat(plan("--namenodes", "2", "-Dtarn.namenode.bind=0.0.0.0:9060").err())
                .startsWith("tarn start: tarn.namenode.bind = 0.0.0.0:9060: with 2 namenodes");
        assertThat(plan("--namenodes", "2", "-Dtarn.namenode.address=localhost:0").err())
                .contains("tarn.namenode.address = localhost:0");
        Cli.Result clash = plan("--namenodes", "2", "--datanodes", "3", "-Dtarn.namenode.address=localhost:9072",
                "-Dtarn.datanode.bind=0.0.0.0:9070");
        assertThat(clash.exit()).isEqualTo(2);
        assertThat(clash.err()).contains("datanode 2 would listen on port 9072, which namenode 0 uses");
        assertThat(plan("--namenodes", "2", "-Dtarn.datanode.bind=127.0.0.1:0",
                "-Dtarn.namenode.address=localhost:1").exit()).isZero();
        assertThat(plan("-Dtarn.no.such=1").err()).startsWith("tarn start: unknown configuration key 'tarn.no.such'");
    }

    @Test
    void namenodePartitionMustBeAnEntryOfTheAddressList() {
        Cli.Result r = Cli.run("namenode", "--partition", "2", "-Dtarn.namenode.address=127.0.0.1:1,127.0.0.1:2");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("tarn namenode: tarn.namenode.partition = 2: tarn.namenode.address lists 2");
        assertThat(Cli.run("namenode", "--help").out()).contains("--partition=I").contains("tarn.namenode.partition");
    }
}
