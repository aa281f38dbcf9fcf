package io.tarn.chaos;

import io.tarn.tools.chaos.net.NetworkLab;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The precondition of every chaos test: this machine lets us make network namespaces (root, iproute2). */
final class Namespaces {
    private Namespaces() {
    }

    /** Skips the calling test class, saying why, where namespaces cannot be made. */
    static void assumeAvailable() {
        String reason = NetworkLab.unavailableReason();
        assumeTrue(reason == null, () -> "chaos tests skipped: " + reason);
    }
}
