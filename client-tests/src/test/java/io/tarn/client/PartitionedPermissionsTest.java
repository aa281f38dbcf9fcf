package io.tarn.client;

import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;

/**
 * {@link PermissionsChecks} on two namenodes: directory changes go through the coordinator, files
 * live on the namenode their name hashes to, and renames move files between them, each checked alike.
 */
class PartitionedPermissionsTest extends PermissionsChecks {
    @BeforeAll
    static void twoNamenodes() throws IOException {
        startCluster(2);
    }
}
