package io.tarn.common.security;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Checks {@link SipHash} against the SipHash-2-4 reference test vectors ({@code vectors_sip64} in the
 * reference implementation's {@code vectors.h}): key bytes 00..0f, message bytes 00..(n-1). The
 * reference lists each 64-bit output as 8 bytes in little-endian order; the constants below are those
 * bytes read as a little-endian long.
 */
class SipHashTest {

    /** Key bytes 00 01 .. 07, little-endian. */
    private static final long K0 = 0x0706050403020100L;
    /** Key bytes 08 09 .. 0f, little-endian. */
    private static final long K1 = 0x0f0e0d0c0b0a0908L;

    /** vectors_sip64[24] = {0x94, 0xaf, 0x49, 0xf6, 0xc6, 0x50, 0xad, 0xb8}. */
    private static final long VECTOR_24 = 0xb8ad50c6f649af94L;

    @Test
    void matchesTheReferenceVectorForA24ByteMessage() {
        long m0 = 0x0706050403020100L; // message bytes 00..07
        long m1 = 0x0f0e0d0c0b0a0908L; // message bytes 08..0f
        long m2 = 0x1716151413121110L; // message bytes 10..17
        assertThat(SipHash.hash(K0, K1, m0, m1, m2)).isEqualTo(VECTOR_24);
    }

    @Test
    void messageWordsAreLittleEndianBytes() {
        byte[] msg = new byte[24];
        for (int i = 0; i < 24; i++) {
            msg[i] = (byte) i;
        }
        assertThat(SipHash.hash(K0, K1, le(msg, 0), le(msg, 8), le(msg, 16))).isEqualTo(VECTOR_24);
    }

    /** A handful of reference outputs for other lengths, to validate the byte-oriented model below. */
    @Test
    void testModelMatchesReferenceVectorsOfSeveralLengths() {
        long[][] vectors = {
                {0, 0x726fdb47dd0e0e31L},
                {1, 0x74f839c593dc67fdL},
                {7, 0xab0200f58b01d137L},
                {8, 0x93f5f5799a932462L},
                {15, 0xa129ca6149be45e5L},
                {16, 0x3f2acc7f57c29bdbL},
                {23, 0xa80c038ccd5ccec8L},
                {24, VECTOR_24},
                {63, 0x958a324ceb064572L},
        };
        for (long[] v : vectors) {
            byte[] msg = new byte[(int) v[0]];
            for (int i = 0; i < msg.length; i++) {
                msg[i] = (byte) i;
            }
            assertThat(model(K0, K1, msg)).as("length %d", v[0]).isEqualTo(v[1]);
        }
    }

    @Property
    void agreesWithTheByteOrientedModel(@ForAll long k0, @ForAll long k1, @ForAll @Size(24) byte[] msg) {
        assertThat(SipHash.hash(k0, k1, le(msg, 0), le(msg, 8), le(msg, 16))).isEqualTo(model(k0, k1, msg));
    }

    @Property(tries = 100)
    void everyInputBitMatters(@ForAll long k0, @ForAll long k1, @ForAll long m0, @ForAll long m1, @ForAll long m2,
                              @ForAll @IntRange(min = 0, max = 5 * 64 - 1) int bit) {
        long[] in = {k0, k1, m0, m1, m2};
        long before = SipHash.hash(in[0], in[1], in[2], in[3], in[4]);
        in[bit / 64] ^= 1L << (bit % 64);
        long after = SipHash.hash(in[0], in[1], in[2], in[3], in[4]);
        assertThat(after).isNotEqualTo(before);
    }

    @Test
    void outputBitsAreRoughlyBalanced() {
        SplittableRandom r = new SplittableRandom(42);
        int ones = 0;
        int n = 2000;
        for (int i = 0; i < n; i++) {
            ones += Long.bitCount(SipHash.hash(K0, K1, r.nextLong(), r.nextLong(), r.nextLong()));
        }
        double mean = ones / (double) n;
        assertThat(mean).isBetween(31.0, 33.0);
    }

    private static long le(byte[] b, int off) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }

    /** SipHash-2-4 over any byte array, written independently of the class under test. */
    static long model(long k0, long k1, byte[] msg) {
        long[] v = {k0 ^ 0x736f6d6570736575L, k1 ^ 0x646f72616e646f6dL,
                k0 ^ 0x6c7967656e657261L, k1 ^ 0x7465646279746573L};
        int full = msg.length / 8 * 8;
        for (int off = 0; off < full; off += 8) {
            compress(v, le(msg, off));
        }
        long last = (long) (msg.length & 0xff) << 56;
        for (int i = full; i < msg.length; i++) {
            last |= (msg[i] & 0xffL) << (8 * (i - full));
        }
        compress(v, last);
        v[2] ^= 0xff;
        for (int i = 0; i < 4; i++) {
            round(v);
        }
        return v[0] ^ v[1] ^ v[2] ^ v[3];
    }

    private static void compress(long[] v, long m) {
        v[3] ^= m;
        round(v);
        round(v);
        v[0] ^= m;
    }

    private static void round(long[] v) {
        v[0] += v[1];
        v[1] = Long.rotateLeft(v[1], 13) ^ v[0];
        v[0] = Long.rotateLeft(v[0], 32);
        v[2] += v[3];
        v[3] = Long.rotateLeft(v[3], 16) ^ v[2];
        v[0] += v[3];
        v[3] = Long.rotateLeft(v[3], 21) ^ v[0];
        v[2] += v[1];
        v[1] = Long.rotateLeft(v[1], 17) ^ v[2];
        v[2] = Long.rotateLeft(v[2], 32);
    }
}
