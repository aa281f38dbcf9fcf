package io.tarn.hadoop;

import io.tarn.client.TarnClient;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.GroupMember;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.minicluster.Eventually;
import io.tarn.minicluster.MiniCluster;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Files of replication 3 through the Hadoop adapter on a MiniCluster of three datanodes (the shared
 * test cluster has two): Hadoop's factor reaches the namenode, the data reads back, and block
 * locations name every member of each block's group, the one the namenode believes leads first.
 */
class ReplicationThreeIT {
    private static final int BLOCK = 64 * 1024;
    private static final int DATANODES = 3;
    private static final Duration SETTLE = Duration.ofSeconds(20);

    private static MiniCluster cluster;
    private static FileSystem fs;
    private static TarnClient client;

    @BeforeAll
    static void start() throws IOException {
        cluster = MiniCluster.builder().datanodes(DATANODES).set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set("tarn.datanode.dram.capacity", "64m").set("tarn.datanode.dram.region.size", "16m").start();
        URI uri = URI.create("tarn://127.0.0.1:" + cluster.namenodeAddress().getPort());
        fs = FileSystem.newInstance(uri, TarnTestCluster.newConfiguration());
        client = TarnClient.connect(cluster.config());
    }

    @AfterAll
    static void stop() throws IOException {
        fs.close();
        client.close();
        cluster.close();
    }

    private static byte[] data(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void write(Path p, short replication, byte[] bytes) throws IOException {
        try (FSDataOutputStream out = fs.create(p, true, 4096, replication, BLOCK)) {
            out.write(bytes);
        }
    }

    private static byte[] read(Path p) throws IOException {
        try (FSDataInputStream in = fs.open(p)) {
            return in.readAllBytes();
        }
    }

    /** host:port of every datanode, as the namenode lists them. */
    private static List<String> datanodeNames() throws IOException {
        List<String> names = new ArrayList<>();
        for (DatanodeStatus d : client.clusterStatus().datanodes()) {
            names.add(d.host() + ":" + d.port());
        }
        assertThat(names).hasSize(DATANODES);
        return names;
    }

    private static BlockLocation[] locations(Path p, long len) {
        try {
            return fs.getFileBlockLocations(fs.getFileStatus(p), 0, len);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> names(BlockLocation b) {
        try {
            return List.of(b.getNames());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * host:port of each member of block {@code index}'s group, the one the reference names first,
     * then the others in member order.
     */
    private static List<String> membersOf(Path p, int index) {
        BlockRef ref;
        try {
            ref = client.getBlock(client.getStatus(p.toUri().getPath()).fileId(), index);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(ref.replicated()).as("block %d of %s is in a group", index, p).isTrue();
        List<String> names = new ArrayList<>();
        names.add(ref.address());
        for (GroupMember m : ref.group().members()) {
            if (m.memberId() != ref.group().leaderMemberId()) {
                names.add(m.address());
            }
        }
        return names;
    }

    @Test
    void aFileOfReplicationThreeIsLocatedOnEveryMemberOfItsGroups() throws IOException {
        Path file = new Path("/three/located");
        byte[] bytes = data(2 * BLOCK + 1000, 1);
        write(file, (short) 3, bytes);

        assertThat(fs.getFileStatus(file).getReplication()).isEqualTo((short) 3);
        assertThat(read(file)).isEqualTo(bytes);
        // The namenode learns each group's elected leader from its datanodes, so the member it names
        // first may change once after the write: compare locations with the namenode's view of the moment.
        BlockLocation[] blocks = Eventually.value(SETTLE, "locations naming the leaders the namenode names",
                () -> locations(file, bytes.length), located -> {
                    for (int i = 0; i < located.length; i++) {
                        if (!names(located[i]).equals(membersOf(file, i))) {
                            return false;
                        }
                    }
                    return true;
                });
        assertThat(blocks).hasSize(3);
        for (int i = 0; i < blocks.length; i++) {
            BlockLocation b = blocks[i];
            assertThat(b.getOffset()).isEqualTo((long) i * BLOCK);
            assertThat(b.getLength()).isEqualTo(i < 2 ? BLOCK : 1000);
            assertThat(b.getNames()).as("block %d: every datanode", i)
                    .containsExactlyInAnyOrderElementsOf(datanodeNames());
            assertThat(b.getHosts()).containsExactly("127.0.0.1", "127.0.0.1", "127.0.0.1");
            assertThat(b.getTopologyPaths()).containsExactly("/default-rack/" + b.getNames()[0],
                    "/default-rack/" + b.getNames()[1], "/default-rack/" + b.getNames()[2]);
        }

        RemoteIterator<LocatedFileStatus> listed = fs.listLocatedStatus(file); // a file lists as itself
        LocatedFileStatus located = listed.next();
        assertThat(located.getReplication()).isEqualTo((short) 3);
        assertThat(located.getBlockLocations()).hasSize(3);
        for (BlockLocation b : located.getBlockLocations()) {
            assertThat(b.getNames()).containsExactlyInAnyOrderElementsOf(datanodeNames());
        }
    }

    @Test
    void aFileOfReplicationOneIsLocatedOnOneDatanode() throws IOException {
        Path file = new Path("/three/single");
        write(file, (short) 1, data(BLOCK + 10, 2));
        assertThat(fs.getFileStatus(file).getReplication()).isEqualTo((short) 1);
        for (BlockLocation b : fs.getFileBlockLocations(fs.getFileStatus(file), 0, BLOCK + 10)) {
            assertThat(b.getNames()).hasSize(1);
            assertThat(datanodeNames()).contains(b.getNames()[0]);
            assertThat(b.getTopologyPaths()).containsExactly("/default-rack/" + b.getNames()[0]);
        }
    }

    @Test
    void twoAndFactorsAboveThreeGetThreeWhenThreeDatanodesAreAlive() throws IOException {
        Path two = new Path("/three/two");
        write(two, (short) 2, data(100, 3));
        assertThat(fs.getFileStatus(two).getReplication()).isEqualTo((short) 3);

        Path ten = new Path("/three/ten");
        byte[] bytes = data(BLOCK + 5, 4);
        write(ten, (short) 10, bytes);
        assertThat(fs.getFileStatus(ten).getReplication()).as("MapReduce's 10").isEqualTo((short) 3);
        assertThat(read(ten)).isEqualTo(bytes);
        assertThat(fs.getFileBlockLocations(fs.getFileStatus(ten), 0, bytes.length)[1].getHosts()).hasSize(3);

        // What MapReduce's JobSplitWriter does: create with the default, set 10 while empty, write.
        Path split = new Path("/three/job/job.split");
        try (FSDataOutputStream out = fs.create(split)) {
            assertThat(fs.setReplication(split, (short) 10)).isTrue();
            out.write(data(300, 5));
        }
        assertThat(fs.getFileStatus(split).getReplication()).isEqualTo((short) 3);

        Path dir = new Path("/three/wide");
        fs.mkdirs(dir);
        assertThat(fs.setReplication(dir, (short) 10)).isTrue();
        assertThat(fs.getFileStatus(dir).getReplication()).as("the directory's default").isEqualTo((short) 3);
        Path inherits = new Path(dir, "f");
        try (FSDataOutputStream out = fs.create(inherits)) {
            out.write(data(10, 6));
        }
        assertThat(fs.getFileStatus(inherits).getReplication()).isEqualTo((short) 3);
    }

    @Test
    void aHintOnAFileWithDataKeepsItsReplication() throws IOException {
        Path file = new Path("/three/jar");
        write(file, (short) 1, data(500, 7));
        assertThat(fs.setReplication(file, (short) 10)).as("as JobResourceUploader does after copying a jar")
                .isTrue();
        assertThat(fs.getFileStatus(file).getReplication()).isEqualTo((short) 1);
    }
}
