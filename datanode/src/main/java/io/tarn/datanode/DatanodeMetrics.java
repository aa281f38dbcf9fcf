package io.tarn.datanode;

import io.tarn.common.error.ErrorCode;

import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of one datanode's block service: requests, bytes moved and errors by code.
 *
 * <p>Updated on the I/O threads without locks ({@link LongAdder}); the getters give a recent,
 * not an atomic, view across counters.
 */
public final class DatanodeMetrics {
    private final LongAdder writeRequests = new LongAdder();
    private final LongAdder readRequests = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder pings = new LongAdder();
    private final LongAdder shortCircuits = new LongAdder();
    private final ErrorCode[] codes = ErrorCode.values();
    private final LongAdder[] errors = new LongAdder[codes.length];

    public DatanodeMetrics() {
        for (int i = 0; i < errors.length; i++) {
            errors[i] = new LongAdder();
        }
    }

    void wrote(int bytes) {
        writeRequests.increment();
        bytesWritten.add(bytes);
    }

    void read(int bytes) {
        readRequests.increment();
        bytesRead.add(bytes);
    }

    void shortCircuited() {
        shortCircuits.increment();
    }

    void pinged() {
        pings.increment();
    }

    void failed(ErrorCode code) {
        errors[code.ordinal()].increment();
    }

    /** WRITE_BLOCK and SC_WRITE requests served successfully. */
    public long writeRequests() {
        return writeRequests.sum();
    }

    /** READ_BLOCK and SC_READ requests served successfully. */
    public long readRequests() {
        return readRequests.sum();
    }

    /** Data bytes of successful writes (stored here, or copied in by a co-located client). */
    public long bytesWritten() {
        return bytesWritten.sum();
    }

    /** Data bytes of successful reads (sent, or copied out by a co-located client). */
    public long bytesRead() {
        return bytesRead.sum();
    }

    /**
     * Of the reads and writes above, those served short-circuit (SC_READ, SC_WRITE): checked here,
     * the bytes copied by a co-located client.
     */
    public long shortCircuitRequests() {
        return shortCircuits.sum();
    }

    /** PING requests answered. */
    public long pings() {
        return pings.sum();
    }

    /** Requests answered with an error, all codes together. */
    public long errors() {
        long sum = 0;
        for (LongAdder e : errors) {
            sum += e.sum();
        }
        return sum;
    }

    /** Requests answered with the given error code. */
    public long errors(ErrorCode code) {
        return errors[code.ordinal()].sum();
    }

    @Override
    public String toString() {
        return "DatanodeMetrics{writes=" + writeRequests() + ", reads=" + readRequests() + ", bytesWritten="
                + bytesWritten() + ", bytesRead=" + bytesRead() + ", shortCircuit=" + shortCircuitRequests()
                + ", pings=" + pings() + ", errors=" + errors() + "}";
    }
}
