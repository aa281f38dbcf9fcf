package io.tarn.namenode.namespace;

import io.tarn.common.config.HostPort;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Partitions;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.security.BlockTokens;
import io.tarn.namenode.Fixture;
import io.tarn.namenode.ManualClock;
import io.tarn.namenode.NamenodeService;
import io.tarn.namenode.Partitioning;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The routing decision the namespace returns for changes that may belong elsewhere (set
 * attributes, delete, rename): what each kind carries, and which one a real namespace of one or
 * of two partitions decides, with nothing changed when the change goes elsewhere.
 */
class RouteTest {
    private static final List<HostPort> TWO = List.of(new HostPort("nn0", 9060), new HostPort("nn1", 9061));
    private static final long CLIENT = 7;
    private static final Ownership OWN = new Ownership("ann", "g", 0755);

    /** Partition {@code p} of two, with directory {@code /d} as the coordinator would have made it. */
    private static Namespace partition(int p) throws Exception {
        Namespace ns = new NamenodeService(new ManualClock(), Fixture.BLOCK, Fixture.LEASE_TIMEOUT,
                Fixture.DATANODE_TIMEOUT, BlockTokens.random(), new Partitioning(p, TWO)).namespace();
        ns.applyMkdir("/", "d", ns.newDirectoryId(), OWN, 1);
        return ns;
    }

    /** A name that hashes to {@code p} of 2. */
    private static String nameOf(int p, String prefix) {
        for (int i = 0; ; i++) {
            if (Partitions.ofName(prefix + i, 2) == p) {
                return prefix + i;
            }
        }
    }

    private static SetAttributesRequest mtime(String path, long time) {
        return new SetAttributesRequest(path, NamenodeProtocol.SET_MTIME, Ownership.UNSPECIFIED, time, 0);
    }

    @Test
    void eachKindCarriesItsOwnPartAndRefusesTheOthers() throws Exception {
        Route done = Route.done();
        assertThat(done.kind()).isEqualTo(Route.Kind.DONE);
        assertThat(done.status()).as("nothing to answer but success").isNull();
        assertThat(Route.done()).as("shared: a change made here allocates nothing").isSameAs(done);
        assertThatThrownBy(done::move).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(done::reason).isInstanceOf(IllegalStateException.class);

        FileStatus status = new Fixture().nn.namespace().mkdirs("/x");
        Route withStatus = Route.done(status);
        assertThat(withStatus.kind()).isEqualTo(Route.Kind.DONE);
        assertThat(withStatus.status()).isSameAs(status);

        Route coordinator = Route.toCoordinator("deleting directory '/d' goes through namenode 0");
        assertThat(coordinator.kind()).isEqualTo(Route.Kind.COORDINATOR);
        assertThat(coordinator.reason()).isEqualTo("deleting directory '/d' goes through namenode 0");
        assertThatThrownBy(coordinator::status).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("COORDINATOR");
        assertThatThrownBy(coordinator::move).isInstanceOf(IllegalStateException.class);
        assertThat(coordinator).hasToString("COORDINATOR: deleting directory '/d' goes through namenode 0");

        Namespace ns = partition(0);
        String src = "/d/" + nameOf(0, "f");
        ns.create(src, FileType.FILE, false, false, 0, CLIENT);
        Route move = ns.rename(src, "/d/" + nameOf(1, "g"));
        assertThat(move.kind()).isEqualTo(Route.Kind.MOVE);
        assertThat(move.move().srcPath()).isEqualTo(src);
        assertThatThrownBy(move::status).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(move::reason).isInstanceOf(IllegalStateException.class);
        ns.abortMove(move.move());

        assertThatThrownBy(() -> Route.done(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Route.toCoordinator(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> Route.move(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void aSingleNamenodeMakesEveryChangeItself() throws Exception {
        Namespace ns = new Fixture().nn.namespace();
        ns.mkdirs("/a/b");
        Route attrs = ns.setAttributes(mtime("/a", 42));
        assertThat(attrs.kind()).isEqualTo(Route.Kind.DONE);
        assertThat(attrs.status().modificationTime()).isEqualTo(42);
        assertThat(ns.getFile("/a").modificationTime()).isEqualTo(42);
        assertThat(ns.rename("/a", "/c")).isSameAs(Route.done());
        assertThat(ns.getFile("/c/b").isDirectory()).isTrue();
        assertThat(ns.delete("/c", true)).isSameAs(Route.done());
        assertThat(ns.find("/c")).isNull();
    }

    @Test
    void severalNamenodesSendDirectoryChangesToTheCoordinatorAndChangeNothingHere() throws Exception {
        for (int p = 0; p < 2; p++) {
            Namespace ns = partition(p);
            long mtime = ns.getFile("/d").modificationTime();
            String coordinator = "' goes through namenode 0 (nn0:9060)";

            Route attrs = ns.setAttributes(mtime("/d", 42));
            assertThat(attrs.kind()).isEqualTo(Route.Kind.COORDINATOR);
            assertThat(attrs.reason()).isEqualTo("changing the attributes of directory '/d" + coordinator);
            Route delete = ns.delete("/d", true);
            assertThat(delete.kind()).isEqualTo(Route.Kind.COORDINATOR);
            assertThat(delete.reason()).isEqualTo("deleting directory '/d" + coordinator);
            Route rename = ns.rename("/d", "/e");
            assertThat(rename.kind()).isEqualTo(Route.Kind.COORDINATOR);
            assertThat(rename.reason()).isEqualTo("renaming directory '/d" + coordinator);

            assertThat(ns.getFile("/d").modificationTime()).as("nothing changed here").isEqualTo(mtime);
            assertThat(ns.find("/e")).isNull();
        }
    }

    @Test
    void severalNamenodesChangeTheirOwnFilesHereAndMoveARenamedOneAway() throws Exception {
        Namespace ns = partition(1);
        String f = "/d/" + nameOf(1, "f");
        ns.create(f, FileType.FILE, false, false, 0, CLIENT);
        Route attrs = ns.setAttributes(mtime(f, 42));
        assertThat(attrs.kind()).isEqualTo(Route.Kind.DONE);
        assertThat(attrs.status().modificationTime()).isEqualTo(42);

        String same = "/d/" + nameOf(1, "g");
        assertThat(ns.rename(f, same)).as("a new name this partition owns").isSameAs(Route.done());
        String away = "/d/" + nameOf(0, "h");
        Route move = ns.rename(same, away);
        assertThat(move.kind()).isEqualTo(Route.Kind.MOVE);
        assertThat(move.move().to()).isEqualTo(0);
        assertThat(move.move().targetPath()).isEqualTo(away);
        failsWith(ErrorCode.RETRY, () -> ns.getFile(same));
        ns.abortMove(move.move());
        assertThat(ns.getFile(same).isFile()).as("an aborted move leaves the file").isTrue();

        assertThat(ns.delete(same, false)).isSameAs(Route.done());
        assertThat(ns.find(same)).isNull();
    }

    @Test
    void realErrorsAreStillThrownWhateverTheRoute() throws Exception {
        Namespace ns = partition(0);
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> ns.setAttributes(mtime("/missing", 1)));
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> ns.delete("/missing", false));
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> ns.rename("/missing", "/x"));
        failsWith(ErrorCode.INVALID_ARGUMENT, () -> ns.setAttributes(mtime("/d", -1)));
        String f = "/d/" + nameOf(0, "f");
        ns.create(f, FileType.FILE, false, false, 0, CLIENT);
        assertThat(failsWith(ErrorCode.PARENT_NOT_FOUND, () -> ns.rename(f, "/nowhere/" + nameOf(1, "x"))))
                .contains("'/nowhere'");
    }
}
