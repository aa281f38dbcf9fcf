package io.tarn.replication;

import java.util.List;

/**
 * Behaviour and volatile state of one role; {@link Replica} owns the shared state and swaps the
 * role object on every transition (see {@link Role} for the legal ones). Default handlers answer
 * clients with a redirect and ignore what the role does not expect.
 */
abstract sealed class RoleState permits FollowerRole, CandidateRole, LeaderRole {

    final Replica replica;

    RoleState(Replica replica) {
        this.replica = replica;
    }

    abstract Role role();

    void onTick() {
    }

    /** A message of the current term (after term adoption). */
    void onMessage(Message message) {
    }

    /** A message from an older term: tell a stale leader about the newer term. */
    void onStaleMessage(Message message) {
        if (message instanceof Message.Append || message instanceof Message.Sync
                || message instanceof Message.InstallCheckpoint) {
            replica.send(new Message.AppendReply(replica.id, message.from(), replica.term(), false,
                    replica.voter(), List.of(), replica.log.finalPrefix(), 0));
        }
    }

    void onVoteGranted() {
    }

    /** The lowest log index a member still needs from this replica's log; none but a leader's. */
    long neededFrom() {
        return Long.MAX_VALUE;
    }

    /** A message this replica sent was not delivered (reliable links only report this). */
    void onSendFailed(Message message) {
    }

    void onClientWrite(WriteCommand command) {
        replica.emit(new Effect.Reply(new ClientReply.WriteReply(command.clientId(), command.sequence(),
                Status.NOT_LEADER, replica.leaderHint())));
    }

    void onClientRead(ClientRead read) {
        replica.emit(new Effect.Reply(new ClientReply.ReadReply(read.clientId(), read.readId(), read.range(),
                Status.NOT_LEADER, replica.leaderHint())));
    }

    void onTransferRequest(int target) {
    }

    /** The host asks for a membership change; only an active leader can propose one. */
    Status onMembershipChange(List<Integer> target) {
        return Status.NOT_LEADER;
    }

    /** An entry was applied (or skipped as a duplicate) on this replica. */
    void onApplied(LogEntry entry) {
    }

    /** Runs after each input, once committed entries are applied. */
    void afterApply() {
    }

    /** The role is being left. */
    void onExit() {
    }
}
