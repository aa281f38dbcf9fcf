package io.tarn.tools.chaos.check;

/**
 * A read/write register that starts absent: a write sets its value, a read returns it. Every value
 * the workload writes is unique (write-once-per-value), so a state is just the last value written
 * and histories stay small to search.
 */
public final class RegisterModel implements Model<String> {
    /** The state of a register never written: what a read of a missing file returns. */
    static final String ABSENT = "";

    @Override
    public String initial() {
        return ABSENT;
    }

    @Override
    public String step(String state, Operation op) {
        if (op.kind() == Operation.Kind.WRITE) {
            return op.value();
        }
        String read = op.value() == null ? ABSENT : op.value();
        return read.equals(state) ? state : null;
    }
}
