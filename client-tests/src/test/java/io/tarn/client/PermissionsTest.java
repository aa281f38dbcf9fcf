package io.tarn.client;

import org.junit.jupiter.api.BeforeAll;

import java.io.IOException;

/** {@link PermissionsChecks} on one namenode. */
class PermissionsTest extends PermissionsChecks {
    @BeforeAll
    static void oneNamenode() throws IOException {
        startCluster(1);
    }
}
