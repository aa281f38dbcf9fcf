package io.tarn.datanode.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.tarn.common.security.BlockTokens;
import io.tarn.replication.host.GroupRunner.Outcome;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.LogEntry;
import io.tarn.replication.PersistentState;
import io.tarn.replication.ReplicationConfig;
import io.tarn.replication.Role;
import io.tarn.replication.StateImage;
import io.tarn.replication.Status;
import io.tarn.replication.WriteCommand;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.tarn.replication.host.BytesPayload;
import io.tarn.replication.host.GroupMembers;
import io.tarn.replication.host.GroupRunner;
import io.tarn.replication.host.GroupStore;
import io.tarn.replication.host.TestWriter;

/**
 * A group whose block store throws while applying an entry stops on that datanode (three hosts over
 * loopback, journals on disk): its pending request fails at once naming the cause, later requests
 * too, it stops sending and reporting leadership, and the other two members keep
 * the group available. Hosted again from its journal over a sound store, it catches up.
 */
class GroupStopTest {
    private static final int BLOCK = 1024;
    private static final int REGION = 16 * BLOCK;
    private static final long GROUP = 11;
    private static final long CLIENT = 5;
    private static final ReplicationConfig CONFIG = ReplicationConfig.builder().checkpointInterval(64).build();
    private static final BlockTokens TOKENS = BlockTokens.random();
    private static final String CAUSE = "region 0 cannot be written (test)";

    /** The region's store, throwing when it applies the write of sequence {@link #poison} of {@link #CLIENT}. */
    private static final class PoisonedStore implements BlockGroupStore {
        private final BlockGroupStore store;
        volatile long poison = -1;

        PoisonedStore(BlockGroupStore store) {
            this.store = store;
        }

        @Override
        public void apply(LogEntry entry) {
            WriteCommand c = entry.command();
            if (c != null && c.clientId() == CLIENT && c.sequence() == poison) {
                throw new IllegalStateException(CAUSE);
            }
            store.apply(entry);
        }

        @Override
        public int blockSize() {
            return store.blockSize();
        }

        @Override
        public int slots() {
            return store.slots();
        }

        @Override
        public int generation(int slot) {
            return store.generation(slot);
        }

        @Override
        public int region() {
            return store.region();
        }

        @Override
        public byte[] read(BlockRange range) {
            return store.read(range);
        }

        @Override
        public StateImage capture(CheckpointMeta meta) {
            return store.capture(meta);
        }

        @Override
        public void restore(Checkpoint checkpoint) {
            store.restore(checkpoint);
        }
    }

    @TempDir
    Path dir;
    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        nodes.forEach(Node::close);
    }

    private static WriteCommand write(long seq, int offset, String text) {
        byte[] data = text.getBytes(StandardCharsets.US_ASCII);
        byte[] payload = new byte[RegionGroupStore.PAYLOAD_HEADER + data.length];
        Unpooled.wrappedBuffer(payload).setInt(0, 1);
        System.arraycopy(data, 0, payload, RegionGroupStore.PAYLOAD_HEADER, data.length);
        return new WriteCommand(CLIENT, seq, seq, new BlockRange(offset, data.length), BytesPayload.copyOf(payload));
    }

    @Test
    void aStoreThatThrowsStopsTheGroupOnItsDatanodeAndTheOthersCarryOn() throws Exception {
        Map<Integer, InetSocketAddress> addresses = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            Node n = new Node(i, dir.resolve("dn" + i), false, REGION, BLOCK, CONFIG, TOKENS, 0);
            nodes.add(n);
            addresses.put(i, n.server.localAddress());
        }
        List<PoisonedStore> stores = new ArrayList<>();
        List<GroupRunner> runners = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            PoisonedStore[] made = new PoisonedStore[1];
            runners.add(nodes.get(i).join(new GroupMembers(GROUP, 1, i, addresses), PersistentState.initialVoter(),
                    store -> made[0] = new PoisonedStore(store)));
            stores.add(made[0]);
        }
        runners.get(0).campaign();
        TestWriter writer = new TestWriter(runners::get, 3, 0);
        for (int seq = 1; seq <= 4; seq++) {
            assertThat(writer.write(write(seq, seq * BLOCK, "w" + seq)).ok()).isTrue();
        }

        int stopped = -1;
        Outcome failed = null;
        long seq = 5;
        // The poisoned member must be the leader when the write reaches it, so that a client waits on it;
        // a loaded machine may move leadership between the probe and the write: then try again.
        for (int attempt = 0; attempt < 10 && stopped < 0; attempt++, seq++) {
            int leader = waitForLeader(runners);
            stores.get(leader).poison = seq;
            Outcome o = runners.get(leader).write(write(seq, 0, "poison")).get(10, TimeUnit.SECONDS);
            if (runners.get(leader).failure() != null) {
                stopped = leader;
                failed = o;
            } else {
                stores.get(leader).poison = -1;
            }
        }
        assertThat(stopped).as("a leader's store threw on the poisoned entry").isNotNegative();
        GroupRunner dead = runners.get(stopped);
        assertThat(failed.status()).as("the waiting client is answered at once, GROUP_UNAVAILABLE").isNull();
        assertThat(failed.unavailable()).contains("group " + GROUP, "applying entry", CAUSE);
        assertThat(dead.failure()).isEqualTo(failed.unavailable());
        assertThat(dead.leads()).as("a stopped group is never reported as led").isFalse();

        long asked = System.nanoTime();
        Outcome later = dead.write(write(seq + 100, 2 * BLOCK, "later")).get(10, TimeUnit.SECONDS);
        assertThat(later.status()).isNull();
        assertThat(later.unavailable()).isEqualTo(dead.failure());
        assertThat(System.nanoTime() - asked).as("answered at once, not after the request timeout")
                .isLessThan(TimeUnit.SECONDS.toNanos(1));
        long sent = nodes.get(stopped).host.messenger().sent();
        Thread.sleep(300);
        assertThat(nodes.get(stopped).host.messenger().sent()).as("a stopped group no longer ticks nor sends")
                .isEqualTo(sent);

        List<Integer> others = new ArrayList<>(List.of(0, 1, 2));
        others.remove(Integer.valueOf(stopped));
        TestWriter survivors = new TestWriter(i -> others.contains(i) ? runners.get(i) : null, 3, others.get(0));
        assertThat(survivors.write(write(seq + 200, 3 * BLOCK, "after")).ok()).isTrue();
        assertThat(new String(nodes.get(others.get(0)).bytes(), 0, 6, StandardCharsets.US_ASCII))
                .as("the entry the stopped member could not apply is applied by the others").isEqualTo("poison");

        // Hosted again from its journal over a sound store, the member catches up with the others.
        Node back = nodes.get(stopped);
        back.host.remove(GROUP);
        back.join(new GroupMembers(GROUP, 1, stopped, addresses), PersistentState.wiped());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Arrays.equals(back.bytes(), nodes.get(others.get(0)).bytes())) {
            assertThat(System.nanoTime()).as("the member hosted again never caught up").isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    /** The member that leads now, by the runners' own observers. */
    private static int waitForLeader(List<GroupRunner> runners) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < runners.size(); i++) {
                if (runners.get(i).leads() && runners.get(i).role() == Role.LEADER) {
                    return i;
                }
            }
            Thread.sleep(2);
        }
        throw new AssertionError("no member leads the group");
    }
}
