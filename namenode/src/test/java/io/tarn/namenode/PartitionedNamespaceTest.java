package io.tarn.namenode;

import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Partitions;
import io.tarn.common.protocol.NamenodeProtocol.PartitionMap;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.namespace.FileMove;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.namenode.namespace.Route;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/** One partition of a two-namenode namespace, as far as it is built (docs/partitioning.md). */
class PartitionedNamespaceTest {
    private static final List<HostPort> TWO = List.of(new HostPort("nn0", 9060), new HostPort("nn1", 9061));
    private static final long CLIENT = 7;

    private static NamenodeService partition(int p) {
        return new NamenodeService(new ManualClock(), Fixture.BLOCK, Fixture.LEASE_TIMEOUT, Fixture.DATANODE_TIMEOUT,
                BlockTokens.random(), new Partitioning(p, TWO));
    }

    /** A name that hashes to {@code p} of 2. */
    private static String nameOf(int p, String prefix) {
        for (int i = 0; ; i++) {
            if (Partitions.ofName(prefix + i, 2) == p) {
                return prefix + i;
            }
        }
    }

    @Test
    void aPartitionCreatesOnlyTheFilesItOwnsAndTheirIdsSayWhere() throws Exception {
        NamenodeService nn1 = partition(1);
        Namespace ns = nn1.namespace();
        String mine = nameOf(1, "part-");
        String theirs = nameOf(0, "part-");
        FileStatus created = ns.create("/" + mine, FileType.FILE, false, false, 0, CLIENT);
        assertThat(FileIds.partition(created.fileId())).isEqualTo(1);
        assertThat(failsWith(ErrorCode.WRONG_PARTITION, () -> ns.create("/" + theirs, FileType.FILE, false, false, 0,
                CLIENT))).contains("namenode 0 (nn0:9060)", "out of date");
    }

    @Test
    void aPartitionMakesNoDirectoryByItselfAndSendsDirectoryChangesToTheCoordinator() throws Exception {
        Namespace ns = partition(0).namespace();
        assertThat(failsWith(ErrorCode.PARENT_NOT_FOUND, () -> ns.mkdirs("/d"))).contains("through namenode 0");
        assertThat(ns.mkdirs("/").isDirectory()).as("an existing directory is fine").isTrue();
        failsWith(ErrorCode.PARENT_NOT_FOUND, () -> ns.create("/a/" + nameOf(0, "f"), FileType.FILE, false, true, 0,
                CLIENT));
        Route toCoordinator = ns.delete("/", true);
        assertThat(toCoordinator.kind()).isEqualTo(Route.Kind.COORDINATOR);
        assertThat(toCoordinator.reason()).isEqualTo("deleting directory '/' goes through namenode 0 (nn0:9060)");
        String here = nameOf(0, "x");
        ns.create("/" + here, FileType.FILE, false, false, 0, CLIENT);
        Route moving = ns.rename("/" + here, "/" + nameOf(1, "y"));
        assertThat(moving.kind()).isEqualTo(Route.Kind.MOVE);
        FileMove move = moving.move();
        assertThat(move.to()).as("a move to the new name's namenode, for the caller to carry out").isEqualTo(1);
        ns.abortMove(move);
        String alsoHere = nameOf(0, "z");
        assertThat(ns.rename("/" + here, "/" + alsoHere)).isSameAs(Route.done());
        assertThat(ns.getFile("/" + alsoHere).isFile()).isTrue();
        assertThat(ns.delete("/" + alsoHere, false)).isSameAs(Route.done());
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> ns.getFile("/" + alsoHere));
    }

    @Test
    void eachPartitionListsItsOwnFilesAndASingleNamenodeEverything() throws Exception {
        NamenodeService single = new NamenodeService(new ManualClock(), Fixture.BLOCK, Fixture.LEASE_TIMEOUT,
                Fixture.DATANODE_TIMEOUT, BlockTokens.random());
        single.namespace().mkdirs("/sub");
        assertThat(single.namespace().list("/", "", 10).entries()).extracting(FileStatus::name).containsExactly("sub");
        NamenodeService nn1 = partition(1);
        String mine = nameOf(1, "f");
        nn1.namespace().create("/" + mine, FileType.FILE, false, false, 0, CLIENT);
        assertThat(nn1.namespace().list("/", "", 10).entries()).extracting(FileStatus::name).containsExactly(mine);
    }

    @Test
    void directoriesArriveFromTheCoordinatorWithItsIdsAndTheArbiterRefusesAFileName() throws Exception {
        Namespace ns = partition(1).namespace();
        io.tarn.common.fs.Ownership own = new io.tarn.common.fs.Ownership("ann", "g", 0755);
        FileStatus d = ns.applyMkdir("/", "d", FileIds.directory(77), own, 1234);
        assertThat(d.fileId()).isEqualTo(FileIds.directory(77));
        assertThat(d.ownership()).isEqualTo(own);
        assertThat(d.creationTime()).isEqualTo(1234);
        assertThat(ns.applyMkdir("/", "d", FileIds.directory(77), own, 9999)).as("again: as it is").isEqualTo(d);
        failsWith(ErrorCode.INTERNAL, () -> ns.applyMkdir("/", "d", FileIds.directory(78), own, 1));
        String file = nameOf(1, "f");
        ns.create("/d/" + file, FileType.FILE, false, false, 0, CLIENT);
        failsWith(ErrorCode.FILE_EXISTS, () -> ns.applyMkdir("/d", file, FileIds.directory(79), own, 1));
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> ns.applyMkdir("/nope", "x", FileIds.directory(80), own, 1));
    }

    @Test
    void theMapNamesEveryNamenodeAndWhoAnswered() {
        assertThat(partition(1).partitionMap()).isEqualTo(new PartitionMap(1, List.of("nn0:9060", "nn1:9061")));
    }
}
