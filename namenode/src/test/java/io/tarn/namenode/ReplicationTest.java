package io.tarn.namenode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ReplicationException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.namenode.blocks.StorageId;
import io.tarn.namenode.namespace.FileService.Replacement;
import io.tarn.namenode.namespace.Namespace;
import org.junit.jupiter.api.Test;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A file's replication on one namenode: inherited from the nearest directory that sets a default,
 * else the cluster's; set on a file only while it holds no data; checked against the live
 * datanodes; and refused at allocation while this build cannot serve block groups. Also the
 * writer's report of an unreachable datanode (REPLACE_BLOCK) and how it clears.
 */
class ReplicationTest {
    private static final long WRITER = 7;

    private final Fixture fx = new Fixture();
    private final Namespace ns = fx.nn.namespace();

    private void datanodes(int n) throws Exception {
        for (int i = 1; i <= n; i++) {
            fx.datanode(i, "dn" + i, 9070, 0, 1, 16, false);
        }
    }

    @Test
    void newFilesInheritTheNearestDirectoryDefaultElseTheClusterOne() throws Exception {
        datanodes(3);
        ns.mkdirs("/a/b/c");
        assertThat(ns.setReplication("/a", 3).status().replication()).isEqualTo(3);
        assertThat(ns.getFile("/a/b").replication()).as("a directory without its own default").isZero();

        assertThat(fx.create("/a/b/c/f", WRITER).replication()).isEqualTo(3);
        assertThat(fx.create("/top", WRITER).replication()).as("the cluster default").isEqualTo(1);
        assertThat(fx.createReplicated("/a/one", WRITER, 1).replication()).as("asked for").isEqualTo(1);

        ns.setReplication("/a/b", 1);
        assertThat(fx.create("/a/b/c/g", WRITER).replication()).as("the nearer default wins").isEqualTo(1);
        assertThat(fx.create("/a/h", WRITER).replication()).isEqualTo(3);
        assertThat(ns.getFile("/a/b/c/f").replication()).as("existing files keep theirs").isEqualTo(3);

        assertThat(ns.replicationAt("/a/b/c/new")).isEqualTo(1);
        assertThat(ns.replicationAt("/a/x/y/z")).as("below a missing directory: the nearest existing").isEqualTo(3);
        assertThat(ns.replicationAt("/a/b/c/f")).as("a file: its own").isEqualTo(3);
        assertThat(ns.replicationAt("/elsewhere")).isEqualTo(1);
        assertThat(failsWith(ErrorCode.NOT_A_DIRECTORY, () -> ns.replicationAt("/top/below")))
                .isEqualTo("no file can be created at '/top/below': '/top' is a file");

        ns.setReplication("/a", 0);
        assertThat(fx.create("/a/k", WRITER).replication()).as("default removed").isEqualTo(1);
    }

    @Test
    void theClusterDefaultComesFromConfiguration() throws Exception {
        Fixture three = new Fixture(3);
        for (int i = 1; i <= 3; i++) {
            three.datanode(i, "dn" + i, 9070, 0, 1, 16, false);
        }
        assertThat(three.create("/f", WRITER).replication()).isEqualTo(3);
        assertThat(three.nn.namespace().replicationAt("/any/where")).isEqualTo(3);
    }

    @Test
    void aFileChangesReplicationOnlyWhileItHoldsNoData() throws Exception {
        datanodes(3);
        long f = fx.create("/f", WRITER).fileId();
        assertThat(ns.setReplication("/f", 3).status().replication()).isEqualTo(3);
        assertThat(ns.setReplication("/f", 1).status().replication()).isEqualTo(1);
        fx.write(f, 0, WRITER);
        String message = failsWith(ErrorCode.REPLICATION_FIXED, () -> ns.setReplication("/f", 3));
        assertThat(message).isEqualTo("cannot change the replication of '/f' from 1 to 3: it holds data already "
                + "(1 block(s)); a file's replication is set while it is new or empty. Copy it to a file created "
                + "with replication 3 instead");
        assertThat(ns.setReplication("/f", 1).status().replication()).as("setting it as it is is fine").isEqualTo(1);
        assertThat(catchThrowable(() -> ns.setReplication("/f", 3))).isInstanceOf(ReplicationException.class);

        long empty = fx.create("/empty", WRITER).fileId();
        fx.nn.files().close(empty, WRITER, 0);
        assertThat(ns.setReplication("/empty", 3).status().replication()).as("closed and empty").isEqualTo(3);
    }

    @Test
    void onlyOneAndThreeAreReplications() throws Exception {
        datanodes(1);
        ns.mkdirs("/d");
        for (int bad : new int[] {2, 4, 255}) {
            assertThat(failsWith(ErrorCode.INVALID_REPLICATION, () -> fx.createReplicated("/d/new/f", WRITER, bad)))
                    .isEqualTo("cannot give '/d/new/f' replication " + bad + ": Tarn keeps 1 copy of a block or a "
                            + "group of 3; use 1 or 3");
            failsWith(ErrorCode.INVALID_REPLICATION, () -> ns.setReplication("/d", bad));
        }
        assertThat(ns.find("/d/new")).as("refused before any parent was made").isNull();
        fx.create("/d/f", WRITER);
        failsWith(ErrorCode.INVALID_REPLICATION, () -> ns.setReplication("/d/f", 0));
    }

    @Test
    void replicationThreeNeedsThreeLiveDatanodes() throws Exception {
        datanodes(2);
        assertThat(failsWith(ErrorCode.NOT_ENOUGH_DATANODES, () -> fx.createReplicated("/f", WRITER, 3)))
                .isEqualTo("cannot place '/f': replication 3 needs 3 live datanodes; 2 are alive; start more "
                        + "datanodes, or use replication 1");
        long f = fx.create("/g", WRITER).fileId();
        assertThat(failsWith(ErrorCode.NOT_ENOUGH_DATANODES, () -> ns.setReplication("/g", 3)))
                .contains("replication 3 needs 3 live datanodes; 2 are alive");
        fx.datanode(3, "dn3", 9070, 0, 1, 16, false);
        ns.setReplication("/g", 3);
        fx.clock.advance(Fixture.DATANODE_TIMEOUT + 1);
        fx.nn.datanodes().heartbeat(1, new StorageId(0, 1));
        fx.nn.runMaintenance(); // datanodes 2 and 3 fall silent
        assertThat(failsWith(ErrorCode.NOT_ENOUGH_DATANODES, () -> fx.write(f, 0, WRITER)))
                .isEqualTo("cannot place a new block: replication 3 needs 3 live datanodes; 1 is alive; start more "
                        + "datanodes, or use replication 1");
    }

    @Test
    void aBlockOfReplicationThreeGoesToAGroupOfThreeDatanodes() throws Exception {
        datanodes(3);
        long f = fx.createReplicated("/f", WRITER, 3).fileId();
        BlockRef ref = fx.write(f, 0, WRITER);
        assertThat(ref.group()).isNotNull();
        assertThat(ref.group().members()).extracting(m -> m.datanodeId()).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(fx.nn.files().getBlocks(f, 0, 10)).singleElement()
                .satisfies(r -> assertThat(r.group().groupId()).isEqualTo(ref.group().groupId()));
        assertThat(ns.getFile("/f").replication()).isEqualTo(3);
    }

    @Test
    void aDatanodeTheWriterCannotReachIsReplacedAndAvoidedUntilItHeartbeatsTwice() throws Exception {
        datanodes(2);
        long f = fx.create("/f", WRITER).fileId();
        BlockRef first = fx.write(f, 0, WRITER);
        Replacement r = fx.nn.files().replaceBlock(f, 0, first.datanodeId(), WRITER, "");
        assertThat(r.reported().id()).isEqualTo(first.datanodeId());
        assertThat(r.ref().datanodeId()).as("elsewhere").isNotEqualTo(first.datanodeId());
        assertThat(fx.nn.files().getBlocks(f, 0, 1).get(0).datanodeId()).isEqualTo(r.ref().datanodeId());
        assertThat(fx.nn.files().replaceBlock(f, 0, first.datanodeId(), WRITER, "").ref())
                .as("a second report of the same block: the block already in its place").isEqualTo(r.ref());

        for (int i = 0; i < 8; i++) {
            long g = fx.create("/g" + i, WRITER).fileId();
            assertThat(fx.write(g, 0, WRITER).datanodeId()).as("new blocks avoid it").isNotEqualTo(first.datanodeId());
        }
        assertThat(fx.nn.datanodes().get(first.datanodeId()).reportedUnreachable()).isTrue();
        StorageId sid = fx.nn.datanodes().get(first.datanodeId()).storageId();
        fx.nn.datanodes().heartbeat(first.datanodeId(), sid);
        assertThat(fx.nn.datanodes().get(first.datanodeId()).allocatable())
                .as("one heartbeat may have left before the report").isFalse();
        fx.nn.datanodes().heartbeat(first.datanodeId(), sid);
        assertThat(fx.nn.datanodes().get(first.datanodeId()).allocatable()).isTrue();
        assertThat(fx.nn.clusterStatus().datanodes()).allMatch(d -> d.alive());
        assertThat(fx.nn.files().replacedBlocks()).isEqualTo(1);
    }

    @Test
    void aBlockWithBytesReportedStoredIsNotReplaced() throws Exception {
        datanodes(2);
        long f = fx.create("/f", WRITER).fileId();
        BlockRef first = fx.write(f, 0, WRITER);
        fx.nn.files().sync(f, WRITER, 100);
        assertThat(failsWith(ErrorCode.INVALID_ARGUMENT,
                () -> fx.nn.files().replaceBlock(f, 0, first.datanodeId(), WRITER, "")))
                .contains("its writer reported 100 bytes of the file stored, some of them in this block");
        assertThat(fx.nn.clusterStatus().datanodes()).as("shown unreachable to operators")
                .anyMatch(d -> d.stateName().equals("unreachable"));
    }
}
