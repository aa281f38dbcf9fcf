package io.tarn.replication;

import java.util.List;

/**
 * What a replica asks its host to do. The host performs effects in the order they are returned
 * by {@link Replica#drainEffects()}; in particular it applies {@link Apply} effects to its block
 * state in that order and serves an OK {@link ClientReply.ReadReply} from the state as it stands
 * when that reply is reached.
 */
public sealed interface Effect {

    /**
     * Send a message; the network may lose, duplicate, delay or reorder it.
     *
     * @param message the message
     */
    record Send(Message message) implements Effect {
    }

    /**
     * Make a write durable and report completion.
     *
     * @param op the write
     */
    record Persist(DiskOp op) implements Effect {
    }

    /**
     * Apply a committed write to the group's block state.
     *
     * @param entry the entry (never a no-op or a duplicate)
     */
    record Apply(LogEntry entry) implements Effect {
    }

    /**
     * Answer a client.
     *
     * @param reply the answer
     */
    record Reply(ClientReply reply) implements Effect {
    }

    /**
     * Capture an image of the block state now and hand it back with
     * {@link Replica#onCheckpointCaptured(CheckpointMeta, StateImage)}.
     *
     * @param meta what the image will contain
     */
    record CaptureCheckpoint(CheckpointMeta meta) implements Effect {
    }

    /**
     * Replace the whole block state with a checkpoint image received from the leader.
     *
     * @param checkpoint the image and its description
     */
    record RestoreCheckpoint(Checkpoint checkpoint) implements Effect {
    }

    /**
     * The replica changed role or term; for hosts that publish leadership.
     *
     * @param role the new role
     * @param term the current term
     */
    record RoleChanged(Role role, long term) implements Effect {
    }

    /**
     * A configuration entry was applied here: from {@code index} on, the group's members are
     * {@code members}. Emitted by every replica, in log order, once per change it applies.
     *
     * @param members the member ids, ascending
     * @param index   the configuration entry's index
     */
    record MembershipChanged(List<Integer> members, long index) implements Effect {
        /** Freezes the list. */
        public MembershipChanged {
            members = List.copyOf(members);
        }
    }
}
