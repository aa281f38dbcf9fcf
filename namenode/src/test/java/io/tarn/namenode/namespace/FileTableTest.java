package io.tarn.namenode.namespace;

import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileIds;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FileTableTest {
    private final FileTable table = new FileTable(3);

    private FileInode publish() throws TarnException {
        long id = table.reserve();
        FileInode f = new FileInode(id, "f", null, 0, new io.tarn.common.fs.Ownership("u", "g", 0644), 4096, 0, 1, 1);
        table.publish(f);
        return f;
    }

    @Test
    void idsEncodePartitionAndLookUpInO1() throws TarnException {
        FileInode a = publish();
        FileInode b = publish();
        assertThat(FileIds.partition(a.id())).isEqualTo(3);
        assertThat(FileIds.isDirectory(a.id())).isFalse();
        assertThat(a.id()).isPositive();
        assertThat(table.get(a.id())).isSameAs(a);
        assertThat(table.get(b.id())).isSameAs(b);
    }

    @Test
    void aStaleIdNeverReachesTheNextFileInItsSlot() throws TarnException {
        FileInode a = publish();
        table.release(a.id());
        FileInode b = publish();
        assertThat(FileIds.slot(b.id())).as("slot recycled").isEqualTo(FileIds.slot(a.id()));
        assertThat(b.id()).isNotEqualTo(a.id());
        assertThat(table.get(a.id())).isNull();
        assertThat(table.get(b.id())).isSameAs(b);
    }

    @Test
    void foreignAndDirectoryIdsFindNothing() throws TarnException {
        FileInode a = publish();
        long otherPartition = FileIds.file(4, FileIds.counter(a.id()), FileIds.slot(a.id()));
        assertThat(table.get(otherPartition)).isNull();
        assertThat(table.get(FileIds.directory(FileIds.slot(a.id())))).isNull();
        assertThat(table.get(-1)).isNull();
        assertThat(table.get(FileIds.file(3, 0, 1 << 30))).isNull();
    }

    @Test
    void layoutRoundTrips() {
        long id = FileIds.file(255, FileIds.COUNTER_MASK, FileIds.MAX_SLOT);
        assertThat(id).isPositive();
        assertThat(FileIds.partition(id)).isEqualTo(255);
        assertThat(FileIds.counter(id)).isEqualTo(FileIds.COUNTER_MASK);
        assertThat(FileIds.slot(id)).isEqualTo(FileIds.MAX_SLOT);
        assertThat(FileIds.isDirectory(id)).isFalse();
        assertThat(FileIds.isDirectory(FileIds.directory(5))).isTrue();
    }
}
