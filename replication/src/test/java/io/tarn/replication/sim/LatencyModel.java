package io.tarn.replication.sim;

import java.util.SplittableRandom;

/** A latency distribution in simulated microseconds. */
@FunctionalInterface
interface LatencyModel {

    long sampleMicros(SplittableRandom random);

    /** Uniform in {@code [min, max]}, with probability {@code tailP} an extra uniform {@code [0, tailMax]}. */
    static LatencyModel uniformWithTail(long min, long max, double tailP, long tailMax) {
        return r -> min + r.nextLong(max - min + 1) + (r.nextDouble() < tailP ? r.nextLong(tailMax + 1) : 0);
    }

    /** Log-normal with the given median and shape sigma, plus a fixed floor. */
    static LatencyModel logNormal(long floor, double median, double sigma) {
        return r -> floor + Math.round(median * Math.exp(sigma * gaussian(r)));
    }

    /** This latency plus, with probability {@code p}, an extra uniform {@code [min, max]} (stalls, retransmits). */
    default LatencyModel withTail(double p, long min, long max) {
        return r -> sampleMicros(r) + (r.nextDouble() < p ? min + r.nextLong(max - min + 1) : 0);
    }

    private static double gaussian(SplittableRandom r) {
        double u1 = Math.max(r.nextDouble(), 1e-12);
        double u2 = r.nextDouble();
        return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }
}
