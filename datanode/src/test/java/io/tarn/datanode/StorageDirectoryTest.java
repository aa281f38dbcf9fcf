package io.tarn.datanode;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

class StorageDirectoryTest {
    private static final StorageDirectory.Inspector ACCEPT = (dir, id) -> null;

    @TempDir
    Path root;

    @Test
    void createsADirectoryNamedByANewStorageId() throws IOException {
        StorageDirectory d = StorageDirectory.claim(root.resolve("not/yet/there"), ACCEPT);
        assertThat(d.reused()).isFalse();
        assertThat(d.path().getFileName().toString()).isEqualTo(d.storageId().toString());
        assertThat(d.path().resolve(StorageDirectory.LOCK_FILE)).exists();
        try (var entries = Files.list(d.path().getParent())) {
            assertThat(entries.map(p -> p.getFileName().toString()))
                    .as("no staging directory is left behind").containsExactly(d.storageId().toString());
        }
        d.release();
    }

    @Test
    void aReleasedDirectoryIsClaimedAgainWithItsId() throws IOException {
        StorageDirectory first = StorageDirectory.claim(root, ACCEPT);
        Files.writeString(first.path().resolve("data"), "kept");
        first.release();

        StorageDirectory second = StorageDirectory.claim(root, ACCEPT);
        assertThat(second.reused()).isTrue();
        assertThat(second.storageId()).isEqualTo(first.storageId());
        assertThat(second.path().resolve("data")).hasContent("kept");
        second.release();
    }

    @Test
    void aDirectoryHeldByALiveDatanodeIsNotShared() throws IOException {
        StorageDirectory held = StorageDirectory.claim(root, ACCEPT);
        StorageDirectory other = StorageDirectory.claim(root, ACCEPT);
        assertThat(other.reused()).isFalse();
        assertThat(other.storageId()).isNotEqualTo(held.storageId());
        other.release();
        held.release();
    }

    @Test
    void aDirectoryTheInspectorRejectsIsLeftAlone() throws IOException {
        StorageDirectory first = StorageDirectory.claim(root, ACCEPT);
        first.release();
        List<UUID> inspected = new ArrayList<>();
        StorageDirectory second = StorageDirectory.claim(root, (dir, id) -> {
            inspected.add(id);
            return "wrong size";
        });
        assertThat(inspected).containsExactly(first.storageId());
        assertThat(second.reused()).isFalse();
        assertThat(second.storageId()).isNotEqualTo(first.storageId());
        assertThat(first.path()).exists();
        second.release();
    }

    @Test
    void anInspectorThatThrowsRejectsTheDirectory() throws IOException {
        StorageDirectory.claim(root, ACCEPT).release();
        StorageDirectory d = StorageDirectory.claim(root, (dir, id) -> {
            throw new IOException("unreadable");
        });
        assertThat(d.reused()).isFalse();
        d.release();
    }

    @Test
    void foreignDirectoriesAreNeverInspected() throws IOException {
        Files.createDirectories(root.resolve("lost+found"));
        Files.createDirectories(root.resolve("not-a-uuid-but-36-characters-long-xx"));
        List<Path> inspected = new ArrayList<>();
        StorageDirectory d = StorageDirectory.claim(root, (dir, id) -> {
            inspected.add(dir);
            return null;
        });
        assertThat(inspected).isEmpty();
        assertThat(d.reused()).isFalse();
        d.release();
    }

    @Test
    void deleteRemovesTheDirectoryAndItsClaim() throws IOException {
        StorageDirectory d = StorageDirectory.claim(root, ACCEPT);
        Files.writeString(d.path().resolve("region-00000"), "x");
        d.delete();
        assertThat(d.path()).doesNotExist();
        StorageDirectory next = StorageDirectory.claim(root, ACCEPT);
        assertThat(next.reused()).isFalse();
        next.release();
    }
}
