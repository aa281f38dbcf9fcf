package io.tarn.client;

import org.junit.jupiter.api.Test;

import java.io.IOException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link AbstractFileSystemOperationsTest} with one namenode, plus what only a single namenode
 * shows: its own status counts every file and directory of the cluster.
 */
class FileSystemOperationsTest extends AbstractFileSystemOperationsTest {
    FileSystemOperationsTest() {
        super(1);
    }

    @Test
    void clusterStatusReportsDatanodesAndCounts() throws IOException {
        write("/cs/f", "x");
        var status = client.clusterStatus();
        assertThat(status.datanodes()).hasSize(2).allMatch(d -> d.alive() && d.capacityBlocks() > 0);
        assertThat(status.files()).isGreaterThanOrEqualTo(1);
        assertThat(status.directories()).isGreaterThanOrEqualTo(1);
    }
}
