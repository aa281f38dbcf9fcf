package io.tarn.hadoop;

import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import org.apache.hadoop.fs.BlockLocation;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The hosts a block location names: one datanode, or every member of a block group, leader first. */
class BlockReplicasTest {
    private static final List<GroupMember> MEMBERS = List.of(
            new GroupMember(0, 10, "dn-a", 7000, 1, 11L),
            new GroupMember(1, 11, "dn-b", 7001, 2, 12L),
            new GroupMember(3, 12, "dn-c", 7002, 3, 13L));

    private static BlockRef groupRef(int leader) {
        GroupMember main = MEMBERS.stream().filter(m -> m.memberId() == leader).findFirst().orElse(MEMBERS.get(0));
        return new BlockRef(main.datanodeId(), main.host(), main.port(), 0, main.regionId(), 5, 100, 1, 9L, 0L, false,
                new BlockGroup(42, 2, leader, MEMBERS));
    }

    @Test
    void anUnreplicatedBlockNamesItsOneDatanode() throws IOException {
        BlockRef ref = new BlockRef(3, "dn-x", 7010, 0, 1, 4, 100, 1, 9L, 0L, false);
        BlockLocation at = BlockLocator.replicas(ref, 200, 50);
        assertThat(at.getHosts()).containsExactly("dn-x");
        assertThat(at.getNames()).containsExactly("dn-x:7010");
        assertThat(at.getTopologyPaths()).containsExactly("/default-rack/dn-x:7010");
        assertThat(at.getOffset()).isEqualTo(200);
        assertThat(at.getLength()).isEqualTo(50);
    }

    @Test
    void aGroupsBlockNamesTheLeaderFirstThenTheOthersInMemberOrder() throws IOException {
        BlockLocation at = BlockLocator.replicas(groupRef(1), 0, 100);
        assertThat(at.getHosts()).containsExactly("dn-b", "dn-a", "dn-c");
        assertThat(at.getNames()).containsExactly("dn-b:7001", "dn-a:7000", "dn-c:7002");
        assertThat(at.getTopologyPaths())
                .containsExactly("/default-rack/dn-b:7001", "/default-rack/dn-a:7000", "/default-rack/dn-c:7002");

        assertThat(BlockLocator.replicas(groupRef(3), 0, 100).getNames())
                .containsExactly("dn-c:7002", "dn-a:7000", "dn-b:7001");
    }

    /** As HDFS leaves dead datanodes out of a block's locations: a scheduler must not prefer them. */
    @Test
    void membersTheNamenodeCountedDownAreLeftOut() throws IOException {
        BlockRef ref = groupRef(1);
        BlockRef secondDown = new BlockRef(ref.datanodeId(), ref.host(), ref.port(), 0, ref.regionId(), 5, 100, 1,
                9L, 0L, false, ref.group(), 0b010);
        assertThat(BlockLocator.replicas(secondDown, 0, 100).getHosts()).as("the leader's datanode is dead")
                .containsExactly("dn-a", "dn-c");
        BlockRef firstAndThirdDown = new BlockRef(ref.datanodeId(), ref.host(), ref.port(), 0, ref.regionId(), 5, 100,
                1, 9L, 0L, false, ref.group(), 0b101);
        assertThat(BlockLocator.replicas(firstAndThirdDown, 0, 100).getNames()).containsExactly("dn-b:7001");
        BlockRef allDown = new BlockRef(ref.datanodeId(), ref.host(), ref.port(), 0, ref.regionId(), 5, 100, 1, 9L, 0L,
                false, ref.group(), 0b111);
        assertThat(BlockLocator.replicas(allDown, 0, 100).getHosts()).as("all down: all named")
                .containsExactly("dn-b", "dn-a", "dn-c");
    }

    @Test
    void aLeaderThatIsNoLongerAMemberLeavesMemberOrder() throws IOException {
        assertThat(BlockLocator.replicas(groupRef(2), 0, 100).getNames())
                .containsExactly("dn-a:7000", "dn-b:7001", "dn-c:7002");
    }
}
