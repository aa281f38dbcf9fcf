package io.tarn.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tarn.replication.Message.PreVote;
import io.tarn.replication.Message.PreVoteReply;
import io.tarn.replication.Message.RequestVote;
import io.tarn.replication.Message.VoteReply;
import java.util.List;
import org.junit.jupiter.api.Test;

/** FOLLOWER to CANDIDATE to LEADER, durable votes, the synced-term vote rule, stickiness and pre-votes. */
class ElectionTest {

    static final ReplicationConfig CONFIG = ReplicationConfig.builder().electionTimeout(10, 20).heartbeatTicks(3)
            .leaseTicks(8).retransmitTicks(3).window(4).checkpointInterval(8).build();
    static final ReplicationConfig NO_PRE_VOTE = CONFIG.toBuilder().preVote(false).build();

    @Test
    void withoutPreVoteAFollowerBecomesCandidateAfterTimeoutAndAsksOnlyOnceItsVoteIsDurable() {
        Replica r = timedOut(NO_PRE_VOTE);
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
        Replica r = timedOut(NO_PRE_VOTE);
        assertThat(r.role()).isEqualTo(Role.CANDIDATE);
        r.handle(new Message.Append(1, 0, r.currentTerm(), List.of(), 0, List.of(), 1, false));
        assertThat(r.role()).isEqualTo(Role.FOLLOWER);
        assertThat(r.leaderId()).isEqualTo(1);
    }

    @Test
    void aTimedOutFollowerFirstAsksForPreVotesWithoutChangingItsTermAndStandsOnAQuorum() {
        Replica r = timedOut(CONFIG);
        assertThat(r.role()).isEqualTo(Role.FOLLOWER);
        assertThat(r.currentTerm()).isZero();
        List<Effect> effects = r.drainEffects();
        assertThat(effects).as("a pre-vote persists nothing").noneMatch(e -> e instanceof Effect.Persist);
        assertThat(effects).filteredOn(e -> e instanceof Effect.Send).extracting(e -> ((Effect.Send) e).message())
                .hasSize(2).allSatisfy(m -> assertThat(m).isInstanceOfSatisfying(PreVote.class,
                        v -> assertThat(v.term()).isEqualTo(1)));
        r.handle(new PreVoteReply(1, 0, 0, 1, false));
        assertThat(r.role()).as("a refusal does not count").isEqualTo(Role.FOLLOWER);
        r.handle(new PreVoteReply(2, 0, 0, 0, true));
        assertThat(r.role()).as("a grant for another term does not count").isEqualTo(Role.FOLLOWER);
        r.handle(new PreVoteReply(2, 0, 0, 1, true));
        assertThat(r.role()).isEqualTo(Role.CANDIDATE);
        assertThat(r.currentTerm()).isEqualTo(1);
    }

    @Test
    void aPreVoteIsGrantedOnlyAsAVoteWouldBeAndChangesNothingOnTheVoter() {
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        int follower = (leader + 1) % 3;
        int other = (leader + 2) % 3;
        long term = c.r(follower).currentTerm();
        c.r(follower).drainEffects();
        c.r(follower).handle(new PreVote(other, follower, term + 1, term, 1_000, 1_000));
        assertThat(sentPreVoteReplies(c.r(follower))).as("it heard from its leader recently").singleElement()
                .satisfies(v -> assertThat(v.granted()).isFalse());
        c.r(leader).drainEffects();
        c.r(leader).handle(new PreVote(other, leader, term + 5, term, 1_000, 1_000));
        assertThat(sentPreVoteReplies(c.r(leader))).as("a leader never grants").singleElement()
                .satisfies(v -> assertThat(v.granted()).isFalse());
        assertThat(c.r(leader).role()).isEqualTo(Role.LEADER);
        assertThat(c.r(leader).currentTerm()).as("nor adopts the proposed term").isEqualTo(term);

        for (int i = 0; i < CONFIG.electionTimeoutMin(); i++) {
            c.r(follower).tick();
        }
        c.r(follower).drainEffects();
        c.r(follower).handle(new PreVote(other, follower, term + 1, 0, 0, 0));
        assertThat(sentPreVoteReplies(c.r(follower))).as("its log is behind").singleElement()
                .satisfies(v -> assertThat(v.granted()).isFalse());
        c.r(follower).handle(new PreVote(other, follower, term + 1, term, 1_000, 1_000));
        assertThat(sentPreVoteReplies(c.r(follower))).singleElement().satisfies(v -> {
            assertThat(v.granted()).isTrue();
            assertThat(v.term()).isEqualTo(term);
            assertThat(v.proposedTerm()).isEqualTo(term + 1);
        });
        assertThat(c.r(follower).currentTerm()).isEqualTo(term);
        c.r(follower).handle(new RequestVote(leader, follower, term + 1, term, 1_000, 1_000, false));
        assertThat(c.r(follower).drainEffects()).as("a pre-vote is no vote: a real one is still free")
                .anyMatch(e -> e instanceof Effect.Persist p && p.op() instanceof DiskOp.PersistHardState h
                        && h.currentTerm() == term + 1 && h.votedFor() == leader);
    }

    @Test
    void aPreCandidateAdoptsTheNewerTermOfARefusal() {
        Replica r = timedOut(CONFIG);
        r.handle(new PreVoteReply(1, 0, 9, 1, false));
        assertThat(r.role()).isEqualTo(Role.FOLLOWER);
        assertThat(r.currentTerm()).isEqualTo(9);
    }

    /**
     * The failure pre-votes exist for: a follower cut off from a leader the other member still
     * hears from. Without them it raises the term on every timeout, and once the link heals its
     * answer in the higher term deposes the leader; with them its term never moves, and the leader
     * keeps leading as if nothing happened.
     */
    @Test
    void aFollowerCutOffFromALiveLeaderDeposesItOnlyWithoutPreVote() {
        for (boolean preVote : new boolean[] {true, false}) {
            TestCluster c = new TestCluster(preVote ? CONFIG : NO_PRE_VOTE, 3);
            int leader = c.electLeader();
            long term = c.r(leader).currentTerm();
            int cut = (leader + 1) % 3;
            c.isolated.add(cut);
            c.tick(5 * CONFIG.electionTimeoutMax());
            assertThat(c.r(leader).isActiveLeader()).as("the other follower keeps the quorum").isTrue();
            c.isolated.remove(cut);
            c.tick(2 * CONFIG.heartbeatTicks());
            if (preVote) {
                assertThat(c.r(cut).currentTerm()).as("pre-votes: the cut follower kept its term").isEqualTo(term);
                assertThat(c.r(leader).role()).isEqualTo(Role.LEADER);
                assertThat(c.r(leader).currentTerm()).isEqualTo(term);
                assertThat(c.r(cut).leaderId()).isEqualTo(leader);
            } else {
                assertThat(c.r(cut).currentTerm()).as("no pre-votes: the cut follower raised its term")
                        .isGreaterThan(term + 3);
                assertThat(c.r(leader).currentTerm()).as("and deposed the leader").isGreaterThan(term);
            }
        }
    }

    /**
     * A leader that hears from no quorum keeps leading past an election timeout (a quorum stalled
     * for a moment comes back to it) and steps down, in its own term, only after
     * {@code stepDownTicks}; the others elect a new leader meanwhile as usual.
     */
    @Test
    void aLeaderThatHearsNoQuorumStepsDownOnlyAfterTheStepDownTime() {
        assertThat(CONFIG.stepDownTicks()).as("default: three longest election timeouts")
                .isEqualTo(3 * CONFIG.electionTimeoutMax());
        TestCluster c = new TestCluster(CONFIG, 3);
        int leader = c.electLeader();
        long term = c.r(leader).currentTerm();
        c.isolated.add(leader);
        c.tick(CONFIG.electionTimeoutMax() + 2);
        assertThat(c.r(leader).role()).as("still leads after an election timeout").isEqualTo(Role.LEADER);
        c.tick(CONFIG.stepDownTicks() - CONFIG.electionTimeoutMax());
        assertThat(c.r(leader).role()).as("stepped down").isEqualTo(Role.FOLLOWER);
        assertThat(c.r(leader).currentTerm()).as("in its own term: it heard of no newer one").isEqualTo(term);
        int other = (leader + 1) % 3;
        assertThat(c.r(other).currentTerm()).as("the others elected a leader meanwhile").isGreaterThan(term);
        assertThat(ReplicationConfig.builder().electionTimeout(150, 300).stepDownTicks(1000).build()
                .stepDownTicks()).isEqualTo(1000);
        assertThat(catchThrowable(() -> ReplicationConfig.builder()
                .electionTimeout(150, 300).stepDownTicks(299).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("stepDownTicks");
    }

    /** Member 0 of three, ticked past its longest election timeout with nobody answering. */
    private static Replica timedOut(ReplicationConfig config) {
        Replica r = new Replica(config, 0, List.of(0, 1, 2), PersistentState.initialVoter(), 1);
        for (int i = 0; i <= config.electionTimeoutMax(); i++) {
            r.tick();
        }
        return r;
    }

    private static List<PreVoteReply> sentPreVoteReplies(Replica r) {
        return r.drainEffects().stream().filter(e -> e instanceof Effect.Send s && s.message() instanceof PreVoteReply)
                .map(e -> (PreVoteReply) ((Effect.Send) e).message()).toList();
    }

    private static List<VoteReply> sentReplies(Replica r) {
        return r.drainEffects().stream().filter(e -> e instanceof Effect.Send s && s.message() instanceof VoteReply)
                .map(e -> (VoteReply) ((Effect.Send) e).message()).toList();
    }
}
