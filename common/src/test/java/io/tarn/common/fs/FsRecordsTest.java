package io.tarn.common.fs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FsRecordsTest {

    @Test
    void fileTypeWireValuesAreStable() {
        assertThat(FileType.FILE.wire()).isEqualTo(1);
        assertThat(FileType.DIRECTORY.wire()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(FileType.class)
    void fileTypeRoundTrips(FileType t) {
        assertThat(FileType.ofWire(t.wire())).isSameAs(t);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 3, 255, -1, Integer.MAX_VALUE})
    void unknownFileTypeIsRejected(int v) {
        assertThatThrownBy(() -> FileType.ofWire(v))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown file type " + v);
    }

    @Test
    void fileStatusKind() {
        FileStatus f = new FileStatus("文件", 7, FileType.FILE, 10, 4096, 0, 1, 2, 3, "u", "g", 0644, true);
        FileStatus d = new FileStatus("", 1, FileType.DIRECTORY, 0, 0, 0, 1, 2, 2, "root", "supergroup", 0755, false);
        assertThat(f.isFile()).isTrue();
        assertThat(f.isDirectory()).isFalse();
        assertThat(d.isDirectory()).isTrue();
        assertThat(d.isFile()).isFalse();
    }

    @Test
    void blockRefAddress() {
        BlockRef b = new BlockRef(3, "dn-3.example", 9070, 0, 1, 2, 1 << 20, 5, 0xdeadbeefL, 9L, true);
        assertThat(b.address()).isEqualTo("dn-3.example:9070");
    }
}
