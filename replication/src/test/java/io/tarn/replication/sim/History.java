package io.tarn.replication.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * The client-observed history of a run: every read and write with its invocation and response
 * times. A write without a response may or may not have taken effect; a read without a response
 * is dropped (it had no effect).
 */
final class History {

    static final long PENDING = Long.MAX_VALUE;

    /** One client operation on a block range. */
    static final class Op {
        final boolean write;
        final long first;
        final int count;
        final long value;
        final long invoke;
        long response = PENDING;
        long[] observed;

        Op(boolean write, long first, int count, long value, long invoke) {
            this.write = write;
            this.first = first;
            this.count = count;
            this.value = value;
            this.invoke = invoke;
        }

        @Override
        public String toString() {
            String what = write ? "W(" + value + ")" : "R" + java.util.Arrays.toString(observed);
            return what + "@[" + first + "+" + count + "] " + invoke + ".." + (response == PENDING ? "?" : response);
        }
    }

    private final List<Op> ops = new ArrayList<>();

    Op invokeWrite(long first, int count, long value, long now) {
        Op op = new Op(true, first, count, value, now);
        ops.add(op);
        return op;
    }

    Op invokeRead(long first, int count, long now) {
        Op op = new Op(false, first, count, 0, now);
        ops.add(op);
        return op;
    }

    List<Op> ops() {
        return ops;
    }
}
