package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.ClientReply.WriteReply;
import io.tarn.replication.Message.Append;
import io.tarn.replication.Message.AppendReply;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Sync stage, out-of-order commit, window back-pressure, at-most-once, step-down. */
class LeaderTest {

    private static final ReplicationConfig CONFIG = ElectionTest.CONFIG;

    @Test
    void leaderRefusesWritesUntilItsMergedLogIsSyncedToAQuorum() {
        // Without pre-votes, so that ticking alone makes a candidate whose messages this test routes.
        TestCluster c = new TestCluster(ElectionTest.NO_PRE_VOTE, 3);
        c.autoDisk = false;
        int candidate = -1;
        while (candidate < 0) {
            for (int id : c.members) {
                c.r(id).tick();
                if (candidate < 0 && c.r(id).role() == Role.CANDIDATE) {
                    candidate = id;
                }
            }
        }
        Replica r = c.r(candidate);
        c.collect();
        c.completeDisk(candidate);
        c.collect();
        // deliver vote requests; voters persist, reply
        while (!c.network.isEmpty()) {
            Message m = c.network.poll();
            if (!(m instanceof Message.RequestVote) && !(m instanceof Message.VoteReply)) {
                continue; // the leader's first syncs are lost: it must resend them
            }
            c.r(m.to()).handle(m);
            c.collect();
            c.completeDisk(m.to());
            c.collect();
        }
        assertThat(r.role()).isEqualTo(Role.LEADER);
        assertThat(r.isActiveLeader()).as("merged log not yet durable anywhere").isFalse();
        r.submitWrite(new ClientWrite(new WriteCommand(9, 1, 1, new BlockRange(0, 1), new ValuePayload(5))));
        c.collect();
        assertThat(c.replies).singleElement()
                .satisfies(rep -> assertThat(rep.status()).isEqualTo(Status.LEADER_NOT_READY));
        c.autoDisk = true;
        c.tick(CONFIG.retransmitTicks() + 1);
        assertThat(r.isActiveLeader()).isTrue();
    }

    @Test
    void writeIsCommittedAppliedEverywhereAndAcknowledged() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        c.write(leader, 9, 1, 4, 2, 77);
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.count(WriteReply.class, Status.OK)).isEqualTo(1);
        for (int id : c.members) {
            assertThat(c.data.get(id)).containsEntry(4L, 77L).containsEntry(5L, 77L);
        }
    }

    @Test
    void entriesCommitOutOfOrderWhenAcknowledgedOutOfOrder() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        Replica l = c.r(leader);
        long base = l.lastIndex();
        l.submitWrite(new ClientWrite(new WriteCommand(9, 1, 1, new BlockRange(0, 1), new ValuePayload(1))));
        l.submitWrite(new ClientWrite(new WriteCommand(9, 2, 1, new BlockRange(5, 1), new ValuePayload(2))));
        c.collect();
        int follower = (leader + 1) % 3;
        List<Message> appends = c.network.stream().filter(m -> m instanceof Append && m.to() == follower).toList();
        c.network.clear();
        // The follower acknowledges only the second entry.
        l.handle(new AppendReply(follower, leader, l.currentTerm(), true, true, List.of(base + 2), base, 0));
        c.collect();
        assertThat(appends).isNotEmpty();
        assertThat(l.isCommitted(base + 2)).isTrue();
        assertThat(l.isCommitted(base + 1)).isFalse();
        assertThat(l.isApplied(base + 2)).as("no overlap with the uncommitted entry before it").isTrue();
    }

    @Test
    void inOrderModeCommitsOnlyThePrefix() {
        TestCluster c = new TestCluster(CONFIG.toBuilder().mode(Mode.IN_ORDER).build(), 3);
        int leader = c.electLeader();
        Replica l = c.r(leader);
        long base = l.lastIndex();
        l.submitWrite(new ClientWrite(new WriteCommand(9, 1, 1, new BlockRange(0, 1), new ValuePayload(1))));
        l.submitWrite(new ClientWrite(new WriteCommand(9, 2, 1, new BlockRange(5, 1), new ValuePayload(2))));
        c.collect();
        c.network.clear();
        int follower = (leader + 1) % 3;
        l.handle(new AppendReply(follower, leader, l.currentTerm(), true, true, List.of(base + 2), base, 0));
        c.collect();
        assertThat(l.isCommitted(base + 2)).isFalse();
        l.handle(new AppendReply(follower, leader, l.currentTerm(), true, true, List.of(base + 1), base, 0));
        c.collect();
        assertThat(l.isCommitted(base + 2)).isTrue();
    }

    @Test
    void fullWindowIsReportedAsBusy() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        c.down.add((leader + 1) % 3);
        c.down.add((leader + 2) % 3);
        for (int seq = 1; seq <= CONFIG.window() + 1; seq++) {
            WriteCommand command = new WriteCommand(9, seq, 1, new BlockRange(seq, 1), new ValuePayload(seq));
            c.r(leader).submitWrite(new ClientWrite(command));
        }
        c.collect();
        assertThat(c.count(WriteReply.class, Status.BUSY)).isEqualTo(1);
    }

    @Test
    void retriedWriteAppliesAtMostOnce() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        c.write(leader, 9, 1, 3, 1, 10);
        long last = c.r(leader).lastIndex();
        c.write(leader, 9, 2, 3, 1, 20);
        c.write(leader, 9, 1, 3, 1, 10);
        assertThat(c.r(leader).lastIndex()).as("the retry of an applied write appends nothing").isEqualTo(last + 1);
        assertThat(c.data.get(leader)).containsEntry(3L, 20L);
        assertThat(c.count(WriteReply.class, Status.OK)).isEqualTo(3);
    }

    @Test
    void leaderStepsDownOnAHigherTermReplyAndAbortsWaitingWrites() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        Replica l = c.r(leader);
        c.down.add((leader + 1) % 3);
        c.down.add((leader + 2) % 3);
        l.submitWrite(new ClientWrite(new WriteCommand(9, 1, 1, new BlockRange(0, 1), new ValuePayload(1))));
        c.collect();
        l.handle(new AppendReply((leader + 1) % 3, leader, l.currentTerm() + 3, false, true, List.of(), 0, 0));
        c.collect();
        assertThat(l.role()).isEqualTo(Role.FOLLOWER);
        assertThat(c.count(WriteReply.class, Status.ABORTED)).isEqualTo(1);
    }
}
