package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.replication.Message.RequestVote;
import io.tarn.replication.Message.VoteReply;
import java.util.List;
import org.junit.jupiter.api.Test;

/** FOLLOWER to CANDIDATE to LEADER, durable votes, the synced-term vote rule and stickiness. */
class ElectionTest {

    static final ReplicationConfig CONFIG = ReplicationConfig.builder().electionTimeout(10, 20).heartbeatTicks(3)
            .leaseTicks(8).retransmitTicks(3).window(4).checkpointInterval(8).build();

    @Test
    void followerBecomesCandidateAfterTimeoutAndAsksOnlyOnceItsVoteIsDurable() {
        Replica r = new Replica(CONFIG, 0, List.of(0, 1, 2), PersistentState.initialVoter(), 1);
        for (int i = 0; i < 21; i++) {
            r.tick();
        }
        assertThat(r.role()).isEqualTo(Role.CANDIDATE);
        assertThat(r.currentTerm()).isEqualTo(1);
        List<Effect> effects = r.drainEffects();
        assertThat(effects).anyMatch(e -> e instanceof Effect.Persist p && p.op() instanceof DiskOp.PersistHardState h
                && h.currentTerm() == 1 && h.votedFor() == 0);
        assertThat(effects).noneMatch(e -> e instanceof Effect.Send);
        long opId = effects.stream().filter(e -> e instanceof Effect.Persist)
                .mapToLong(e -> ((Effect.Persist) e).op().id()).max().orElseThrow();
        r.onDiskComplete(opId);
        assertThat(r.drainEffects()).filteredOn(e -> e instanceof Effect.Send)
                .extracting(e -> ((Effect.Send) e).message()).hasSize(2).allMatch(m -> m instanceof RequestVote);
    }

    @Test
    void designatedFirstLeaderOfANewGroupWinsWithoutWaitingForATimeout() {
        TestCluster c = new TestCluster(CONFIG, 3);
        c.r(2).campaign();
        c.deliverAll();
        assertThat(c.r(2).role()).isEqualTo(Role.LEADER);
        assertThat(c.r(2).isActiveLeader()).isTrue();
        assertThat(c.r(0).now()).isZero();
        assertThat(c.r(0).leaderId()).isEqualTo(2);
        c.r(0).campaign();
        c.deliverAll();
        assertThat(c.r(0).role()).as("campaign() is ignored once a leader is known").isEqualTo(Role.FOLLOWER);
        assertThat(c.r(2).isActiveLeader()).isTrue();
    }

    @Test
    void clusterElectsExactlyOneActiveLeader() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        assertThat(c.r(leader).role()).isEqualTo(Role.LEADER);
        long term = c.r(leader).currentTerm();
        assertThat(c.members).filteredOn(id -> id != leader)
                .allMatch(id -> c.r(id).role() == Role.FOLLOWER && c.r(id).leaderId() == leader
                        && c.r(id).currentTerm() == term);
    }

    @Test
    void voteReplyIsSentOnlyAfterTheVoteIsDurable() {
        Replica voter = new Replica(CONFIG, 1, List.of(0, 1, 2), PersistentState.initialVoter(), 1);
        for (int i = 0; i < CONFIG.electionTimeoutMin(); i++) {
            voter.tick();
        }
        voter.drainEffects();
        voter.handle(new RequestVote(0, 1, 1, 0, 0, 0, false));
        List<Effect> effects = voter.drainEffects();
        assertThat(effects).noneMatch(e -> e instanceof Effect.Send);
        long opId = ((Effect.Persist) effects.stream().filter(e -> e instanceof Effect.Persist).reduce((a, b) -> b)
                .orElseThrow()).op().id();
        voter.onDiskComplete(opId);
        assertThat(voter.drainEffects()).anyMatch(e -> e instanceof Effect.Send s
                && s.message() instanceof VoteReply v && v.granted());
    }

    @Test
    void voterRefusesACandidateWithAnOlderSyncedTerm() {
        PersistentState synced = new PersistentState(4, -1, true, 4, 0, new java.util.TreeMap<>(), Checkpoint.INITIAL);
        Replica voter = new Replica(CONFIG, 1, List.of(0, 1, 2), synced, 1);
        for (int i = 0; i < CONFIG.electionTimeoutMin(); i++) {
            voter.tick();
        }
        voter.drainEffects();
        voter.handle(new RequestVote(0, 1, 5, 3, 100, 100, false));
        assertThat(sentReplies(voter)).singleElement().satisfies(v -> assertThat(v.granted()).isFalse());
    }

    @Test
    void voterThatHeardFromALeaderRecentlyRefusesUnlessItIsATransfer() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int follower = (leader + 1) % 3;
        int other = (leader + 2) % 3;
        long term = c.r(follower).currentTerm();
        c.r(follower).handle(new RequestVote(other, follower, term + 1, term, 1_000, 1_000, false));
        assertThat(c.r(follower).currentTerm()).as("a disruptive candidate does not even bump the term")
                .isEqualTo(term);
        c.r(follower).handle(new RequestVote(other, follower, term + 1, term, 1_000, 1_000, true));
        assertThat(c.r(follower).currentTerm()).isEqualTo(term + 1);
    }

    @Test
    void candidateStepsDownWhenALeaderOfItsTermAppears() {
        Replica r = new Replica(CONFIG, 0, List.of(0, 1, 2), PersistentState.initialVoter(), 1);
        for (int i = 0; i < 21; i++) {
            r.tick();
        }
        assertThat(r.role()).isEqualTo(Role.CANDIDATE);
        r.handle(new Message.Append(1, 0, r.currentTerm(), List.of(), 0, List.of(), 1, false));
        assertThat(r.role()).isEqualTo(Role.FOLLOWER);
        assertThat(r.leaderId()).isEqualTo(1);
    }

    private static List<VoteReply> sentReplies(Replica r) {
        return r.drainEffects().stream().filter(e -> e instanceof Effect.Send s && s.message() instanceof VoteReply)
                .map(e -> (VoteReply) ((Effect.Send) e).message()).toList();
    }
}
