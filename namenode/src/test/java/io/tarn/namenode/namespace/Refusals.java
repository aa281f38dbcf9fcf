package io.tarn.namenode.namespace;

import io.tarn.common.error.TarnException;

/** For random workloads: runs a mutation that the namespace's rules may refuse. */
final class Refusals {
    private Refusals() {
    }

    /** A mutation that may be refused. */
    @FunctionalInterface
    interface Mutation {
        void run() throws TarnException;
    }

    /** Runs {@code m}; a refusal (nothing changed, nothing recorded) is ignored. */
    static void quietly(Mutation m) {
        try {
            m.run();
        } catch (TarnException e) {
            // refused as the rules say: nothing changed, nothing recorded
        }
    }
}
