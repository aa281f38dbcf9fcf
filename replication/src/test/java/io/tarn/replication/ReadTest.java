package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.ClientReply.ReadReply;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reads under a lease, through a read-index round, and never from a deposed leader. */
class ReadTest {

    private static final ReplicationConfig CONFIG = ElectionTest.CONFIG;

    private static ClientRead read(long id) {
        return new ClientRead(9, id, new BlockRange(0, 1));
    }

    @Test
    void leaderWithAValidLeaseServesAtOnce() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        c.tick(CONFIG.heartbeatTicks());
        c.r(leader).submitRead(read(1));
        c.collect();
        assertThat(c.network).as("no extra round needed").noneMatch(m -> m instanceof Message.Append);
        assertThat(c.count(ReadReply.class, Status.OK)).isEqualTo(1);
    }

    @Test
    void expiredLeaseRequiresAQuorumToEchoAHeartbeatSentAfterTheRead() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        c.down.add((leader + 1) % 3);
        c.down.add((leader + 2) % 3);
        for (int i = 0; i < CONFIG.leaseTicks() + 1; i++) {
            c.r(leader).tick();
        }
        c.collect();
        c.network.clear();
        c.r(leader).submitRead(read(1));
        c.collect();
        assertThat(c.count(ReadReply.class, Status.OK)).as("no quorum reachable").isZero();
        c.down.clear();
        c.deliverAll();
        assertThat(c.count(ReadReply.class, Status.OK)).isEqualTo(1);
    }

    @Test
    void deposedLeaderNeverServesAStaleRead() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int old = c.electLeader();
        c.write(old, 9, 1, 0, 1, 1);
        // Cut the old leader off; its clock keeps running. Wait for a new leader to take a write.
        c.isolated.add(old);
        int next = -1;
        for (int i = 0; i < 500 && next < 0; i++) {
            c.tick(1);
            next = c.members.stream().filter(id -> id != old && c.r(id).isActiveLeader()).findFirst().orElse(-1);
        }
        assertThat(next).isNotNegative();
        c.write(next, 9, 2, 0, 1, 2);
        assertThat(c.count(ClientReply.WriteReply.class, Status.OK)).isEqualTo(2);
        assertThat(c.r(old).isActiveLeader()).as("the old leader has not noticed yet").isTrue();
        c.r(old).submitRead(read(7));
        c.deliverAll();
        assertThat(c.replies).filteredOn(r -> r instanceof ReadReply rr && rr.readId() == 7)
                .as("its lease expired and no quorum answers its read-index round").isEmpty();
        c.isolated.clear();
        c.tick(CONFIG.heartbeatTicks());
        assertThat(c.replies).filteredOn(r -> r instanceof ReadReply rr && rr.readId() == 7)
                .singleElement().satisfies(r -> assertThat(r.status()).isEqualTo(Status.ABORTED));
    }

    @Test
    void readWaitsForEarlierOverlappingWritesToApply() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        c.tick(CONFIG.heartbeatTicks());
        c.down.add((leader + 1) % 3);
        c.down.add((leader + 2) % 3);
        c.r(leader).submitWrite(new ClientWrite(new WriteCommand(9, 1, 1, new BlockRange(0, 1), new ValuePayload(5))));
        c.r(leader).submitRead(read(1));
        c.collect();
        assertThat(c.count(ReadReply.class, Status.OK)).as("the write before the read is not applied").isZero();
        c.down.clear();
        c.tick(CONFIG.retransmitTicks() + 1);
        assertThat(c.count(ReadReply.class, Status.OK)).isEqualTo(1);
        assertThat(c.data.get(leader)).containsEntry(0L, 5L);
    }
}
