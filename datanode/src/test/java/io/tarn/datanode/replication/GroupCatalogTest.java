package io.tarn.datanode.replication;

import io.tarn.common.fs.BlockGroup;
import io.tarn.common.fs.GroupMember;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.protocol.NamenodeProtocol;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

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

    /**
     * A member being removed is no longer in the group the namenode sends, but stays in the
     * replicas' configuration until the change commits: its address is kept for a restart.
     */
    @Test
    void theAddressesOfMembersTheGroupNoLongerListsAreKept() throws IOException {
        GroupCatalog catalog = new GroupCatalog(root);
        BlockGroup target = new BlockGroup(9, 2, 0, List.of(new GroupMember(0, 1, "dn-a", 9070, 4, 0),
                new GroupMember(2, 3, "dn-c", 9072, 7, 0), new GroupMember(3, 4, "dn-d", 9073, 1, 0)));
        List<GroupCatalog.Peer> known = List.of(new GroupCatalog.Peer(2, "dn-c", 9072),
                new GroupCatalog.Peer(1, "dn-b", 9071), new GroupCatalog.Peer(0, "dn-a", 9070));
        catalog.save(target, 3, known);
        assertThat(catalog.list()).containsExactly(new GroupCatalog.Entry(target, 3,
                List.of(new GroupCatalog.Peer(1, "dn-b", 9071))));

        // Bounded: the most recent leavers (highest ids) are kept, ascending.
        List<GroupCatalog.Peer> many = new ArrayList<>();
        for (int m = 4; m < 4 + GroupCatalog.MAX_OTHERS + 5; m++) {
            many.add(new GroupCatalog.Peer(m, "dn-" + m, 9000 + m));
        }
        catalog.save(target, 0, many);
        List<GroupCatalog.Peer> kept = catalog.list().get(0).others();
        assertThat(kept).hasSize(GroupCatalog.MAX_OTHERS).isEqualTo(many.subList(5, many.size()));
    }

    @Test
    void aMembersFileOfTheFirstVersionIsReadWithoutOtherMembers() throws IOException {
        GroupCatalog catalog = new GroupCatalog(root);
        catalog.save(group(5), 1);
        ByteBuf buf = Unpooled.buffer();
        buf.writeInt(0x54475250).writeByte(1).writeInt(1);
        NamenodeProtocol.writeGroup(buf, group(5));
        CRC32C crc = new CRC32C();
        crc.update(buf.nioBuffer());
        buf.writeInt((int) crc.getValue());
        byte[] bytes = new byte[buf.readableBytes()];
        buf.readBytes(bytes);
        Files.write(catalog.directory(5).resolve("members"), bytes);
        assertThat(catalog.list()).containsExactly(new GroupCatalog.Entry(group(5), 1, List.of()));
    }
}
