package io.tarn.datanode.replication;

import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.GroupMember;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The members files a datanode keeps next to its groups' journals, on real files. */
class GroupCatalogTest {
    @TempDir
    Path root;

    private static BlockGroup group(long id) {
        return new BlockGroup(id, 1, 0, List.of(new GroupMember(0, 1, "dn-a", 9070, 4, 0),
                new GroupMember(1, 2, "dn-b", 9071, 4, 0), new GroupMember(2, 3, "dn-ç", 9072, 7, 0)));
    }

    @Test
    void savedGroupsAreListedByIdAndDeletedWithTheirJournal() throws IOException {
        GroupCatalog catalog = new GroupCatalog(root.resolve("storage"));
        assertThat(catalog.list()).as("no directory yet").isEmpty();
        catalog.save(group(42), 2);
        catalog.save(group(7), 0);
        Files.writeString(catalog.directory(42).resolve("segment-00000000000000000001.log"), "journal");
        assertThat(catalog.list()).containsExactly(new GroupCatalog.Entry(group(7), 0),
                new GroupCatalog.Entry(group(42), 2));
        catalog.delete(42);
        assertThat(catalog.directory(42)).doesNotExist();
        assertThat(catalog.list()).containsExactly(new GroupCatalog.Entry(group(7), 0));
        catalog.delete(42); // gone already: fine
    }

    @Test
    void aDamagedMembersFileIsRefusedWithItsNameAndSkippedInTheListing() throws IOException {
        GroupCatalog catalog = new GroupCatalog(root);
        catalog.save(group(1), 1);
        catalog.save(group(2), 1);
        Path file = catalog.directory(2).resolve("members");
        byte[] bytes = Files.readAllBytes(file);
        bytes[12] ^= 1;
        Files.write(file, bytes);
        assertThatThrownBy(() -> catalog.read(file)).isInstanceOf(IOException.class)
                .hasMessageContaining(file.toString()).hasMessageContaining("checksum");
        Files.write(file, new byte[] {1, 2, 3});
        assertThatThrownBy(() -> catalog.read(file)).isInstanceOf(IOException.class)
                .hasMessageContaining("not a group members file");
        assertThat(catalog.list()).extracting(e -> e.group().groupId()).containsExactly(1L);
    }
}
