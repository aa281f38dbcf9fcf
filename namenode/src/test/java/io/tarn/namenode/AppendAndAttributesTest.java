package io.tarn.namenode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.namenode.blocks.StorageId;
import io.tarn.namenode.namespace.Namespace;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.tarn.common.protocol.NamenodeProtocol.SET_ATIME;
import static io.tarn.common.protocol.NamenodeProtocol.SET_GROUP;
import static io.tarn.common.protocol.NamenodeProtocol.SET_MTIME;
import static io.tarn.common.protocol.NamenodeProtocol.SET_OWNER;
import static io.tarn.common.protocol.NamenodeProtocol.SET_PERMISSION;
import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/** Reopening closed files for append, and stored owner, group, permission and times. */
class AppendAndAttributesTest {
    private static final long WRITER = 0xA1;
    private static final long OTHER = 0xB2;
    private final Fixture fx = new Fixture();
    private final Namespace ns = fx.nn.namespace();

    @BeforeEach
    void datanode() throws Exception {
        fx.datanode(1, "h", 1, 0, 1, 16, false);
    }

    private FileStatus append(String path, long client) throws Exception {
        return fx.nn.files().reopen(ns.file(path), client);
    }

    // ------------------------------------------------------------------ append

    @Test
    void appendReopensAtTheEndAndKeepsThePartlyFilledLastBlock() throws Exception {
        long f = fx.create("/f", WRITER).fileId();
        BlockRef first = fx.write(f, 0, WRITER);
        fx.nn.files().close(f, WRITER, 100);

        FileStatus reopened = append("/f", OTHER);
        assertThat(reopened.fileId()).isEqualTo(f);
        assertThat(reopened.size()).isEqualTo(100);
        assertThat(reopened.underConstruction()).isTrue();
        BlockRef again = fx.write(f, 0, OTHER);
        assertThat(again.regionId()).isEqualTo(first.regionId());
        assertThat(again.blockIndex()).isEqualTo(first.blockIndex());
        assertThat(again.generation()).as("same block, same data").isEqualTo(first.generation());
        assertThat(again.writable()).isTrue();
        fx.write(f, 1, OTHER);
        FileStatus closed = fx.nn.files().close(f, OTHER, Fixture.BLOCK + 10);
        assertThat(closed.size()).isEqualTo(Fixture.BLOCK + 10);
        assertThat(closed.underConstruction()).isFalse();
        assertThat(fx.nn.leases().fileCount()).isZero();
    }

    @Test
    void appendConflictsWithAnOpenWriterItselfIncluded() throws Exception {
        long f = fx.create("/f", WRITER).fileId();
        assertThat(failsWith(ErrorCode.LEASE_CONFLICT, () -> append("/f", OTHER)))
                .contains("/f").contains(Long.toHexString(WRITER));
        assertThat(failsWith(ErrorCode.LEASE_CONFLICT, () -> append("/f", WRITER)))
                .contains("already open for writing by this client");
        fx.nn.files().close(f, WRITER, 0);
        append("/f", OTHER);
        failsWith(ErrorCode.LEASE_CONFLICT, () -> fx.write(f, 0, WRITER));
    }

    @Test
    void appendToMissingFileOrDirectoryFails() throws Exception {
        ns.mkdirs("/d");
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> append("/nope", WRITER));
        failsWith(ErrorCode.IS_A_DIRECTORY, () -> append("/d", WRITER));
    }

    @Test
    void anAppenderThatDiesKeepsWhatItReportedAndNothingIsLost() throws Exception {
        long f = fx.create("/f", WRITER).fileId();
        fx.write(f, 0, WRITER);
        fx.nn.files().close(f, WRITER, 1000);
        append("/f", OTHER);
        fx.nn.files().getBlock(f, 1, true, OTHER, "", 1500);
        fx.clock.advance(Fixture.LEASE_TIMEOUT + 1);
        fx.nn.datanodes().heartbeat(1, new StorageId(0, 1));
        fx.nn.runMaintenance();
        FileStatus s = ns.getFile("/f");
        assertThat(s.underConstruction()).isFalse();
        assertThat(s.size()).as("the appender's reported bytes, never less than before").isEqualTo(1500);
        failsWith(ErrorCode.LEASE_EXPIRED, () -> fx.write(f, 1, OTHER));
        // The file can be appended to again, by anyone.
        assertThat(append("/f", WRITER).size()).isEqualTo(1500);
    }

    @Test
    void blockLocationsInOneCallAreCappedPerCall() throws Exception {
        fx.datanode(2, "h2", 2, 0, 2, 4096, false);
        long f = fx.create("/big", WRITER).fileId();
        int blocks = NamenodeProtocol.MAX_BLOCKS_PER_CALL + 10;
        for (int i = 0; i < blocks; i++) {
            fx.write(f, i, WRITER);
        }
        fx.nn.files().close(f, WRITER, (long) blocks * Fixture.BLOCK);
        assertThat(fx.nn.files().getBlocks(f, 0, Integer.MAX_VALUE)).hasSize(NamenodeProtocol.MAX_BLOCKS_PER_CALL);
        assertThat(fx.nn.files().getBlocks(f, NamenodeProtocol.MAX_BLOCKS_PER_CALL, 100)).hasSize(10)
                .allMatch(b -> !b.writable());
        assertThat(fx.nn.files().getBlocks(f, blocks, 1)).isEmpty();
        assertThat(fx.nn.files().getBlocks(f, 3, 1).get(0)).isEqualTo(fx.read(f, 3));
    }

    // ------------------------------------------------------------------ ownership and times

    @Test
    void unspecifiedOwnershipComesFromTheParentAndTheDefaults() throws Exception {
        FileStatus root = ns.getFile("/");
        assertThat(root.group()).isEqualTo(Namespace.ROOT_GROUP);
        assertThat(root.permission()).isEqualTo(0755);
        ns.mkdirs("/team", new Ownership("ann", "analysts", 0770));
        FileStatus file = ns.create("/team/f", FileType.FILE, false, false, 0, WRITER,
                new Ownership("bob", "", Ownership.DEFAULT_PERMISSION));
        assertThat(file.ownership()).isEqualTo(new Ownership("bob", "analysts", Ownership.FILE_DEFAULT));
        FileStatus dir = ns.mkdirs("/team/sub", Ownership.UNSPECIFIED);
        assertThat(dir.ownership()).isEqualTo(new Ownership("ann", "analysts", Ownership.DIRECTORY_DEFAULT));
    }

    @Test
    void missingParentsGetOwnerWriteAndSearchAdded() throws Exception {
        FileStatus leaf = ns.mkdirs("/a/b/c", new Ownership("ann", "g", 0444));
        assertThat(leaf.permission()).isEqualTo(0444);
        assertThat(ns.getFile("/a").permission()).isEqualTo(0744);
        assertThat(ns.getFile("/a/b").ownership()).isEqualTo(new Ownership("ann", "g", 0744));
        // An existing directory keeps its ownership.
        assertThat(ns.mkdirs("/a", new Ownership("zed", "z", 0700)).ownership())
                .isEqualTo(new Ownership("ann", "g", 0744));
        ns.create("/x/y/f", FileType.FILE, false, true, 0, WRITER, new Ownership("cy", "cg", 0600));
        assertThat(ns.getFile("/x/y").ownership()).isEqualTo(new Ownership("cy", "cg", Ownership.DIRECTORY_DEFAULT));
        assertThat(ns.getFile("/x/y/f").permission()).isEqualTo(0600);
    }

    @Test
    void setAttributesChangesOnlyWhatTheMaskNames() throws Exception {
        ns.create("/f", FileType.FILE, false, false, 0, WRITER, new Ownership("ann", "g", 0640));
        FileStatus before = ns.getFile("/f");
        FileStatus owner = ns.setAttributes(new SetAttributesRequest("/f", SET_OWNER,
                new Ownership("bob", "ignored", 0777), -5, -5)).status();
        assertThat(owner.ownership()).isEqualTo(new Ownership("bob", "g", 0640));
        assertThat(owner.modificationTime()).isEqualTo(before.modificationTime());
        FileStatus rest = ns.setAttributes(new SetAttributesRequest("/f", SET_GROUP | SET_PERMISSION | SET_MTIME
                | SET_ATIME, new Ownership("", "staff", 01700), 1234, 5678)).status();
        assertThat(rest.ownership()).isEqualTo(new Ownership("bob", "staff", 01700));
        assertThat(rest.modificationTime()).isEqualTo(1234);
        assertThat(rest.accessTime()).isEqualTo(5678);
        assertThat(ns.list("/", "", 10).entries().get(0)).isEqualTo(rest);
        // Directories too.
        ns.mkdirs("/d");
        assertThat(ns.setAttributes(new SetAttributesRequest("/d", SET_MTIME, Ownership.UNSPECIFIED, 42, 0))
                .status().modificationTime()).isEqualTo(42);
    }

    @Test
    void badAttributeChangesAreRejectedAndChangeNothing() throws Exception {
        ns.create("/f", FileType.FILE, false, false, 0, WRITER, new Ownership("ann", "g", 0640));
        FileStatus before = ns.getFile("/f");
        failsWith(ErrorCode.INVALID_ARGUMENT, () -> ns.setAttributes(
                new SetAttributesRequest("/f", SET_OWNER, Ownership.UNSPECIFIED, 0, 0)));
        failsWith(ErrorCode.INVALID_ARGUMENT, () -> ns.setAttributes(
                new SetAttributesRequest("/f", SET_PERMISSION, Ownership.UNSPECIFIED, 0, 0)));
        failsWith(ErrorCode.INVALID_ARGUMENT, () -> ns.setAttributes(
                new SetAttributesRequest("/f", SET_MTIME | SET_OWNER, new Ownership("x", "", 0), -1, 0)));
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> ns.setAttributes(
                new SetAttributesRequest("/nope", NamenodeProtocol.SET_MTIME, Ownership.UNSPECIFIED, 1, 1)));
        assertThat(ns.getFile("/f")).isEqualTo(before);
    }
}
