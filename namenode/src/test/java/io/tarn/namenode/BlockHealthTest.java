package io.tarn.namenode;

import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.AdminProtocol.DamagedFile;
import io.tarn.common.protocol.AdminProtocol.DeregisterRequest;
import io.tarn.common.protocol.AdminProtocol.FsckResponse;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Files whose blocks cannot be read, found by the maintenance scan after a datanode stops, dies or
 * comes back without its data, and reported in CLUSTER_STATUS and FSCK.
 */
class BlockHealthTest {
    private final Fixture f = new Fixture();
    private static final long CLIENT = 7;

    private long file(String path, int blocks) throws TarnException {
        FileStatus s = f.create(path, CLIENT);
        for (int i = 0; i < blocks; i++) {
            f.write(s.fileId(), i, CLIENT);
        }
        f.nn.files().close(s.fileId(), CLIENT, (long) blocks * Fixture.BLOCK);
        return s.fileId();
    }

    private FsckResponse maintain() {
        f.nn.runMaintenance();
        return f.nn.health().last();
    }

    @Test
    void aStoppedDatanodesBlocksAreUnavailableUntilItReturnsAndLostWhenItDroppedItsData() throws Exception {
        RegisterResponse dn = f.datanode(1, "dn", 9070, 0, 2, 8, false);
        long x = file("/d/x", 2);
        file("/d/y", 1);
        file("/d/empty", 0);
        assertThat(maintain().healthy()).as("every datanode alive").isTrue();

        f.nn.deregister(new DeregisterRequest(dn.datanodeId(), 0, 1, true));
        FsckResponse stopped = maintain();
        assertThat(stopped.damagedFiles()).isEqualTo(2);
        assertThat(stopped.unavailableBlocks()).isEqualTo(3);
        assertThat(stopped.lostBlocks()).isZero();
        assertThat(stopped.files()).extracting(DamagedFile::path).containsExactlyInAnyOrder("/d/x", "/d/y");
        assertThat(stopped.files()).filteredOn(d -> d.fileId() == x).singleElement()
                .satisfies(d -> assertThat(d.blocks()).isEqualTo(2))
                .satisfies(d -> assertThat(d.unavailable()).isEqualTo(2));
        assertThat(f.nn.clusterStatus().damagedFiles()).isEqualTo(2);

        f.datanode(1, "dn", 9070, 0, 2, 8, true);
        assertThat(maintain().healthy()).as("back with its data").isTrue();
        assertThat(f.nn.clusterStatus().damagedFiles()).isZero();

        f.nn.deregister(new DeregisterRequest(dn.datanodeId(), 0, 1, false));
        FsckResponse lost = maintain();
        assertThat(lost.damagedFiles()).isEqualTo(2);
        assertThat(lost.lostBlocks()).isEqualTo(3);
        assertThat(lost.unavailableBlocks()).isZero();
        f.datanode(1, "dn", 9070, 0, 2, 8, true);
        assertThat(maintain().lostBlocks()).as("its data does not come back with it").isEqualTo(3);
    }

    @Test
    void damageIsCountedAgainWhileItLastsAndNotScannedWhileNothingChanges() throws Exception {
        RegisterResponse dn = f.datanode(1, "dn", 9070, 0, 2, 8, false);
        file("/a", 1);
        file("/b", 1);
        maintain();
        long healthyScan = f.nn.health().last().scannedAtMs();
        f.clock.advance(Fixture.DATANODE_TIMEOUT - 1);
        assertThat(maintain().scannedAtMs()).as("nothing changed: no scan").isEqualTo(healthyScan);

        f.nn.deregister(new DeregisterRequest(dn.datanodeId(), 0, 1, false));
        assertThat(maintain().damagedFiles()).isEqualTo(2);
        f.nn.namespace().delete("/a", false);
        f.clock.advance(1_000);
        assertThat(maintain().damagedFiles()).as("recounted after a while, not at once").isEqualTo(2);
        f.clock.advance(5_000);
        FsckResponse after = maintain();
        assertThat(after.damagedFiles()).isEqualTo(1);
        assertThat(after.files()).extracting(DamagedFile::path).containsExactly("/b");
    }

    @Test
    void aDatanodeThatFallsSilentMakesItsBlocksUnavailable() throws Exception {
        f.datanode(1, "dn", 9070, 0, 2, 8, false);
        file("/s", 1);
        maintain();
        f.clock.advance(Fixture.DATANODE_TIMEOUT + 1);
        FsckResponse silent = maintain();
        assertThat(silent.damagedFiles()).isEqualTo(1);
        assertThat(silent.unavailableBlocks()).isEqualTo(1);
    }
}
