package io.tarn.client;

import io.tarn.minicluster.MiniCluster;
import io.tarn.common.error.DirectoryNotEmptyException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.FileExistsException;
import io.tarn.common.error.NotADirectoryException;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every namespace operation through the Java API against a MiniCluster over loopback TCP, with as
 * many namenodes as the subclass asks for: whether one namenode holds the namespace or several
 * share it by name hash (docs/partitioning.md), a client must see the same semantics. One cluster
 * serves a whole class; each test starts from an empty root.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractFileSystemOperationsTest {
    private final int namenodes;
    MiniCluster cluster;
    TarnClient client;

    AbstractFileSystemOperationsTest(int namenodes) {
        this.namenodes = namenodes;
    }

    @BeforeAll
    void startCluster() throws IOException {
        cluster = MiniCluster.builder().namenodes(namenodes).datanodes(2).start();
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @BeforeEach
    void connect() throws IOException {
        client = TarnClient.connect(cluster.config());
        for (FileStatus entry : client.list("/")) {
            client.delete("/" + entry.name(), true);
        }
    }

    @AfterEach
    void disconnect() {
        client.close();
    }

    void write(String path, String text) throws IOException {
        try (TarnOutputStream out = client.create(path, CreateOptions.OVERWRITE)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    String read(String path) throws IOException {
        try (TarnInputStream in = client.open(path)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    List<String> names(String dir) throws IOException {
        List<String> out = new ArrayList<>();
        for (FileStatus s : client.list(dir)) {
            out.add(s.name());
        }
        return out;
    }

    @Test
    void createWriteCloseAndReadBack() throws IOException {
        write("/a/b/hello.txt", "hello, tarn");
        assertThat(read("/a/b/hello.txt")).isEqualTo("hello, tarn");
        FileStatus s = client.getStatus("/a/b/hello.txt");
        assertThat(s.isFile()).isTrue();
        assertThat(s.size()).isEqualTo(11);
        assertThat(s.underConstruction()).isFalse();
        assertThat(s.blockSize()).isEqualTo(1 << 20);
        assertThat(client.getStatus("/a/b").isDirectory()).isTrue();
    }

    @Test
    void fileIsVisibleWhileWrittenAndCompleteAfterClose() throws IOException {
        TarnOutputStream out = client.create("/growing");
        out.write(new byte[100]);
        FileStatus during = client.getStatus("/growing");
        assertThat(during.underConstruction()).isTrue();
        out.close();
        FileStatus after = client.getStatus("/growing");
        assertThat(after.underConstruction()).isFalse();
        assertThat(after.size()).isEqualTo(100);
        assertThat(after.modificationTime()).isGreaterThanOrEqualTo(during.creationTime());
    }

    @Test
    void emptyFile() throws IOException {
        client.create("/empty").close();
        assertThat(client.getStatus("/empty").size()).isZero();
        try (TarnInputStream in = client.open("/empty")) {
            assertThat(in.read()).isEqualTo(-1);
        }
    }

    @Test
    void createExistingFailsUnlessOverwrite() throws IOException {
        write("/x", "one");
        assertThatThrownBy(() -> client.create("/x")).isInstanceOf(FileExistsException.class)
                .hasMessageContaining("/x");
        write("/x", "two");
        assertThat(read("/x")).isEqualTo("two");
    }

    @Test
    void createOverADirectoryFails() throws IOException {
        client.mkdirs("/d");
        assertThatThrownBy(() -> client.create("/d", CreateOptions.OVERWRITE))
                .isInstanceOf(TarnException.class)
                .matches(e -> ((TarnError) e).code() == ErrorCode.IS_A_DIRECTORY
                        || ((TarnError) e).code() == ErrorCode.FILE_EXISTS);
    }

    @Test
    void createWithoutParentsFailsWhenParentMissing() {
        assertThatThrownBy(() -> client.create("/no/such/dir/f", new CreateOptions(false, false, -1)))
                .isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void createBelowAFileFails() throws IOException {
        // Several files, so that with several namenodes some live on another namenode than "child" below them.
        for (int i = 0; i < 8; i++) {
            String file = "/file" + i;
            write(file, "x");
            for (CreateOptions options : List.of(CreateOptions.DEFAULT, new CreateOptions(false, false, -1))) {
                assertThatThrownBy(() -> client.create(file + "/child", options))
                        .as("create %s/child, parents %s", file, options.createParents())
                        .isInstanceOf(NotADirectoryException.class);
            }
        }
        assertThat(names("/")).hasSize(8).allMatch(name -> name.startsWith("file"));
    }

    @Test
    void mkdirsIsIdempotentAndRejectsFileInTheWay() throws IOException {
        assertThat(client.mkdirs("/m/n/o")).isTrue();
        assertThat(client.mkdirs("/m/n/o")).isTrue();
        assertThat(client.getStatus("/m/n").isDirectory()).isTrue();
        write("/m/file", "x");
        assertThatThrownBy(() -> client.mkdirs("/m/file/sub")).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> client.mkdirs("/m/file")).isInstanceOf(FileExistsException.class);
    }

    @Test
    void getStatusOfMissingPathIsFileNotFound() {
        assertThatThrownBy(() -> client.getStatus("/missing"))
                .isInstanceOf(FileNotFoundException.class).hasMessageContaining("/missing");
        assertThatThrownBy(() -> client.open("/missing")).isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void listIsSortedCompleteAndExact() throws IOException {
        client.mkdirs("/l/sub");
        for (int i = 0; i < 50; i++) {
            write("/l/f" + String.format("%02d", i), "x");
        }
        List<String> names = names("/l");
        assertThat(names).hasSize(51).doesNotHaveDuplicates().isSorted().contains("sub", "f00", "f49");
        assertThat(names("/")).containsExactly("l");
        assertThat(client.list("/l/f07")).singleElement().matches(s -> s.name().equals("f07") && s.isFile());
    }

    @Test
    void listPagesThroughLargeDirectories() throws IOException {
        client.mkdirs("/big");
        List<CompletableFuture<TarnOutputStream>> creates = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            creates.add(client.createAsync("/big/shuffle_0_" + i + "_0.data", CreateOptions.DEFAULT));
        }
        for (CompletableFuture<TarnOutputStream> f : creates) {
            f.join().close();
        }
        assertThat(client.list("/big")).hasSize(5000).extracting(FileStatus::name).doesNotHaveDuplicates();
    }

    @Test
    void listOfMissingDirectoryFails() {
        assertThatThrownBy(() -> client.list("/nope")).isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void deleteFileAndDirectories() throws IOException {
        write("/del/a/f", "x");
        assertThat(client.delete("/del/a/f", false)).isTrue();
        assertThat(client.exists("/del/a/f")).isFalse();
        assertThat(client.delete("/del/a/f", false)).isFalse();
        write("/del/a/g", "x");
        assertThatThrownBy(() -> client.delete("/del", false)).isInstanceOf(DirectoryNotEmptyException.class);
        assertThat(client.exists("/del/a/g")).isTrue();
        assertThat(client.delete("/del", true)).isTrue();
        assertThat(client.exists("/del")).isFalse();
        client.mkdirs("/emptydir");
        assertThat(client.delete("/emptydir", false)).isTrue();
    }

    @Test
    void theRootIsNeverDeletedNorEmptiedByDeletingIt() throws IOException {
        write("/r1/f", "x");
        client.mkdirs("/r2");
        assertThatThrownBy(() -> client.delete("/", true)).isInstanceOf(TarnException.class)
                .hasMessageContaining("'/' is the root directory, which cannot be deleted")
                .satisfies(e -> assertThat(((TarnException) e).code()).isEqualTo(ErrorCode.INVALID_PATH));
        assertThatThrownBy(() -> client.delete("/", false)).isInstanceOf(DirectoryNotEmptyException.class);
        assertThat(client.list("/")).hasSize(2);
        assertThat(read("/r1/f")).isEqualTo("x");
    }

    @Test
    void renameFileKeepsData() throws IOException {
        write("/src/f", "payload");
        client.mkdirs("/dst");
        client.rename("/src/f", "/dst/g");
        assertThat(client.exists("/src/f")).isFalse();
        assertThat(read("/dst/g")).isEqualTo("payload");
    }

    @Test
    void renameIntoExistingDirectoryMovesUnderIt() throws IOException {
        write("/mv/f", "data");
        client.mkdirs("/target");
        client.rename("/mv/f", "/target");
        assertThat(read("/target/f")).isEqualTo("data");
        client.rename("/mv", "/target");
        assertThat(client.getStatus("/target/mv").isDirectory()).isTrue();
        assertThat(client.exists("/mv")).isFalse();
    }

    @Test
    void renameDirectoryMovesItsSubtree() throws IOException {
        write("/tree/a/b/c", "deep");
        client.rename("/tree", "/moved");
        assertThat(read("/moved/a/b/c")).isEqualTo("deep");
        assertThat(client.exists("/tree")).isFalse();
    }

    @Test
    void renameErrors() throws IOException {
        write("/e/f", "x");
        write("/e/g", "y");
        assertThatThrownBy(() -> client.rename("/e/missing", "/e/h")).isInstanceOf(FileNotFoundException.class);
        assertThatThrownBy(() -> client.rename("/e/f", "/e/g")).isInstanceOf(FileExistsException.class);
        assertThatThrownBy(() -> client.rename("/e/f", "/nodir/x")).isInstanceOf(FileNotFoundException.class);
        client.mkdirs("/e/d/sub");
        assertThatThrownBy(() -> client.rename("/e/d", "/e/d/sub/inner"))
                .isInstanceOf(TarnException.class)
                .matches(e -> ((TarnError) e).code() == ErrorCode.RENAME_INVALID);
        assertThat(read("/e/f")).isEqualTo("x");
        assertThat(read("/e/g")).isEqualTo("y");
    }

    @Test
    void invalidPathsAreRejectedClearly() {
        assertThatThrownBy(() -> client.getStatus("relative/path"))
                .isInstanceOf(TarnException.class)
                .matches(e -> ((TarnError) e).code() == ErrorCode.INVALID_PATH);
        assertThatThrownBy(() -> client.create("/a/../b"))
                .isInstanceOf(TarnException.class)
                .matches(e -> ((TarnError) e).code() == ErrorCode.INVALID_PATH);
    }

    @Test
    void unicodeAndOddNamesAreKeptExactly() throws IOException {
        String[] names = {"dätä", "文件", "with space", "a:b", "x".repeat(200)};
        client.mkdirs("/names");
        for (String n : names) {
            write("/names/" + n, n);
        }
        for (String n : names) {
            assertThat(read("/names/" + n)).isEqualTo(n);
        }
        assertThat(names("/names")).containsExactlyInAnyOrder(names);
    }

    @Test
    void asyncMetadataCallsManyInFlight() throws IOException {
        write("/async", "x");
        List<CompletableFuture<FileStatus>> fs = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            fs.add(client.getStatusAsync("/async"));
        }
        for (CompletableFuture<FileStatus> f : fs) {
            assertThat(f.join().size()).isEqualTo(1);
        }
    }

    @Test
    void asyncNamespaceOperations() throws Exception {
        client.mkdirsAsync("/as/dir").get();
        try (TarnOutputStream out = client.createAsync("/as/dir/f", CreateOptions.DEFAULT).get()) {
            out.write(new byte[]{1, 2, 3});
        }
        try (TarnInputStream in = client.openAsync("/as/dir/f").get()) {
            assertThat(in.readAllBytes()).containsExactly(1, 2, 3);
        }
        assertThat(client.listAsync("/as/dir").get()).extracting(FileStatus::name).containsExactly("f");
        client.renameAsync("/as/dir/f", "/as/g").get();
        assertThat(client.deleteAsync("/as/g", false).get()).isTrue();
        assertThat(client.deleteAsync("/as/g", false).get()).isFalse();
        assertThatThrownBy(() -> client.openAsync("/as/dir").join()).cause()
                .matches(e -> ((TarnError) e).code() == ErrorCode.IS_A_DIRECTORY);
    }
}
