package io.tarn.namenode.namespace;

import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static io.tarn.common.error.ErrorCode.DIRECTORY_NOT_EMPTY;
import static io.tarn.common.error.ErrorCode.FILE_EXISTS;
import static io.tarn.common.error.ErrorCode.FILE_NOT_FOUND;
import static io.tarn.common.error.ErrorCode.INVALID_PATH;
import static io.tarn.common.error.ErrorCode.IS_A_DIRECTORY;
import static io.tarn.common.error.ErrorCode.NOT_A_DIRECTORY;
import static io.tarn.common.error.ErrorCode.PARENT_NOT_FOUND;
import static io.tarn.common.error.ErrorCode.RENAME_INVALID;
import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

class NamespaceTest {
    private static final long CLIENT = 7;
    private final Fixture fx = new Fixture();
    private final Namespace ns = fx.nn.namespace();

    private FileStatus file(String path) throws Exception {
        return ns.create(path, FileType.FILE, false, true, 0, CLIENT);
    }

    private List<String> names(String dir) throws Exception {
        return ns.list(dir, "", Integer.MAX_VALUE).entries().stream().map(FileStatus::name).toList();
    }

    @Test
    void mkdirsCreatesParentsAndIsIdempotent() throws Exception {
        FileStatus s = ns.mkdirs("/a/b/c");
        assertThat(s.isDirectory()).isTrue();
        assertThat(s.name()).isEqualTo("c");
        assertThat(ns.mkdirs("/a/b/c").fileId()).isEqualTo(s.fileId());
        assertThat(ns.getFile("/a/b").isDirectory()).isTrue();
        assertThat(ns.directoryCount()).isEqualTo(4);
        assertThat(ns.mkdirs("/").name()).isEmpty();
    }

    @Test
    void mkdirsFailsWhenAFileIsInTheWay() throws Exception {
        file("/a/f");
        assertThat(failsWith(FILE_EXISTS, () -> ns.mkdirs("/a/f/g"))).contains("'/a/f'");
        failsWith(FILE_EXISTS, () -> ns.mkdirs("/a/f"));
    }

    @Test
    void createFileReportsStatusUnderConstruction() throws Exception {
        FileStatus s = ns.create("/d/f", FileType.FILE, false, true, 1, CLIENT);
        assertThat(s.isFile()).isTrue();
        assertThat(s.underConstruction()).isTrue();
        assertThat(s.size()).isZero();
        assertThat(s.blockSize()).isEqualTo(Fixture.BLOCK);
        assertThat(s.storageClass()).isEqualTo(1);
        assertThat(s.creationTime()).isEqualTo(fx.clock.millis());
        assertThat(ns.getFile("/d//f/")).isEqualTo(s);
        assertThat(ns.fileCount()).isEqualTo(1);
    }

    @Test
    void createErrors() throws Exception {
        file("/d/f");
        assertThat(failsWith(FILE_EXISTS, () -> file("/d/f"))).contains("/d/f");
        failsWith(IS_A_DIRECTORY, () -> file("/d"));
        failsWith(IS_A_DIRECTORY, () -> file("/"));
        assertThat(failsWith(PARENT_NOT_FOUND, () -> ns.create("/x/y", FileType.FILE, false, false, 0, CLIENT)))
                .contains("'/x'");
        assertThat(failsWith(NOT_A_DIRECTORY, () -> file("/d/f/g"))).contains("'/d/f' is a file");
        failsWith(INVALID_PATH, () -> file("relative"));
        failsWith(INVALID_PATH, () -> file("/a/../b"));
    }

    @Test
    void overwriteReplacesTheFileWithANewId() throws Exception {
        FileStatus first = file("/f");
        fx.datanode(1, "h", 1, 0, 1, 4, false);
        fx.write(first.fileId(), 0, CLIENT);
        FileStatus second = ns.create("/f", FileType.FILE, true, false, 0, CLIENT);
        assertThat(second.fileId()).isNotEqualTo(first.fileId());
        assertThat(ns.fileTable().get(first.fileId())).isNull();
        assertThat(ns.fileCount()).isEqualTo(1);
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).as("old file's block freed").isEqualTo(4);
    }

    @Test
    void createOfTypeDirectoryActsLikeMkdirOfThatPath() throws Exception {
        FileStatus d = ns.create("/a/b", FileType.DIRECTORY, false, true, 0, CLIENT);
        assertThat(d.isDirectory()).isTrue();
        assertThat(ns.create("/a/b", FileType.DIRECTORY, false, false, 0, CLIENT).fileId()).isEqualTo(d.fileId());
        failsWith(PARENT_NOT_FOUND, () -> ns.create("/x/y", FileType.DIRECTORY, false, false, 0, CLIENT));
        file("/a/f");
        failsWith(FILE_EXISTS, () -> ns.create("/a/f", FileType.DIRECTORY, false, false, 0, CLIENT));
    }

    @Test
    void getFileErrors() throws Exception {
        file("/f");
        assertThat(failsWith(FILE_NOT_FOUND, () -> ns.getFile("/nope"))).contains("'/nope'");
        failsWith(FILE_NOT_FOUND, () -> ns.getFile("/f/x"));
        assertThat(ns.getFile("/").isDirectory()).isTrue();
    }

    @Test
    void namesAreStoredInFullSoNearCollisionsStayApart() throws Exception {
        // "Aa" and "BB" have the same String.hashCode; a hashing namespace would alias them.
        FileStatus a = file("/d/Aa");
        FileStatus b = file("/d/BB");
        assertThat(a.fileId()).isNotEqualTo(b.fileId());
        assertThat(names("/d")).containsExactly("Aa", "BB");
    }

    @Test
    void listIsSortedAndPagedCompletely() throws Exception {
        List<String> expected = IntStream.range(0, 250).mapToObj(i -> String.format("f%03d", i))
                .collect(Collectors.toList());
        for (String n : expected) {
            file("/d/" + n);
        }
        ns.mkdirs("/d/sub");
        expected.add("sub");
        List<String> seen = new ArrayList<>();
        String after = "";
        int pages = 0;
        while (true) {
            ListResponse page = ns.list("/d", after, 40);
            pages++;
            assertThat(page.entries().size()).isLessThanOrEqualTo(40);
            page.entries().forEach(s -> seen.add(s.name()));
            if (!page.hasMore()) {
                break;
            }
            after = page.entries().get(page.entries().size() - 1).name();
        }
        assertThat(seen).containsExactlyElementsOf(expected);
        assertThat(pages).isEqualTo(7);
        assertThat(ns.list("/d", "", 251).hasMore()).isFalse();
        assertThat(ns.list("/d", "", 250).hasMore()).isTrue();
    }

    @Test
    void listOfAFileReturnsThatFile() throws Exception {
        FileStatus f = file("/d/f");
        ListResponse r = ns.list("/d/f", "", 10);
        assertThat(r.entries()).containsExactly(f);
        assertThat(r.hasMore()).isFalse();
        failsWith(FILE_NOT_FOUND, () -> ns.list("/missing", "", 10));
        assertThat(ns.list("/d", "", 10).entries()).extracting(FileStatus::name).containsExactly("f");
    }

    @Test
    void deleteFileAndDirectories() throws Exception {
        file("/a/f");
        ns.mkdirs("/a/empty");
        failsWith(DIRECTORY_NOT_EMPTY, () -> ns.delete("/a", false));
        ns.delete("/a/f", false);
        failsWith(FILE_NOT_FOUND, () -> ns.getFile("/a/f"));
        ns.delete("/a/empty", false);
        ns.delete("/a", false);
        assertThat(names("/")).isEmpty();
        assertThat(failsWith(FILE_NOT_FOUND, () -> ns.delete("/a", true))).contains("'/a'");
        assertThat(ns.fileCount()).isZero();
        assertThat(ns.directoryCount()).isEqualTo(1);
    }

    @Test
    void recursiveDeleteFreesEverythingBelow() throws Exception {
        fx.datanode(1, "h", 1, 0, 1, 8, false);
        for (int i = 0; i < 3; i++) {
            FileStatus f = file("/a/b/c" + i + "/f");
            fx.write(f.fileId(), 0, CLIENT);
        }
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).isEqualTo(5);
        ns.delete("/a", true);
        assertThat(names("/")).isEmpty();
        assertThat(ns.fileCount()).isZero();
        assertThat(ns.directoryCount()).isEqualTo(1);
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).isEqualTo(8);
        assertThat(fx.nn.leases().fileCount()).isZero();
    }

    @Test
    void deletingTheRoot() throws Exception {
        ns.delete("/", false);
        file("/a/f");
        failsWith(DIRECTORY_NOT_EMPTY, () -> ns.delete("/", false));
        ns.delete("/", true);
        assertThat(names("/")).isEmpty();
        assertThat(ns.getFile("/").isDirectory()).isTrue();
        file("/again");
        assertThat(names("/")).containsExactly("again");
    }

    // ------------------------------------------------------------------ rename table

    @Test
    void renameFileToNewName() throws Exception {
        FileStatus f = file("/a/f");
        ns.mkdirs("/b");
        ns.rename("/a/f", "/b/g");
        assertThat(ns.getFile("/b/g").fileId()).isEqualTo(f.fileId());
        assertThat(ns.getFile("/b/g").name()).isEqualTo("g");
        failsWith(FILE_NOT_FOUND, () -> ns.getFile("/a/f"));
    }

    @Test
    void renameIntoExistingDirectoryKeepsTheName() throws Exception {
        FileStatus f = file("/a/f");
        ns.mkdirs("/b");
        ns.rename("/a/f", "/b");
        assertThat(ns.getFile("/b/f").fileId()).isEqualTo(f.fileId());
        ns.rename("/b/f", "/");
        assertThat(ns.getFile("/f").fileId()).isEqualTo(f.fileId());
    }

    @Test
    void renameOntoAnExistingFileFails() throws Exception {
        file("/f");
        file("/g");
        failsWith(FILE_EXISTS, () -> ns.rename("/f", "/g"));
        ns.mkdirs("/d");
        file("/d/f");
        failsWith(FILE_EXISTS, () -> ns.rename("/f", "/d"));
        assertThat(ns.getFile("/f").isFile()).isTrue();
    }

    @Test
    void renameErrors() throws Exception {
        file("/f");
        ns.mkdirs("/a/b/c");
        failsWith(FILE_NOT_FOUND, () -> ns.rename("/missing", "/x"));
        assertThat(failsWith(PARENT_NOT_FOUND, () -> ns.rename("/f", "/no/such/dir"))).contains("'/no/such'");
        failsWith(NOT_A_DIRECTORY, () -> ns.rename("/a", "/f/x"));
        failsWith(RENAME_INVALID, () -> ns.rename("/", "/x"));
        assertThat(failsWith(RENAME_INVALID, () -> ns.rename("/a", "/a/b/c"))).contains("own subtree");
        failsWith(RENAME_INVALID, () -> ns.rename("/a", "/a/b/new"));
        failsWith(RENAME_INVALID, () -> ns.rename("/a", "/a"));
    }

    @Test
    void renameToItselfIsANoOpForAFile() throws Exception {
        FileStatus f = file("/d/f");
        ns.rename("/d/f", "/d/f");
        ns.rename("/d/f", "/d");
        assertThat(ns.getFile("/d/f").fileId()).isEqualTo(f.fileId());
    }

    @Test
    void renameDirectoryMovesItsSubtree() throws Exception {
        FileStatus f = file("/a/b/f");
        ns.mkdirs("/x");
        ns.rename("/a/b", "/x/y");
        assertThat(ns.getFile("/x/y/f").fileId()).isEqualTo(f.fileId());
        assertThat(names("/a")).isEmpty();
        // Files keep their ids: getBlock by id is unaffected by a directory rename.
        assertThat(ns.fileTable().get(f.fileId()).path()).isEqualTo("/x/y/f");
        ns.rename("/x/y", "/a");
        assertThat(ns.getFile("/a/y/f").fileId()).isEqualTo(f.fileId());
    }

    @Test
    void renameUpdatesModificationTimesOfBothParents() throws Exception {
        file("/a/f");
        ns.mkdirs("/b");
        fx.clock.advance(5_000);
        ns.rename("/a/f", "/b/f");
        assertThat(ns.getFile("/a").modificationTime()).isEqualTo(fx.clock.millis());
        assertThat(ns.getFile("/b").modificationTime()).isEqualTo(fx.clock.millis());
    }

    @Test
    void directoryAndFileIdsAreDistinct() throws Exception {
        FileStatus d = ns.mkdirs("/d");
        FileStatus f = file("/d/f");
        assertThat(FileIds.isDirectory(d.fileId())).isTrue();
        assertThat(FileIds.isDirectory(f.fileId())).isFalse();
        assertThat(FileIds.partition(f.fileId())).isZero();
        assertThat(ns.fileTable().get(d.fileId())).isNull();
    }
}
