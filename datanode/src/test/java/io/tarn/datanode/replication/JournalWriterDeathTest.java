package io.tarn.datanode.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.tarn.common.security.BlockTokens;
import io.tarn.replication.host.GroupRunner.Outcome;
import io.tarn.replication.host.JournalFixtures.Recorder;
import io.tarn.replication.BlockRange;
import io.tarn.replication.DiskOp;
import io.tarn.replication.PersistentState;
import io.tarn.replication.ReplicationConfig;
import io.tarn.replication.StateImage;
import io.tarn.replication.WriteCommand;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.tarn.replication.host.Admission;
import io.tarn.replication.host.BytesPayload;
import io.tarn.replication.host.FileImageStore;
import io.tarn.replication.host.GroupJournal;
import io.tarn.replication.host.GroupMembers;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.ImageStore;
import io.tarn.replication.host.JournalFixtures;
import io.tarn.replication.host.JournalWriter;
import io.tarn.replication.host.TestWriter;

/**
 * The datanode's journal writer thread dies (an op whose persistence throws an {@link Error}, as a
 * heap exhaustion does): every group using it fails with a reason naming the cause, nothing hangs,
 * and a journal opened afterwards fails at once.
 */
class JournalWriterDeathTest {
    private static final PersistentState FRESH = PersistentState.initialVoter();
    private static final String CAUSE = "Java heap space (simulated)";

    @TempDir
    Path tmp;

    /** Images on disk, except that saving one runs out of memory. */
    private static final class ExhaustedImages implements ImageStore {
        private final FileImageStore files;

        ExhaustedImages(Path dir) {
            this.files = new FileImageStore(dir);
        }

        @Override
        public void save(long id, StateImage image) {
            throw new OutOfMemoryError(CAUSE);
        }

        @Override
        public StateImage load(long id) throws IOException {
            return files.load(id);
        }

        @Override
        public void retainOnly(long... ids) throws IOException {
            files.retainOnly(ids);
        }
    }

    @Test
    void aDeadWriterFailsEveryJournalWithItsCause() throws Exception {
        Recorder rec = new Recorder();
        SplittableRandom r = new SplittableRandom(3);
        try (JournalWriter writer = new JournalWriter(64, rec);
             GroupJournal healthy = GroupJournal.open(1, tmp.resolve("group-1"), FRESH, writer);
             GroupJournal doomed = GroupJournal.open(2, tmp.resolve("group-2"), FRESH, writer,
                     new ExhaustedImages(tmp.resolve("group-2")), GroupJournal.DEFAULT_SEGMENT_BYTES)) {
            healthy.append(new DiskOp.PersistHardState(1, 1, 0, true));
            rec.await(1, 1);
            assertThat(doomed.append(JournalFixtures.checkpoint(1, 3, 0, r))).isEqualTo(Admission.QUEUED);
            rec.await(2, Integer.MAX_VALUE);
            rec.await(1, Integer.MAX_VALUE);

            assertThat(writer.death()).contains("journal writer thread died", "OutOfMemoryError", CAUSE);
            for (long group : List.of(1L, 2L)) {
                assertThat(rec.failures.get(group)).as("group %d told why", group).contains(writer.death());
            }
            assertThat(healthy.failure()).isEqualTo(rec.failures.get(1L));
            assertThat(healthy.append(new DiskOp.PersistHardState(2, 2, 0, true))).isEqualTo(Admission.FAILED);
            assertThat(rec.durable(1)).containsExactly(1L);

            try (GroupJournal late = GroupJournal.open(3, tmp.resolve("group-3"), FRESH, writer)) {
                assertThat(late.failure()).as("opened after the writer died").contains(CAUSE)
                        .isEqualTo(rec.failures.get(3L));
                assertThat(late.append(new DiskOp.PersistHardState(1, 1, 0, true))).isEqualTo(Admission.FAILED);
            }
        }
    }

    @Test
    void aGroupWhoseWriterDiedAnswersItsClientsWithTheCause() throws Exception {
        ReplicationConfig config = ReplicationConfig.builder().checkpointInterval(32).build();
        BlockTokens tokens = BlockTokens.random();
        List<Node> nodes = new ArrayList<>();
        try {
            Map<Integer, InetSocketAddress> addresses = new HashMap<>();
            for (int i = 0; i < 3; i++) {
                Node n = new Node(i, tmp.resolve("dn" + i), false, 16 * 1024, 1024, config, tokens, 0);
                nodes.add(n);
                addresses.put(i, n.server.localAddress());
            }
            Node sick = nodes.get(2);
            List<GroupRunner> runners = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                runners.add(nodes.get(i).join(new GroupMembers(9, 1, i, addresses), FRESH));
            }
            Path images = GroupJournal.directory(sick.journals, 9);
            runners.add(sick.join(new GroupMembers(9, 1, 2, addresses), FRESH, new ExhaustedImages(images)));
            // A second group on the sick datanode, with sound images: it shares the writer, so it fails too.
            GroupRunner bystander = sick.join(new GroupMembers(10, 1, 0, Map.of(0, addresses.get(2))), FRESH);
            runners.get(0).campaign();
            bystander.campaign();

            TestWriter writer = new TestWriter(runners::get, 3, 0);
            for (int seq = 1; seq <= 3 * config.checkpointInterval() && sick.writer.death() == null; seq++) {
                assertThat(writer.write(write(seq)).ok()).isTrue();
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (runners.get(2).failure() == null || bystander.failure() == null) {
                assertThat(System.nanoTime()).as("the groups of the sick datanode never failed").isLessThan(deadline);
                Thread.sleep(5);
            }
            assertThat(sick.writer.death()).contains(CAUSE);
            for (GroupRunner failed : List.of(runners.get(2), bystander)) {
                assertThat(failed.failure()).contains(CAUSE);
                assertThat(failed.leads()).isFalse();
                Outcome o = failed.write(write(1000)).get(1, TimeUnit.SECONDS);
                assertThat(o.status()).isNull();
                assertThat(o.unavailable()).contains("cannot acknowledge writes on this datanode", CAUSE);
            }
            assertThat(writer.write(write(2000)).ok()).as("the healthy members keep the group available").isTrue();
        } finally {
            nodes.forEach(Node::close);
        }
    }

    private static WriteCommand write(long seq) {
        byte[] payload = new byte[RegionGroupStore.PAYLOAD_HEADER + 8];
        payload[RegionGroupStore.PAYLOAD_HEADER - 1] = 1; // generation 1, big-endian
        return new WriteCommand(4, seq, seq, new BlockRange((seq % 16) * 1024, 8), BytesPayload.copyOf(payload));
    }
}
