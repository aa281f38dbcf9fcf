package io.tarn.datanode.dram;

import io.tarn.common.config.DramMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.protocol.ShortCircuitProtocol;
import io.tarn.datanode.OwnerOnly;
import io.tarn.datanode.StorageDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A DRAM datanode's storage is its user's alone: what it creates is mode 0600 (directories 0700),
 * another local user cannot read a region file (a real process run as {@code nobody}), and a storage
 * root or an abandoned storage directory another user could change is refused, not adopted.
 */
class StorageSafetyTest {
    private static final long MIB = 1 << 20;

    @TempDir
    Path tmp;

    private static TarnConfig config(DramMode mode, Path path) {
        return TarnConfig.builder()
                .set(TarnKeys.BLOCK_SIZE, 64L << 10)
                .set(TarnKeys.DRAM_REGION_SIZE, MIB)
                .set(TarnKeys.DRAM_CAPACITY, 2 * MIB)
                .set(TarnKeys.DRAM_MODE, mode)
                .set(TarnKeys.DRAM_PATH, path.toString())
                .set(TarnKeys.DRAM_PRETOUCH, false)
                .build();
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static UserPrincipal nobody() throws IOException {
        return Files.getFileStore(Path.of("/")).supportsFileAttributeView("posix")
                ? Path.of("/").getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody") : null;
    }

    private static boolean root() {
        return "root".equals(OwnerOnly.self().getName());
    }

    @Test
    void everythingTheDatanodeCreatesIsItsUsersAlone() throws IOException {
        Path rootDir = tmp.resolve("new-root");
        DramStorage s = DramStorage.open(config(DramMode.MMAP, rootDir));
        try {
            Path dir = s.directory().orElseThrow();
            assertThat(mode(rootDir)).as("a root it made").isEqualTo("rwx------");
            assertThat(mode(dir)).isEqualTo("rwx------");
            List<Path> files;
            try (Stream<Path> f = Files.list(dir)) {
                files = f.toList();
            }
            assertThat(files).extracting(p -> p.getFileName().toString()).contains(StorageDirectory.LOCK_FILE,
                    DramStorage.GENERATIONS_FILE, ShortCircuitProtocol.regionFile(0),
                    ShortCircuitProtocol.regionFile(1));
            for (Path f : files) {
                assertThat(mode(f)).as("%s", f.getFileName()).isEqualTo("rw-------");
                assertThat(Files.getOwner(f)).isEqualTo(OwnerOnly.self());
            }
        } finally {
            s.close(true);
        }
    }

    @Test
    void anotherLocalUserCannotReadARegionFile() throws Exception {
        assumeTrue(root(), "running a process as another user (setpriv) needs root; this build runs as "
                + OwnerOnly.self().getName());
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")), "setpriv (util-linux) is not installed");
        Path open = Files.createDirectories(tmp.resolve("open"));
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        // The control: nobody reads a file the modes let it read, so a refusal below is the modes' doing.
        Path readable = Files.writeString(open.resolve("readable"), "anyone", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(readable, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(asNobody("cat", readable.toString())).startsWith("0:anyone");

        Path storageRoot = open.resolve("storage");
        DramStorage s = DramStorage.open(config(DramMode.MMAP, storageRoot));
        try {
            Path region = s.directory().orElseThrow().resolve(ShortCircuitProtocol.regionFile(0));
            assertThat(asNobody("cat", region.toString())).as("through the directories").doesNotStartWith("0:")
                    .contains("Permission denied");
            // Even with every directory on the way open, the file's own mode refuses.
            Files.setPosixFilePermissions(storageRoot, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.setPosixFilePermissions(region.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
            assertThat(asNobody("cat", region.toString())).doesNotStartWith("0:").contains("Permission denied");
            assertThat(asNobody("dd", "if=/dev/zero", "of=" + region, "bs=1", "count=1", "conv=notrunc"))
                    .doesNotStartWith("0:").contains("Permission denied");
        } finally {
            s.close(true);
        }
    }

    @Test
    void aRootAnotherUserOwnsIsRefused() throws IOException {
        assumeTrue(root(), "giving a directory to another user needs root; this build runs as "
                + OwnerOnly.self().getName());
        Path theirs = Files.createDirectories(tmp.resolve("theirs"));
        Files.setOwner(theirs, nobody());
        assertThatThrownBy(() -> DramStorage.open(config(DramMode.MMAP, theirs))).isInstanceOf(IOException.class)
                .hasMessageContaining("refusing storage root " + theirs).hasMessageContaining("belongs to user nobody");
        // Mode auto keeps the regions in memory instead: nothing of them is where that user can reach.
        DramStorage s = DramStorage.open(config(DramMode.AUTO, theirs));
        try {
            assertThat(s.backing()).isEqualTo(DramMode.DIRECT);
            try (Stream<Path> f = Files.list(theirs)) {
                assertThat(f.toList()).isEmpty();
            }
        } finally {
            s.close(true);
        }
    }

    @Test
    void aRootOthersMayWriteIsRefusedUnlessSticky() throws IOException {
        Path shared = Files.createDirectories(tmp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        assertThatThrownBy(() -> DramStorage.open(config(DramMode.MMAP, shared))).isInstanceOf(IOException.class)
                .hasMessageContaining("may be written by other users and is not sticky");
        Files.setAttribute(shared, "unix:mode", 01777); // as /dev/shm and /tmp
        DramStorage s = DramStorage.open(config(DramMode.MMAP, shared));
        try {
            assertThat(s.directory().orElseThrow().getParent()).isEqualTo(shared);
            assertThat(mode(s.directory().orElseThrow())).isEqualTo("rwx------");
        } finally {
            s.close(true);
        }
    }

    @Test
    void anAbandonedDirectoryIsReusedOnlyWhenNoOneElseCouldHaveChangedIt() throws IOException {
        Path rootDir = tmp.resolve("root");
        DramStorage first = DramStorage.open(config(DramMode.MMAP, rootDir));
        Path dir = first.directory().orElseThrow();
        first.close(false); // kept, as after a crash
        Path region = dir.resolve(ShortCircuitProtocol.regionFile(1));

        // Made readable by all (as earlier versions did): reused, and the permission is taken back.
        Files.setPosixFilePermissions(region, PosixFilePermissions.fromString("rw-r--r--"));
        DramStorage second = DramStorage.open(config(DramMode.MMAP, rootDir));
        assertThat(second.storageId()).isEqualTo(first.storageId());
        assertThat(mode(region)).isEqualTo("rw-------");
        second.close(false);

        // Writable by others: its data could have been changed, so it is not served; a new one is made.
        Files.setPosixFilePermissions(region, PosixFilePermissions.fromString("rw-rw-rw-"));
        DramStorage third = DramStorage.open(config(DramMode.MMAP, rootDir));
        try {
            assertThat(third.storageId()).isNotEqualTo(first.storageId());
            assertThat(mode(region)).as("left as it was found").isEqualTo("rw-rw-rw-");
        } finally {
            third.close(true);
        }
        // A directory others may write (they could swap its files): not adopted either.
        Files.setPosixFilePermissions(region, PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwx---"));
        DramStorage fourth = DramStorage.open(config(DramMode.MMAP, rootDir));
        try {
            assertThat(fourth.storageId()).isNotEqualTo(first.storageId());
        } finally {
            fourth.close(true);
        }
        if (root()) {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            Files.setOwner(region, nobody());
            DramStorage fifth = DramStorage.open(config(DramMode.MMAP, rootDir));
            try {
                assertThat(fifth.storageId()).as("a region file of another user: not adopted")
                        .isNotEqualTo(first.storageId());
                assertThat(Files.getOwner(region)).as("and left alone").isEqualTo(nobody());
            } finally {
                fifth.close(true);
            }
        }
    }

    /** "exit:output" of a command run as user nobody (uid and gid 65534, no other groups). */
    private static String asNobody(String... command) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                "--clear-groups", "--"));
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return p.exitValue() + ":" + out;
    }
}
