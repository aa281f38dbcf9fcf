package io.tarn.datanode;

import io.tarn.common.protocol.AdminProtocol.FailedGroup;
import io.tarn.common.protocol.AdminProtocol.GroupCommand;
import io.tarn.common.protocol.AdminProtocol.LeaderReport;

import java.util.List;

/**
 * What a datanode's heartbeats say about the replicated block groups it hosts, and where the
 * namenodes' group commands go. Each namenode places the groups of its own regions, so everything
 * is per partition. Called on the namenode links' thread ({@link NamenodeLinks}); implementations
 * must answer quickly (no network waits).
 */
public interface GroupCommands {
    /** A datanode that hosts no groups: reports none and ignores commands. */
    GroupCommands NONE = new GroupCommands() {
        @Override
        public List<Long> hosted(int partition) {
            return List.of();
        }

        @Override
        public List<LeaderReport> leading(int partition) {
            return List.of();
        }

        @Override
        public void apply(int partition, List<GroupCommand> commands) {
        }
    };

    /** The ids of the groups of partition {@code partition} hosted here. */
    List<Long> hosted(int partition);

    /** Those of them this datanode's member leads, as far as it knows now. */
    List<LeaderReport> leading(int partition);

    /** Those of them stopped here (a failed journal, an effect that threw), with the reason; none by default. */
    default List<FailedGroup> failed(int partition) {
        return List.of();
    }

    /** Applies a heartbeat answer's commands from partition {@code partition}'s namenode, in order. */
    void apply(int partition, List<GroupCommand> commands);
}
