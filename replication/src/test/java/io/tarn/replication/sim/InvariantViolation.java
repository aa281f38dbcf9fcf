package io.tarn.replication.sim;

/** A safety invariant failed during a simulated run. */
final class InvariantViolation extends RuntimeException {

    InvariantViolation(String message) {
        super(message);
    }
}
