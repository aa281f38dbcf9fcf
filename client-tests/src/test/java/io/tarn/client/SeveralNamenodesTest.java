package io.tarn.client;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Partitions;
import io.tarn.namenode.Namenode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A client against two real namenodes over loopback, as far as several namenodes are built
 * (docs/partitioning.md): discovery from one address, routing by name and by id, merged listings,
 * directories created through the coordinator on both, and clear refusals of what the coordinator
 * does not do yet. Files here are empty: no datanode is involved.
 */
class SeveralNamenodesTest {
    private final List<Namenode> namenodes = new ArrayList<>();
    private String addresses;
    private TarnClient client;

    @BeforeEach
    void start() throws IOException {
        addresses = "127.0.0.1:" + freePort() + ",127.0.0.1:" + freePort();
        for (int p = 0; p < 2; p++) {
            namenodes.add(Namenode.start(TarnConfig.builder().set(TarnKeys.NAMENODE_ADDRESS, addresses)
                    .set(TarnKeys.NAMENODE_PARTITION, p).set("tarn.transport", "tcp")
                    .set("tarn.namenode.journal", "none").build()));
        }
        // The client knows only the second namenode; it learns the first from it.
        String second = addresses.substring(addresses.indexOf(',') + 1);
        client = TarnClient.connect(TarnConfig.builder().set(TarnKeys.NAMENODE_ADDRESS, second)
                .set("tarn.transport", "tcp").set(TarnKeys.RPC_TIMEOUT, 5_000L).build());
    }

    @AfterEach
    void stop() {
        client.close();
        namenodes.forEach(Namenode::close);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private void touch(String path) throws IOException {
        client.create(path, CreateOptions.OVERWRITE).close();
    }

    /** A name that hashes to partition {@code p} of 2. */
    private static String nameOf(int p, String prefix) {
        for (int i = 0; ; i++) {
            if (Partitions.ofName(prefix + i, 2) == p) {
                return prefix + i;
            }
        }
    }

    @Test
    void filesOfOneDirectorySpreadOverBothAndListOnceInOrder() throws IOException {
        List<String> names = new ArrayList<>();
        for (int m = 0; m < 40; m++) {
            String name = "shuffle_0_" + m + "_0.data";
            names.add(name);
            touch("/" + name);
        }
        for (String name : names) {
            FileStatus s = client.getStatus("/" + name);
            assertThat(FileIds.partition(s.fileId())).as(name).isEqualTo(Partitions.ofName(name, 2));
        }
        assertThat(namenodes.get(0).fileCount()).isPositive();
        assertThat(namenodes.get(1).fileCount()).isPositive();
        assertThat(namenodes.get(0).fileCount() + namenodes.get(1).fileCount()).isEqualTo(40);
        List<String> listed = client.list("/").stream().map(FileStatus::name).toList();
        assertThat(listed).containsExactlyElementsOf(names.stream().sorted().toList());

        String one = names.get(0);
        assertThat(client.list("/" + one)).extracting(FileStatus::name).containsExactly(one);
        assertThatThrownBy(() -> client.list("/nothing-here")).isInstanceOf(java.io.FileNotFoundException.class);
        for (String name : names) {
            assertThat(client.delete("/" + name, false)).isTrue();
        }
        assertThat(client.list("/")).isEmpty();
        assertThat(client.delete("/" + one, false)).isFalse();
    }

    @Test
    void filesRenameWithinAPartitionAndMoveToTheNamenodeOfTheirNewName() throws IOException {
        String a = nameOf(1, "a");
        String sameSide = nameOf(1, "b");
        String otherSide = nameOf(0, "c");
        touch("/" + a);
        client.setPermission("/" + a, 0640);
        client.rename("/" + a, "/" + sameSide);
        assertThat(client.exists("/" + a)).isFalse();
        assertThat(client.exists("/" + sameSide)).isTrue();
        FileStatus before = client.getStatus("/" + sameSide);
        client.rename("/" + sameSide, "/" + otherSide);
        assertThat(client.exists("/" + sameSide)).isFalse();
        FileStatus moved = client.getStatus("/" + otherSide);
        assertThat(FileIds.partition(moved.fileId())).as("it lives at the new name's namenode").isZero();
        assertThat(moved.permission()).isEqualTo(0640);
        assertThat(moved.modificationTime()).isEqualTo(before.modificationTime());
        assertThat(moved.owner()).isEqualTo(before.owner());
        assertThat(namenodes.get(1).fileCount()).isZero();
        assertThat(namenodes.get(0).fileCount()).isEqualTo(1);
        assertThat(client.list("/")).extracting(FileStatus::name).containsExactly(otherSide);
        touch("/" + sameSide);
        assertThatThrownBy(() -> client.rename("/" + sameSide, "/" + otherSide))
                .isInstanceOf(io.tarn.common.error.FileExistsException.class).hasMessageContaining("/" + otherSide);
        assertThat(client.exists("/" + sameSide)).as("nothing lost").isTrue();
        assertThatThrownBy(() -> client.rename("/" + sameSide, "/no/such/" + otherSide))
                .isInstanceOf(java.io.FileNotFoundException.class).hasMessageContaining("/no/such");
        assertThat(client.list("/")).extracting(FileStatus::name).containsExactlyInAnyOrder(sameSide, otherSide);
        assertThat(client.delete("/" + sameSide, false)).isTrue();
        assertThat(client.delete("/" + otherSide, false)).isTrue();
        client.mkdirs("/dir");
        assertThat(client.delete("/dir", false)).as("rmdir of an empty directory").isTrue();
        for (Namenode nn : namenodes) {
            assertThat(nn.service().namespace().find("/dir")).isNull();
        }
    }

    @Test
    void directoriesAreCreatedOnEveryNamenodeAndHoldFilesOfBoth() throws IOException {
        FileStatus made = client.mkdirs("/jobs/shuffle", new io.tarn.common.fs.Ownership("ann", "staff", 0750));
        for (Namenode nn : namenodes) {
            FileStatus there = nn.service().namespace().getFile("/jobs/shuffle");
            assertThat(there).as("the same directory on every namenode").isEqualTo(made);
            assertThat(nn.service().namespace().getFile("/jobs").permission()).isEqualTo(0750 | 0300);
        }
        for (int m = 0; m < 20; m++) {
            touch("/jobs/shuffle/shuffle_1_" + m + "_0.index");
        }
        assertThat(namenodes.get(0).fileCount()).isPositive();
        assertThat(namenodes.get(1).fileCount()).isPositive();
        assertThat(client.list("/jobs/shuffle")).hasSize(20);
        assertThat(client.list("/jobs")).extracting(FileStatus::name).containsExactly("shuffle");
        assertThat(client.list("/")).extracting(FileStatus::name).containsExactly("jobs");

        touch("/made/on/the/way/f");
        for (Namenode nn : namenodes) {
            assertThat(nn.service().namespace().getFile("/made/on/the/way").isDirectory()).isTrue();
        }
        assertThatThrownBy(() -> client.mkdir("/missing/child", io.tarn.common.fs.Ownership.UNSPECIFIED))
                .isInstanceOf(java.io.FileNotFoundException.class);
        String fileName = nameOf(1, "taken");
        touch("/jobs/" + fileName);
        assertThatThrownBy(() -> client.mkdirs("/jobs/" + fileName))
                .isInstanceOf(io.tarn.common.error.FileExistsException.class);
        assertThat(client.getStatus("/jobs/" + fileName).isFile()).as("the file stays").isTrue();

        assertThat(client.delete("/jobs", true)).isTrue();
        assertThat(client.exists("/jobs/shuffle")).isFalse();
        for (Namenode nn : namenodes) {
            assertThat(nn.service().namespace().find("/jobs")).as("gone from every namenode").isNull();
        }
        assertThat(namenodes.get(0).fileCount() + namenodes.get(1).fileCount()).as("only /made/.../f is left")
                .isEqualTo(1);
        assertThat(client.delete("/jobs", true)).as("already gone").isFalse();
        assertThatThrownBy(() -> client.delete("/", true)).isInstanceOf(TarnException.class)
                .hasMessageContaining("'/' is the root directory, which cannot be deleted");
        for (FileStatus entry : client.list("/")) {
            assertThat(client.delete("/" + entry.name(), true)).isTrue();
        }
        assertThat(client.list("/")).isEmpty();
        assertThat(namenodes.get(0).fileCount() + namenodes.get(1).fileCount()).isZero();
    }

    @Test
    void directoryRenamesMoveTheTreeOnEveryNamenodeAndItsFilesStay() throws IOException {
        client.mkdirs("/job/_temporary/attempt_0");
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            names.add("part-" + i);
            touch("/job/_temporary/attempt_0/part-" + i);
        }
        client.mkdirs("/job/output");
        // A committer's move: the attempt directory into the output directory.
        client.rename("/job/_temporary/attempt_0", "/job/output");
        for (Namenode nn : namenodes) {
            assertThat(nn.service().namespace().find("/job/output/attempt_0")).isNotNull();
            assertThat(nn.service().namespace().find("/job/_temporary/attempt_0")).isNull();
        }
        assertThat(client.list("/job/output/attempt_0")).extracting(FileStatus::name)
                .containsExactlyElementsOf(names.stream().sorted().toList());
        client.rename("/job/output/attempt_0", "/job/final");
        assertThat(client.getStatus("/job/final/part-3").isFile()).isTrue();

        assertThatThrownBy(() -> client.rename("/job", "/job/final/inside"))
                .isInstanceOfSatisfying(TarnError.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.RENAME_INVALID));
        String fileName = nameOf(1, "occupied");
        touch("/job/" + fileName);
        assertThatThrownBy(() -> client.rename("/job/final", "/job/" + fileName))
                .isInstanceOf(io.tarn.common.error.FileExistsException.class);
        for (Namenode nn : namenodes) {
            assertThat(nn.service().namespace().find("/job/final")).as("nothing moved").isNotNull();
        }
        assertThatThrownBy(() -> client.rename("/nope", "/x")).isInstanceOf(java.io.FileNotFoundException.class);

        FileStatus changed = client.setPermission("/job/final", 0700);
        client.setOwner("/job/final", "bob", "ops");
        for (Namenode nn : namenodes) {
            assertThat(nn.service().namespace().getFile("/job/final").ownership())
                    .isEqualTo(new io.tarn.common.fs.Ownership("bob", "ops", 0700));
        }
        assertThat(changed.permission()).isEqualTo(0700);
        assertThat(client.setTimes("/job/final/part-3", 5, 6).modificationTime()).as("files: at their namenode")
                .isEqualTo(5);
    }

    @Test
    void rmdirSeesEntriesOnEveryNamenodeAndChangesNothingWhenNotEmpty() throws IOException {
        client.mkdirs("/r/sub");
        String onOne = nameOf(1, "f");
        touch("/r/sub/" + onOne);
        assertThatThrownBy(() -> client.delete("/r/sub", false))
                .isInstanceOf(io.tarn.common.error.DirectoryNotEmptyException.class)
                .hasMessageContaining("namenode 1");
        assertThatThrownBy(() -> client.delete("/r", false))
                .isInstanceOf(io.tarn.common.error.DirectoryNotEmptyException.class);
        // Unsealed everywhere: creates go on in both.
        touch("/r/sub/" + nameOf(0, "g"));
        touch("/r/sub/" + nameOf(1, "h"));
        assertThat(client.list("/r/sub")).hasSize(3);
        assertThatThrownBy(() -> client.delete("/", false))
                .isInstanceOf(io.tarn.common.error.DirectoryNotEmptyException.class);
        assertThat(client.delete("/r", true)).isTrue();
        assertThat(client.delete("/", false)).as("an empty root: nothing to do").isTrue();
    }

    @Test
    void createsRacingAnRmdirEitherWinOrFindTheDirectoryGoneNeverInsideADeletedOne() throws Exception {
        for (int round = 0; round < 20; round++) {
            String dir = "/race" + round;
            client.mkdirs(dir);
            String name = nameOf(round % 2, "file");
            java.util.concurrent.CompletableFuture<TarnOutputStream> create =
                    client.createAsync(dir + "/" + name, new CreateOptions(false, false, -1));
            java.util.concurrent.CompletableFuture<Boolean> rmdir = client.deleteAsync(dir, false);
            Throwable createFailure = null;
            try {
                create.join().close();
            } catch (java.util.concurrent.CompletionException e) {
                createFailure = e.getCause();
            }
            Throwable rmdirFailure = null;
            try {
                rmdir.join();
            } catch (java.util.concurrent.CompletionException e) {
                rmdirFailure = e.getCause();
            }
            if (createFailure == null) {
                assertThat(rmdirFailure).as("round %d: the create won, so the rmdir fails", round)
                        .isInstanceOf(io.tarn.common.error.DirectoryNotEmptyException.class);
                assertThat(client.exists(dir + "/" + name)).isTrue();
            } else {
                assertThat(createFailure).as("round %d", round).isInstanceOf(java.io.FileNotFoundException.class);
                assertThat(rmdirFailure).isNull();
                assertThat(client.exists(dir)).isFalse();
            }
            for (Namenode nn : namenodes) {
                io.tarn.namenode.namespace.Inode there = nn.service().namespace().find(dir);
                assertThat(there == null).as("round %d: the same answer on every namenode", round)
                        .isEqualTo(createFailure != null);
            }
        }
    }

    @Test
    void withANamenodeDownDirectoriesCannotChangeAndTheErrorSaysWhich() throws IOException {
        String second = addresses.substring(addresses.indexOf(',') + 1);
        assertThat(client.list("/")).as("the client knows both namenodes").isEmpty();
        namenodes.get(1).close();
        assertThatThrownBy(() -> client.mkdirs("/d")).isInstanceOf(IOException.class)
                .hasMessageContaining("namenode 1").hasMessageContaining(second);
    }

    @Test
    void aStoppedNamenodeFailsWhatItOwnsAndNamesItWhileTheOtherGoesOn() throws IOException {
        String onZero = nameOf(0, "z");
        String onOne = nameOf(1, "o");
        touch("/" + onZero);
        touch("/" + onOne);
        String second = addresses.substring(addresses.indexOf(',') + 1);
        namenodes.get(1).close();
        assertThat(client.getStatus("/" + onZero).name()).isEqualTo(onZero);
        assertThatThrownBy(() -> client.getStatus("/" + onOne)).isInstanceOf(IOException.class)
                .hasMessageContaining(second.substring(second.indexOf(':') + 1));
        touch("/" + nameOf(0, "again"));
    }

    @Test
    void aDirectoryShowsTheLatestChangeOfEveryNamenodeAndListsOnce() throws IOException {
        client.mkdirs("/d/sub");
        client.setTimes("/d", 1_000, 2_000);
        assertThat(client.getStatus("/d").modificationTime()).isEqualTo(1_000);
        // A file created on each namenode in turn: whichever namenode answers for "/d", it shows the change.
        for (int p = 0; p < 2; p++) {
            client.setTimes("/d", 1_000, 2_000);
            long before = System.currentTimeMillis();
            touch("/d/" + nameOf(p, "f"));
            assertThat(client.getStatus("/d").modificationTime()).as("after a create on namenode %d", p)
                    .isGreaterThanOrEqualTo(before);
            FileStatus listed = client.list("/").get(0);
            assertThat(listed.name()).isEqualTo("d");
            assertThat(listed.modificationTime()).isEqualTo(client.getStatus("/d").modificationTime());
        }
        assertThat(client.list("/")).extracting(FileStatus::name).containsExactly("d");
        assertThat(client.list("/d")).extracting(FileStatus::name)
                .containsExactlyInAnyOrder("sub", nameOf(0, "f"), nameOf(1, "f"));
    }

    private Namenode restart(int p) throws IOException {
        namenodes.get(p).close();
        Namenode again = Namenode.start(TarnConfig.builder().set(TarnKeys.NAMENODE_ADDRESS, addresses)
                .set(TarnKeys.NAMENODE_PARTITION, p).set("tarn.transport", "tcp")
                .set("tarn.namenode.journal", "none").build());
        namenodes.set(p, again);
        // The client's connection to the old process is dead. A read-only call on it is sent again on
        // a new connection (this one); a call that changes something would fail once with
        // CONNECTION_LOST, since the client cannot know whether the old process carried it out.
        for (java.util.concurrent.CompletableFuture<?> status : client.clusterStatusOfEach().values()) {
            assertThat(status).succeedsWithin(java.time.Duration.ofSeconds(5));
        }
        return again;
    }

    @Test
    void aRestartedNamenodeCopiesTheDirectoryTreeBeforeItServes() throws IOException {
        client.mkdirs("/a/b");
        client.mkdirs("/c");
        client.setPermission("/c", 0700);
        touch("/a/b/" + nameOf(0, "zero"));
        touch("/a/b/" + nameOf(1, "one"));
        io.tarn.namenode.namespace.Inode b0 = namenodes.get(0).service().namespace().find("/a/b");

        Namenode one = restart(1);
        io.tarn.namenode.namespace.Inode b1 = one.service().namespace().find("/a/b");
        assertThat(b1).as("the tree is back on the restarted namenode").isNotNull();
        assertThat(b1.id()).isEqualTo(b0.id());
        assertThat(one.service().namespace().getFile("/c").permission()).isEqualTo(0700);
        assertThat(one.fileCount()).as("its files are gone: namenodes keep no disk state").isZero();
        assertThat(client.exists("/a/b/" + nameOf(1, "one"))).isFalse();
        assertThat(client.exists("/a/b/" + nameOf(0, "zero"))).as("the other namenode's files stay").isTrue();
        touch("/a/b/" + nameOf(1, "again"));
        client.mkdirs("/d/e");
        assertThat(one.service().namespace().find("/d/e")).isNotNull();

        // The coordinator itself restarts: it copies the tree from namenode 1 and hands out directory
        // ids after the copied ones.
        Namenode zero = restart(0);
        io.tarn.namenode.namespace.Inode e = zero.service().namespace().find("/d/e");
        assertThat(e).isNotNull();
        client.mkdirs("/f");
        long f = zero.service().namespace().find("/f").id();
        assertThat(FileIds.sequence(f)).isGreaterThan(FileIds.sequence(e.id()));
        assertThat(one.service().namespace().find("/f").id()).isEqualTo(f);
        assertThat(client.list("/")).extracting(FileStatus::name).containsExactly("a", "c", "d", "f");
        assertThat(client.list("/a/b")).extracting(FileStatus::name).containsExactly(nameOf(1, "again"));
    }
}
