package io.tarn.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;

import static io.tarn.hadoop.TarnTestCluster.BLOCK_SIZE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the contract suites do not cover: block locations, listings with locations, statistics,
 * capabilities, configuration errors, closing, and Tarn's own answers (block size, capacity).
 */
class TarnFileSystemIT {
    private static FileSystem fs;
    private Path dir;

    @BeforeAll
    static void connect() throws IOException {
        fs = FileSystem.newInstance(TarnTestCluster.get().uri(), TarnTestCluster.newConfiguration());
    }

    @AfterAll
    static void disconnect() throws IOException {
        fs.close();
    }

    @org.junit.jupiter.api.BeforeEach
    void makeDir(TestInfo test) throws IOException {
        dir = new Path("/it/" + test.getTestMethod().orElseThrow().getName());
        fs.mkdirs(dir);
    }

    @AfterEach
    void removeDir() throws IOException {
        fs.delete(dir, true);
    }

    private static byte[] data(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    private static void write(Path p, byte[] bytes) throws IOException {
        try (FSDataOutputStream out = fs.create(p, true)) {
            out.write(bytes);
        }
    }

    // ------------------------------------------------------------------ identity and configuration

    @Test
    void identifiesAsTarn() {
        assertThat(fs).isInstanceOf(TarnFileSystem.class);
        assertThat(fs.getScheme()).isEqualTo("tarn");
        assertThat(fs.getUri()).isEqualTo(TarnTestCluster.get().uri());
        assertThat(fs.getCanonicalServiceName()).isNull();
        assertThat(fs.getDefaultReplication(dir)).isEqualTo((short) 1);
    }

    @Test
    void defaultBlockSizeIsTheClusters() {
        assertThat(fs.getDefaultBlockSize(dir)).isEqualTo(BLOCK_SIZE);
    }

    @Test
    void statusReportsTheDatanodesCapacity() throws IOException {
        FsStatus status = fs.getStatus(dir);
        assertThat(status.getCapacity()).isEqualTo(TarnTestCluster.DATANODES * (128L << 20));
        assertThat(status.getRemaining()).isPositive().isLessThanOrEqualTo(status.getCapacity());
        assertThat(status.getUsed()).isEqualTo(status.getCapacity() - status.getRemaining());
    }

    @Test
    void unknownTarnKeyFailsInitialize() {
        Configuration conf = TarnTestCluster.newConfiguration();
        conf.set("fs.tarn.client.readahed", "1m");
        assertThatThrownBy(() -> FileSystem.newInstance(TarnTestCluster.get().uri(), conf))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fs.tarn.client.readahed")
                .hasMessageContaining("did you mean 'tarn.client.readahead'");
    }

    @Test
    void pathOfAnotherFileSystemIsRejected() {
        assertThatThrownBy(() -> fs.getFileStatus(new Path("tarn://elsewhere:1/x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Wrong FS");
        assertThatThrownBy(() -> fs.getFileStatus(new Path("file:///tmp")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Wrong FS");
    }

    @Test
    void closedFileSystemRefusesWork() throws IOException {
        FileSystem other = FileSystem.newInstance(TarnTestCluster.get().uri(), TarnTestCluster.newConfiguration());
        other.getFileStatus(dir);
        other.close();
        other.close();
        assertThatThrownBy(() -> other.getFileStatus(dir)).isInstanceOf(IOException.class)
                .hasMessageContaining("closed");
    }

    // ------------------------------------------------------------------ block locations

    @Test
    void blockLocationsNameEveryBlocksDatanode() throws IOException {
        Path file = new Path(dir, "f");
        int size = 3 * BLOCK_SIZE + BLOCK_SIZE / 2;
        write(file, data(size));
        FileStatus status = fs.getFileStatus(file);
        assertThat(status.getBlockSize()).isEqualTo(BLOCK_SIZE);

        BlockLocation[] blocks = fs.getFileBlockLocations(status, 0, size);
        assertThat(blocks).hasSize(4);
        for (int i = 0; i < blocks.length; i++) {
            assertThat(blocks[i].getOffset()).isEqualTo((long) i * BLOCK_SIZE);
            assertThat(blocks[i].getLength()).isEqualTo(i < 3 ? BLOCK_SIZE : BLOCK_SIZE / 2);
            assertThat(blocks[i].getHosts()).containsExactly("127.0.0.1");
            assertThat(blocks[i].getNames()).hasSize(1);
            assertThat(blocks[i].getNames()[0]).startsWith("127.0.0.1:")
                    .isNotEqualTo("127.0.0.1:" + TarnTestCluster.get().uri().getPort());
        }
    }

    @Test
    void blockLocationsOfARangeAndPastTheEnd() throws IOException {
        Path file = new Path(dir, "f");
        int size = 4 * BLOCK_SIZE;
        write(file, data(size));
        FileStatus status = fs.getFileStatus(file);

        BlockLocation[] middle = fs.getFileBlockLocations(status, BLOCK_SIZE + 10, BLOCK_SIZE);
        assertThat(middle).extracting(BlockLocation::getOffset).containsExactly((long) BLOCK_SIZE, 2L * BLOCK_SIZE);
        assertThat(fs.getFileBlockLocations(status, size, 10)).isEmpty();
        assertThat(fs.getFileBlockLocations(fs.getFileStatus(dir), 0, 10)).isEmpty();
        assertThat(fs.getFileBlockLocations((FileStatus) null, 0, 10)).isNull();
        assertThatThrownBy(() -> fs.getFileBlockLocations(status, -1, 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void wholeFileLocationsMatchBlockByBlockLookups() throws IOException {
        Path file = new Path(dir, "big");
        int blocks = 24;
        write(file, data(blocks * BLOCK_SIZE - 1));
        FileStatus status = fs.getFileStatus(file);
        BlockLocation[] bulk = fs.getFileBlockLocations(status, 0, status.getLen());
        assertThat(bulk).hasSize(blocks);
        for (int i = 0; i < blocks; i++) {
            BlockLocation[] one = fs.getFileBlockLocations(status, (long) i * BLOCK_SIZE, 1);
            assertThat(one).hasSize(1);
            assertThat(bulk[i].getNames()).isEqualTo(one[0].getNames());
            assertThat(bulk[i].getOffset()).isEqualTo(one[0].getOffset()).isEqualTo((long) i * BLOCK_SIZE);
            assertThat(bulk[i].getLength()).isEqualTo(one[0].getLength());
        }
        assertThat(bulk[blocks - 1].getLength()).isEqualTo(BLOCK_SIZE - 1);
    }

    @Test
    void blockLocationsForAPlainStatusLookTheFileUp() throws IOException {
        Path file = new Path(dir, "f");
        write(file, data(2 * BLOCK_SIZE));
        FileStatus plain = new FileStatus(fs.getFileStatus(file));
        assertThat(plain).isNotInstanceOf(TarnFileStatus.class);
        assertThat(fs.getFileBlockLocations(plain, 0, 2 * BLOCK_SIZE)).hasSize(2);
        assertThat(fs.getFileBlockLocations(file, 0, 1)).hasSize(1);
    }

    @Test
    void locatedListingCarriesBlocksOfEveryFile() throws IOException {
        for (int i = 0; i < 5; i++) {
            write(new Path(dir, "file" + i), data((i + 1) * BLOCK_SIZE));
        }
        fs.mkdirs(new Path(dir, "sub"));
        List<LocatedFileStatus> listed = new ArrayList<>();
        RemoteIterator<LocatedFileStatus> it = fs.listLocatedStatus(dir);
        while (it.hasNext()) {
            listed.add(it.next());
        }
        assertThat(listed).hasSize(6);
        for (LocatedFileStatus s : listed) {
            if (s.isDirectory()) {
                assertThat(s.getPath().getName()).isEqualTo("sub");
                continue;
            }
            int n = Integer.parseInt(s.getPath().getName().substring("file".length())) + 1;
            assertThat(s.getBlockLocations()).hasSize(n);
            assertThat(s.getPath()).isEqualTo(fs.makeQualified(new Path(dir, s.getPath().getName())));
        }
    }

    // ------------------------------------------------------------------ listings

    @Test
    void fileListsAsItselfAndIsNotConfusedWithADirectoryHoldingItsNamesake() throws IOException {
        Path file = new Path(dir, "a");
        write(file, data(10));
        assertThat(fs.listStatus(file)).extracting(FileStatus::getPath).containsExactly(fs.makeQualified(file));

        Path sameName = new Path(dir, "b");
        write(new Path(sameName, "b"), data(10));
        FileStatus[] inside = fs.listStatus(sameName);
        assertThat(inside).extracting(FileStatus::getPath).containsExactly(fs.makeQualified(new Path(sameName, "b")));
    }

    @Test
    void replicationIsAFilesOwnAndADirectorysDefaultForNewFiles() throws IOException {
        Path sub = new Path(dir, "rep");
        fs.mkdirs(sub);
        assertThat(fs.getFileStatus(sub).getReplication()).as("no default of its own").isZero();
        assertThat(fs.setReplication(sub, (short) 2)).isTrue();
        assertThat(fs.getFileStatus(sub).getReplication()).as("2 or more is 3").isEqualTo((short) 3);
        assertThat(fs.getDefaultReplication(new Path(sub, "x/y"))).isEqualTo((short) 3);
        assertThat(fs.getDefaultReplication(dir)).isEqualTo((short) 1);
        assertThatThrownBy(() -> fs.create(new Path(sub, "f")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("replication 3 needs 3 live datanodes; 2 are alive");

        Path one = new Path(sub, "one");
        try (FSDataOutputStream out = fs.create(one, true, 4096, (short) 1, BLOCK_SIZE)) {
            assertThat(fs.setReplication(one, (short) 0)).as("while empty; 0 or 1 is 1").isTrue();
            out.write(data(10));
        }
        assertThat(fs.getFileStatus(one).getReplication()).isEqualTo((short) 1);
        assertThat(fs.setReplication(one, (short) 1)).isTrue();
        assertThatThrownBy(() -> fs.setReplication(one, (short) 3))
                .isInstanceOf(IOException.class).hasMessageContaining("holds data already");
        assertThat(fs.setReplication(new Path(sub, "missing"), (short) 1)).isFalse();
        assertThat(fs.getFileBlockLocations(fs.getFileStatus(one), 0, 10)[0].getHosts()).hasSize(1);
    }

    @Test
    void aFactorAboveThreeGetsOneWithTwoDatanodesWhereTwoOrThreeFail() throws IOException {
        Path asked = new Path(dir, "asked");
        for (short explicit : new short[] {2, 3}) {
            assertThatThrownBy(() -> fs.create(asked, true, 4096, explicit, BLOCK_SIZE))
                    .as("replication %d", explicit).isInstanceOf(IOException.class)
                    .hasMessageContaining("replication 3 needs 3 live datanodes; 2 are alive");
        }
        assertThat(fs.exists(asked)).isFalse();

        Path ten = new Path(dir, "ten");
        try (FSDataOutputStream out = fs.create(ten, true, 4096, (short) 10, BLOCK_SIZE)) {
            out.write(data(100));
        }
        assertThat(fs.getFileStatus(ten).getReplication()).as("MapReduce's 10 on a small cluster").isEqualTo((short) 1);
        Path overwritten = new Path(dir, "overwritten");
        write(overwritten, data(30));
        try (FSDataOutputStream out = fs.create(overwritten, true, 4096, (short) 10, BLOCK_SIZE)) {
            out.write(data(7));
        }
        assertThat(fs.getFileStatus(overwritten).getLen()).isEqualTo(7);

        // What MapReduce's JobSplitWriter does: create with the default, set 10 while empty, write.
        Path split = new Path(dir, "job/job.split");
        try (FSDataOutputStream out = fs.create(split)) {
            assertThat(fs.setReplication(split, (short) 10)).isTrue();
            out.write(data(300));
        }
        assertThat(fs.getFileStatus(split).getReplication()).isEqualTo((short) 1);
        assertThat(fs.setReplication(split, (short) 10)).as("a file with data keeps its factor").isTrue();
        assertThatThrownBy(() -> fs.setReplication(split, (short) 3)).isInstanceOf(IOException.class)
                .hasMessageContaining("holds data already");

        Path wide = new Path(dir, "wide");
        fs.mkdirs(wide);
        assertThat(fs.setReplication(wide, (short) 10)).isTrue();
        assertThat(fs.getFileStatus(wide).getReplication()).as("the directory's default").isEqualTo((short) 1);
        assertThat(fs.setReplication(new Path(dir, "missing"), (short) 10)).isFalse();
    }

    @Test
    void statusOfAFile() throws IOException {
        Path file = new Path(dir, "f");
        write(file, data(3));
        FileStatus f = fs.getFileStatus(file);
        assertThat(f).isInstanceOf(TarnFileStatus.class);
        assertThat(f.isFile()).isTrue();
        assertThat(f.getPath()).isEqualTo(fs.makeQualified(file));
        assertThat(f.getReplication()).isEqualTo((short) 1);
        assertThat(f.getLen()).isEqualTo(3);
        assertThat(f.getBlockSize()).isEqualTo(BLOCK_SIZE);
        assertThat(f.getModificationTime()).isPositive();
        assertThat(fs.getFileStatus(dir).isDirectory()).isTrue();
    }

    // ------------------------------------------------------------------ rename edge cases

    @Test
    void renameRefusals() throws IOException {
        Path a = new Path(dir, "a");
        Path sub = new Path(a, "sub");
        fs.mkdirs(sub);
        Path file = new Path(dir, "file");
        write(file, data(1));

        assertThat(fs.rename(new Path("/"), new Path(dir, "root"))).isFalse();
        assertThat(fs.rename(a, sub)).isFalse();
        assertThat(fs.rename(a, a)).isFalse();
        assertThat(fs.rename(file, file)).isTrue();
        assertThat(fs.rename(new Path(dir, "missing"), new Path(dir, "x"))).isFalse();
        assertThat(fs.rename(file, new Path(dir, "nowhere/x"))).isFalse();
        assertThatThrownBy(() -> fs.rename(a, new Path(file, "x"))).isInstanceOf(ParentNotDirectoryException.class);
        assertThat(fs.exists(sub)).isTrue();
        assertThat(fs.exists(file)).isTrue();
    }

    // ------------------------------------------------------------------ streams

    @Test
    void hflushMakesBytesVisibleToNewReaders() throws IOException {
        Path file = new Path(dir, "f");
        try (FSDataOutputStream out = fs.create(file)) {
            out.write(data(1000));
            out.hflush();
            try (FSDataInputStream in = fs.open(file)) {
                byte[] back = new byte[1000];
                in.readFully(0, back);
                assertThat(back).isEqualTo(data(1000));
            }
        }
    }

    @Test
    @SuppressWarnings("deprecation") // HFLUSH
    void streamsDeclareWhatTheyDo() throws IOException {
        Path file = new Path(dir, "f");
        try (FSDataOutputStream out = fs.create(file)) {
            assertThat(out.hasCapability(StreamCapabilities.HFLUSH)).isTrue();
            assertThat(out.hasCapability(StreamCapabilities.HSYNC)).isFalse();
            out.write(1);
        }
        try (FSDataInputStream in = fs.open(file)) {
            for (String yes : List.of(StreamCapabilities.UNBUFFER, StreamCapabilities.READBYTEBUFFER,
                    StreamCapabilities.PREADBYTEBUFFER, StreamCapabilities.VECTOREDIO)) {
                assertThat(in.hasCapability(yes)).as(yes).isTrue();
            }
            assertThat(in.hasCapability(StreamCapabilities.READAHEAD)).isFalse();
            assertThat(in.hasCapability(StreamCapabilities.VECTOREDIO_BUFFERS_SLICED)).isFalse();
        }
        assertThat(fs.hasPathCapability(file, CommonPathCapabilities.FS_APPEND)).isTrue();
        assertThat(fs.hasPathCapability(file, CommonPathCapabilities.FS_PERMISSIONS)).isTrue();
        assertThat(fs.hasPathCapability(file, CommonPathCapabilities.FS_CONCAT)).isFalse();
        assertThat(fs.hasPathCapability(file, CommonPathCapabilities.FS_SYMLINKS)).isFalse();
    }

    @Test
    void unbufferKeepsThePositionAndReadsOnAcrossBlocks() throws IOException {
        Path file = new Path(dir, "f");
        byte[] bytes = data(3 * BLOCK_SIZE);
        write(file, bytes);
        try (FSDataInputStream in = fs.open(file)) {
            in.unbuffer();
            byte[] first = new byte[BLOCK_SIZE + 100];
            in.readFully(first);
            in.unbuffer();
            assertThat(in.getPos()).isEqualTo(BLOCK_SIZE + 100);
            byte[] rest = new byte[bytes.length - first.length];
            in.readFully(rest);
            byte[] all = new byte[bytes.length];
            System.arraycopy(first, 0, all, 0, first.length);
            System.arraycopy(rest, 0, all, first.length, rest.length);
            assertThat(all).isEqualTo(bytes);
        }
    }

    @Test
    @SuppressWarnings("deprecation") // FileSystem.Statistics is what MapReduce and Spark read
    void statisticsCountBytesAndOperations() throws IOException {
        FileSystem.Statistics stats = FileSystem.getStatistics("tarn", TarnFileSystem.class);
        long written = stats.getBytesWritten();
        long read = stats.getBytesRead();
        long writeOps = stats.getWriteOps();
        long readOps = stats.getReadOps();

        Path file = new Path(dir, "f");
        write(file, data(5000));
        try (FSDataInputStream in = fs.open(file)) {
            in.readFully(new byte[5000]);
            in.readFully(0, new byte[100]);
        }
        assertThat(stats.getBytesWritten() - written).isEqualTo(5000);
        assertThat(stats.getBytesRead() - read).isEqualTo(5100);
        assertThat(stats.getWriteOps() - writeOps).isEqualTo(1);
        assertThat(stats.getReadOps() - readOps).isEqualTo(1);
    }

    // ------------------------------------------------------------------ append and attributes

    @Test
    void appendContinuesAtTheEnd() throws IOException {
        Path file = new Path(dir, "f");
        byte[] bytes = data(BLOCK_SIZE + 500);
        write(file, java.util.Arrays.copyOf(bytes, 700));
        try (FSDataOutputStream out = fs.append(file)) {
            assertThat(out.getPos()).isEqualTo(700);
            out.write(bytes, 700, bytes.length - 700);
        }
        try (FSDataInputStream in = fs.open(file)) {
            byte[] back = new byte[bytes.length];
            in.readFully(back);
            assertThat(back).isEqualTo(bytes);
            assertThat(in.read()).isEqualTo(-1);
        }
        assertThatThrownBy(() -> fs.append(new Path(dir, "missing"))).isInstanceOf(FileNotFoundException.class);
        assertThatThrownBy(() -> fs.append(dir)).isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void newEntriesBelongToTheCallerWithTheUmaskApplied() throws IOException {
        String user = UserGroupInformation.getCurrentUser().getShortUserName();
        Path file = new Path(dir, "f");
        write(file, data(3));
        assertThat(fs.getFileStatus(file).getOwner()).isEqualTo(user);
        assertThat(fs.getFileStatus(file).getPermission()).isEqualTo(new FsPermission((short) 0644));
        assertThat(fs.getFileStatus(dir).getPermission()).isEqualTo(new FsPermission((short) 0755));

        Configuration strict = TarnTestCluster.newConfiguration();
        strict.set(FsPermission.UMASK_LABEL, "077");
        try (FileSystem other = FileSystem.newInstance(TarnTestCluster.get().uri(), strict)) {
            Path privateDir = new Path(dir, "private");
            other.mkdirs(privateDir, new FsPermission((short) 0777));
            other.create(new Path(privateDir, "g"), new FsPermission((short) 0666), false, 4096, (short) 1,
                    BLOCK_SIZE, null).close();
            assertThat(fs.getFileStatus(privateDir).getPermission()).isEqualTo(new FsPermission((short) 0700));
            assertThat(fs.getFileStatus(new Path(privateDir, "g")).getPermission())
                    .isEqualTo(new FsPermission((short) 0600));
        }
    }

    @Test
    void attributesAreStoredAndReported() throws IOException {
        Path file = new Path(dir, "f");
        write(file, data(3));
        fs.setPermission(file, new FsPermission((short) 01640));
        fs.setTimes(file, 1_000_000L, -1);
        fs.setTimes(file, -1, 2_000_000L);
        if (TarnTestCluster.secure()) {
            // Checked: only a superuser gives a file away.
            assertThatThrownBy(() -> fs.setOwner(file, "alice", null)).isInstanceOf(AccessControlException.class)
                    .hasMessageContaining("only a superuser");
        }
        try (FileSystem admin = FileSystem.newInstance(TarnTestCluster.get().uri(),
                TarnTestCluster.adminConfiguration())) {
            admin.setOwner(file, "alice", null);
            admin.setOwner(file, null, "analysts");
        }
        FileStatus s = fs.getFileStatus(file);
        assertThat(s.getPermission()).isEqualTo(new FsPermission((short) 01640));
        assertThat(s.getOwner()).isEqualTo("alice");
        assertThat(s.getGroup()).isEqualTo("analysts");
        assertThat(s.getModificationTime()).isEqualTo(1_000_000L);
        assertThat(s.getAccessTime()).isEqualTo(2_000_000L);
        assertThatThrownBy(() -> fs.setOwner(file, null, null)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> fs.setPermission(new Path(dir, "missing"), FsPermission.getDefault()))
                .isInstanceOf(FileNotFoundException.class);
    }

    // ------------------------------------------------------------------ not supported

    @Test
    void unsupportedOperationsSaySo() throws IOException {
        Path file = new Path(dir, "f");
        write(file, data(1));
        assertThatThrownBy(() -> fs.concat(file, new Path[] {new Path(dir, "g")}))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("concat");
        assertThatThrownBy(() -> fs.truncate(file, 0))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("truncate");
        assertThatThrownBy(() -> fs.createSymlink(file, new Path(dir, "link"), false))
                .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("symlinks");
        assertThatThrownBy(() -> fs.setXAttr(file, "user.a", new byte[1]))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> fs.getAclStatus(file)).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void uriWithoutPortMeansTheDefaultPort() {
        URI noPort = URI.create("tarn://127.0.0.1/x");
        assertThat(fs.makeQualified(new Path("/x")).toUri().getPort()).isEqualTo(TarnTestCluster.get().uri().getPort());
        assertThat(TarnHadoopConfig.namenodeOf(noPort).port()).isEqualTo(9060);
    }

}
