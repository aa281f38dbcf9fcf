package io.tarn.tools;

import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.JournalHealth;
import io.tarn.common.protocol.AdminProtocol.NamenodeGroupStatus;
import io.tarn.common.protocol.AdminProtocol.NamenodeMemberStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.common.protocol.AdminProtocol.DegradedGroup;
import io.tarn.common.protocol.AdminProtocol.Replacement;
import io.tarn.common.protocol.AdminProtocol.MemberHealth;
import io.tarn.common.protocol.AdminProtocol.ReplicationHealth;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The text of tarn status, exactly as docs/cli.md shows it: scripts and people read these columns. */
class StatusPrinterTest {
    private static final int MB_BLOCKS = 1;
    private static final int BLOCK = 1 << 20;

    private static DatanodeStatus datanode(int id, int state, long capacityMb, long freeMb, boolean shortCircuit) {
        return new DatanodeStatus(id, "host1", 9070, 0, state, capacityMb * MB_BLOCKS, freeMb * MB_BLOCKS, 400,
                shortCircuit);
    }

    private static ClusterStatus namenode(long uptimeMs, long files, long operations, DatanodeStatus... datanodes) {
        return new ClusterStatus(uptimeMs, files, 17, operations, BLOCK, List.of(datanodes));
    }

    private static String print(ClusterSnapshot before, ClusterSnapshot now, double interval) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StatusPrinter.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), before, now, interval);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void severalNamenodesOneDownWithRatesBetweenTwoSamples() {
        ClusterSnapshot before = new ClusterSnapshot(List.of(
                NamenodeView.up(0, "localhost:9060", namenode(7_979_000, 51_000, 9_121_936)),
                NamenodeView.up(1, "localhost:9061", namenode(7_979_000, 50_000, 9_000_000))));
        ClusterSnapshot now = new ClusterSnapshot(List.of(
                NamenodeView.up(0, "localhost:9060",
                        namenode(7_980_000, 51_234, 9_123_456, datanode(1, DatanodeStatus.ALIVE, 512, 100, true))),
                NamenodeView.down(1, "localhost:9061", "cannot connect to localhost:9061: Connection refused")));
        assertThat(print(before, now, 1.0)).isEqualTo("""
                namenodes: 2 (1 up, 1 down), block size 1m; OPS/S over the last 1.0 s
                  PART  ADDRESS                  UPTIME         FILES  DIRECTORIES     OPERATIONS       OPS/S
                  0     localhost:9060           2h 13m         51234           17        9123456      1520.0
                  1     localhost:9061           down: cannot connect to localhost:9061: Connection refused
                  total                                         51234           17        9123456      1520.0
                datanodes: 1 (1 alive), as namenode 0 sees them; CAPACITY and FREE add up the shares of the \
                namenodes that answered
                  ID   ADDRESS                  CLASS  STATE     CAPACITY       FREE   USED  LAST HEARD   \
                SHORT-CIRCUIT SHARE PER NAMENODE
                  1    host1:9070               dram   alive        512 M      100 M  80.5%  0.4 s ago    \
                offered       512 M, down
                """);
    }

    @Test
    void filesWithBlocksThatCannotBeReadAreCountedOverTheNamenodesThatAnswered() {
        ClusterStatus damaged = new ClusterStatus(4_000, 3, 17, 20, BLOCK,
                List.of(datanode(1, DatanodeStatus.STOPPED, 1024, 0, false)), 2);
        ClusterStatus alsoDamaged = new ClusterStatus(4_000, 3, 17, 20, BLOCK, List.of(), 1);
        String two = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060", damaged))), 0);
        assertThat(two).endsWith("WARNING: 2 files have blocks that cannot be read (lost, or on datanodes that are "
                + "down); 'tarn fsck' lists them\n");
        String three = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060", damaged),
                NamenodeView.up(1, "localhost:9061", alsoDamaged))), 0);
        assertThat(three).contains("WARNING: 3 files have blocks");
        String healthy = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060",
                namenode(4_000, 3, 20)))), 0);
        assertThat(healthy).doesNotContain("WARNING");
    }

    @Test
    void blockGroupsAreCountedPerDatanodeOverTheNamenodesThatAnswered() {
        DatanodeStatus one = new DatanodeStatus(1, "host1", 9070, 0, DatanodeStatus.ALIVE, MB_BLOCKS, MB_BLOCKS, 400,
                false, 2);
        DatanodeStatus two = new DatanodeStatus(2, "host2", 9070, 0, DatanodeStatus.ALIVE, MB_BLOCKS, MB_BLOCKS, 400,
                false, 0);
        DatanodeStatus oneElsewhere = new DatanodeStatus(5, "host1", 9070, 0, DatanodeStatus.ALIVE, MB_BLOCKS,
                MB_BLOCKS, 400, false, 1);
        ClusterStatus first = new ClusterStatus(4_000, 3, 17, 20, BLOCK, List.of(one, two), 0, 2);
        ClusterStatus second = new ClusterStatus(4_000, 3, 17, 20, BLOCK, List.of(oneElsewhere), 0, 1);
        String out = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060", first),
                NamenodeView.up(1, "localhost:9061", second))), 0);
        assertThat(out).contains("replication: 3 block groups (files of replication 3), 0 under-replicated; "
                + "groups per datanode: 1: 3\n");
        assertThat(print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060",
                namenode(4_000, 3, 20, two)))), 0)).doesNotContain("replication:");
    }

    private static MemberHealth member(int id, int state, long lastHeardMs) {
        return new MemberHealth(id - 1, id, "127.0.0.1", 9070 + id, state, lastHeardMs);
    }

    /** Datanodes 1, 2, ... at 127.0.0.1:9071, 9072, ... with these numbers of groups. */
    private static List<DatanodeStatus> hosting(int... groups) {
        List<DatanodeStatus> out = new ArrayList<>();
        for (int i = 0; i < groups.length; i++) {
            out.add(new DatanodeStatus(i + 1, "127.0.0.1", 9071 + i, 0, DatanodeStatus.ALIVE, MB_BLOCKS, MB_BLOCKS,
                    400, false, groups[i]));
        }
        return out;
    }

    @Test
    void aMemberWhoseGroupStoppedOnItsLiveDatanodeIsListedWithTheReason() {
        DegradedGroup stopped = new DegradedGroup(9, List.of(member(1, DatanodeStatus.ALIVE, 100),
                new MemberHealth(1, 2, "127.0.0.1", 9072, MemberHealth.FAILED, 100,
                        "journal /j/group-9 is full: No space left on device"),
                member(3, DatanodeStatus.ALIVE, 100)));
        ClusterStatus status = new ClusterStatus(4_000, 3, 17, 20, BLOCK, hosting(1, 1, 1), 0, 1,
                new ReplicationHealth(1, List.of(stopped)));
        String out = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060", status))), 0);
        assertThat(out).contains("  group 9 of namenode 0 on datanodes 1, 2, 3: datanode 2 (127.0.0.1:9072) alive, "
                + "but the group stopped there until the datanode is restarted: journal /j/group-9 is full: No space "
                + "left on device\n");
    }

    /** Repair progress: a group whose member is being replaced says by whom, where, and since when. */
    @Test
    void aReplacementUnderWayIsListedWithTheJoiningMember() {
        DegradedGroup replacing = new DegradedGroup(9, List.of(member(1, DatanodeStatus.ALIVE, 100),
                member(2, DatanodeStatus.SILENT, 61_000), member(3, DatanodeStatus.ALIVE, 100)),
                new Replacement(1, 3, 4, "127.0.0.1", 9074, 4_200));
        ClusterStatus status = new ClusterStatus(4_000, 3, 17, 20, BLOCK, hosting(1, 1, 1, 0), 0, 1,
                new ReplicationHealth(1, List.of(replacing)));
        String out = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060", status))), 0);
        assertThat(out).contains("  group 9 of namenode 0 on datanodes 1, 2, 3: datanode 2 (127.0.0.1:9072) silent, "
                + "last heard 1m 1s ago; replacing member 1 by member 3 on datanode 4 (127.0.0.1:9074) for 4.2 s\n");
    }

    @Test
    void underReplicatedGroupsAreListedUpToTheLimitWithTheirDownMembers() {
        DegradedGroup silent = new DegradedGroup(72057598332895233L, List.of(member(1, DatanodeStatus.ALIVE, 100),
                member(2, DatanodeStatus.SILENT, 12_300), member(3, DatanodeStatus.ALIVE, 100)));
        DegradedGroup twoDown = new DegradedGroup(72057598332895234L, List.of(member(2, DatanodeStatus.STOPPED, 4_000),
                member(3, MemberHealth.LOST, 100), member(4, DatanodeStatus.UNREACHABLE, 200)));
        DegradedGroup other = new DegradedGroup(7, List.of(member(1, DatanodeStatus.SILENT, 61_000),
                member(3, DatanodeStatus.ALIVE, 100), member(4, DatanodeStatus.ALIVE, 100)));
        ClusterStatus first = new ClusterStatus(4_000, 3, 17, 20, BLOCK, hosting(3, 4, 4, 4), 0, 5,
                new ReplicationHealth(2, List.of(silent, twoDown)));
        ClusterStatus second = new ClusterStatus(4_000, 3, 17, 20, BLOCK, hosting(1, 1, 2, 2), 0, 2,
                new ReplicationHealth(2, List.of(other)));
        ClusterSnapshot now = new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060", first),
                NamenodeView.up(1, "localhost:9061", second)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StatusPrinter.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), null, now, 0, 2);
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(out.substring(out.indexOf("replication:"))).isEqualTo("""
                replication: 7 block groups (files of replication 3), 4 under-replicated; groups per datanode: \
                1: 4, 2: 5, 3: 6, 4: 6
                  group 72057598332895233 of namenode 0 on datanodes 1, 2, 3: datanode 2 (127.0.0.1:9072) silent, \
                last heard 0m 12s ago
                  group 72057598332895234 of namenode 0 on datanodes 2, 3, 4: datanode 2 (127.0.0.1:9072) stopped \
                4.0 s ago; datanode 3 (127.0.0.1:9073) lost its copy (it came back, or stopped, without the group's \
                region); datanode 4 (127.0.0.1:9074) reported unreachable by a client, last heard 0.2 s ago
                  ... and 2 more under-replicated groups (tarn status --groups N lists up to N)
                """);
        assertThat(print(null, now, 0)).as("ten by default").contains("  group 7 of namenode 1 on datanodes 1, 3, 4: "
                + "datanode 1 (127.0.0.1:9071) silent, last heard 1m 1s ago\n  ... and 1 more under-replicated group ");
    }

    @Test
    void oneNamenodeAveragedSinceStartHasNoTotalNorShares() {
        ClusterSnapshot now = new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060",
                namenode(4_000, 3, 20, datanode(1, DatanodeStatus.ALIVE, 1024, 1024, true),
                        datanode(2, DatanodeStatus.STOPPED, 1024, 0, false)))));
        assertThat(print(null, now, 0)).isEqualTo("""
                namenodes: 1 (1 up), block size 1m; OPS/S averaged since each namenode started
                  PART  ADDRESS                  UPTIME         FILES  DIRECTORIES     OPERATIONS       OPS/S
                  0     localhost:9060           4.0 s              3           17             20         5.0
                datanodes: 2 (1 alive)
                  ID   ADDRESS                  CLASS  STATE     CAPACITY       FREE   USED  LAST HEARD   SHORT-CIRCUIT
                  1    host1:9070               dram   alive          1 G        1 G   0.0%  0.4 s ago    offered
                  2    host1:9070               dram   stopped        1 G          0 100.0%  0.4 s ago    no
                """);
    }

    /** A journaled namenode shows its journal; a failed journal is warned about at the end. */
    @Test
    void aNamenodeJournalIsShownAndItsFailureWarned() {
        ClusterStatus healthy = new ClusterStatus(4_000, 3, 17, 20, BLOCK, List.of(), 0, 0,
                ReplicationHealth.HEALTHY, new JournalHealth(true, "/data/nn", 1_232, 1_229, 125_000, ""));
        String ok = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060", healthy))), 0);
        assertThat(ok).contains("  journal of namenode 0: /data/nn, last record 1232, checkpoint of records 1..1229 "
                + "(2m 5s ago)\n").doesNotContain("WARNING");
        ClusterStatus failed = new ClusterStatus(4_000, 3, 17, 20, BLOCK, List.of(), 0, 0,
                ReplicationHealth.HEALTHY, new JournalHealth(true, "/data/nn", 7, 0, -1,
                "namespace journal /data/nn is full: No space left on device"));
        String bad = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, "localhost:9060", failed))), 0);
        assertThat(bad).contains("journal of namenode 0: /data/nn, last record 7, no checkpoint yet, FAILED")
                .endsWith("WARNING: the namespace journal of namenode 0 failed, so it refuses every change (lookups "
                        + "go on) until it is restarted on a working disk: namespace journal /data/nn is full: No "
                        + "space left on device\n");
    }

    /**
     * A partition served by a replicated group: its leader's address in the table, a line naming the
     * leader and how it sees the others, and a warning when a member is out of sync.
     */
    @Test
    void aNamenodeGroupShowsItsLeaderAndMembersAndWarnsOfOnesOutOfSync() {
        String members = "h1:9060|h2:9060|h3:9060";
        NamenodeGroupStatus healthy = new NamenodeGroupStatus(1, 4, List.of(
                new NamenodeMemberStatus(0, "h1:9060", 12, true),
                new NamenodeMemberStatus(1, "h2:9060", 0, true),
                new NamenodeMemberStatus(2, "h3:9060", 30, true)));
        ClusterStatus s = new ClusterStatus(4_000, 3, 17, 20, BLOCK, List.of(), 0, 0, ReplicationHealth.HEALTHY,
                new JournalHealth(true, "the namespace log of the group of partition 0", 40, 0, -1, "", healthy));
        String ok = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, members, s))), 0);
        assertThat(ok).containsPattern("\\n  0 +h2:9060 +4\\.0 s +3 +17 +20 ")
                .contains("  group of partition 0: member 1 (h2:9060) leads term 4; member 0 (h1:9060) in sync, "
                        + "heard 0.0 s ago; member 2 (h3:9060) in sync, heard 0.0 s ago\n")
                .doesNotContain("WARNING");

        NamenodeGroupStatus oneDown = new NamenodeGroupStatus(1, 5, List.of(
                new NamenodeMemberStatus(0, "h1:9060", 12_500, false),
                new NamenodeMemberStatus(1, "h2:9060", 0, true),
                new NamenodeMemberStatus(2, "h3:9060", 30, true)));
        ClusterStatus degraded = new ClusterStatus(4_000, 3, 17, 20, BLOCK, List.of(), 0, 0,
                ReplicationHealth.HEALTHY, new JournalHealth(true, "log", 40, 0, -1, "", oneDown));
        String bad = print(null, new ClusterSnapshot(List.of(NamenodeView.up(0, members, degraded))), 0);
        assertThat(bad).contains("member 0 (h1:9060) NOT IN SYNC, heard 0m 12s ago")
                .endsWith("WARNING: the namenode group of partition 0 has 2 of 3 members in sync, not member 0 "
                        + "(h1:9060, heard 0m 12s ago): it serves on, but losing one more member stops it until one "
                        + "comes back; start it again\n");
    }

    @Test
    void aRateNeedsTwoSamplesOfOneNamenodeRun() {
        ClusterStatus first = namenode(10_000, 0, 1_000);
        assertThat(StatusPrinter.between(first, namenode(12_000, 0, 1_500))).isEqualTo(250.0);
        assertThat(StatusPrinter.between(null, first)).isNaN();
        assertThat(StatusPrinter.between(first, namenode(500, 0, 10))).as("restarted in between").isNaN();
        assertThat(StatusPrinter.average(first)).isEqualTo(100.0);
    }

    @Test
    void noNamenodeAnswering() {
        ClusterSnapshot now = new ClusterSnapshot(List.of(NamenodeView.down(0, "localhost:9060", "refused")));
        assertThat(print(null, now, 1)).isEqualTo("""
                namenodes: 1 (0 up, 1 down)
                  PART  ADDRESS                  UPTIME         FILES  DIRECTORIES     OPERATIONS       OPS/S
                  0     localhost:9060           down: refused
                datanodes: unknown (no namenode answered)
                """);
    }
}
