package io.tarn.datanode.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.tarn.common.security.BlockTokens;
import io.tarn.replication.BlockRange;
import io.tarn.replication.PersistentState;
import io.tarn.replication.ReplicationConfig;
import io.tarn.replication.WriteCommand;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import io.tarn.replication.host.BytesPayload;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.GroupMembers;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.TestWriter;

/**
 * A member that lost its replica catches up from a checkpoint image larger than the largest frame
 * the transport takes (16 MiB): the leader streams it in chunks over real sockets, the follower
 * stages them (in a file beside a disk journal, in direct memory with a memory journal), installs
 * the image, and ends byte-identical to the others.
 */
class ImageTransferTest {

    private static final int BLOCK = 1 << 20;
    private static final int REGION = 20 * BLOCK;
    private static final long GROUP = 11;
    private static final ReplicationConfig CONFIG = ReplicationConfig.builder().checkpointInterval(32).build();
    private static final BlockTokens TOKENS = BlockTokens.random();

    private final List<Node> nodes = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        nodes.forEach(Node::close);
    }

    @ParameterizedTest(name = "memory journal: {0}")
    @ValueSource(booleans = {false, true})
    void aWipedMemberCatchesUpFromAnImageLargerThanAFrame(boolean memoryJournal) throws Exception {
        Map<Integer, InetSocketAddress> addresses = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            Node n = new Node(i, dir.resolve("dn" + i), memoryJournal, REGION, BLOCK, CONFIG, TOKENS, 0);
            nodes.add(n);
            addresses.put(i, n.server.localAddress());
        }
        List<GroupRunner> runners = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            runners.add(nodes.get(i).join(new GroupMembers(GROUP, 1, i, addresses), PersistentState.initialVoter()));
        }
        runners.get(0).campaign();
        TestWriter writer = new TestWriter(runners::get, 3, 0);
        SplittableRandom random = new SplittableRandom(42);
        long seq = 1;
        assertThat(writer.write(write(1, seq++, 0, random)).ok()).isTrue();
        int gone = (writer.leader() + 1) % 3;
        nodes.get(gone).host.remove(GROUP);
        // A leader keeps the log for a member heard from within an election timeout (it would
        // catch up from the log): once that has passed, checkpoints cut what the member misses.
        Thread.sleep(2L * CONFIG.electionTimeoutMax());
        // Every block gets data, and enough entries pass for checkpoints to compact what the gone member missed.
        for (int round = 0; round < 4; round++) {
            for (int block = 0; block < REGION / BLOCK; block++) {
                assertThat(writer.write(write(1, seq++, block, random)).ok()).isTrue();
            }
        }
        Node wiped = nodes.get(gone);
        wiped.regions.write(0, 0, Unpooled.wrappedBuffer(new byte[REGION]), 0, REGION);
        if (!memoryJournal) {
            ReplicationOverTcpTest.deleteTree(GroupJournal.directory(wiped.journals, GROUP));
        }
        long chunksBefore = chunksSent();
        wiped.join(new GroupMembers(GROUP, 1, gone, addresses), PersistentState.wiped());
        awaitIdentical();
        Node leader = nodes.get(writer.leader());
        // Counted over every node: leadership may move while the member catches up.
        assertThat(chunksSent() - chunksBefore).as("the image went in chunks of at most 1 MiB")
                .isGreaterThanOrEqualTo(REGION / BLOCK);
        // A transfer counts as completed when its InstallCheckpoint is answered, which may come after
        // the member restored the image.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (nodes.stream().mapToLong(n -> n.host.messenger().transfers().completed()).sum() == 0) {
            assertThat(System.nanoTime()).as("a transfer completed").isLessThan(deadline);
            Thread.sleep(10);
        }
        for (int block = 0; block < REGION / BLOCK; block++) {
            assertThat(wiped.generations.get(0, block)).isEqualTo(leader.generations.get(0, block)).isPositive();
        }
        if (!memoryJournal) {
            try (Stream<Path> files = Files.list(GroupJournal.directory(wiped.journals, GROUP))) {
                assertThat(files.map(p -> p.getFileName().toString()))
                        .as("the staged copy is gone once installed").noneMatch(n -> n.startsWith("staging-"));
            }
        }
        // The caught-up member keeps replicating.
        assertThat(writer.write(write(1, seq, 3, random)).ok()).isTrue();
        awaitIdentical();
    }

    private static WriteCommand write(long client, long seq, int block, SplittableRandom random) {
        int length = 64 * 1024;
        int offset = random.nextInt(BLOCK - length + 1);
        byte[] payload = new byte[RegionGroupStore.PAYLOAD_HEADER + length];
        Unpooled.wrappedBuffer(payload).setInt(0, (int) seq);
        byte[] data = new byte[length];
        random.nextBytes(data);
        System.arraycopy(data, 0, payload, RegionGroupStore.PAYLOAD_HEADER, length);
        return new WriteCommand(client, seq, seq, new BlockRange((long) block * BLOCK + offset, length),
                BytesPayload.copyOf(payload));
    }

    private long chunksSent() {
        return nodes.stream().mapToLong(n -> n.host.messenger().transfers().chunksSent()).sum();
    }

    private void awaitIdentical() throws Exception {
        ReplicationOverTcpTest.awaitIdentical(nodes, 30);
    }
}
