package io.tarn.common.security;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static io.tarn.common.security.BlockTokens.READ;
import static io.tarn.common.security.BlockTokens.WRITE;
import static org.assertj.core.api.Assertions.assertThat;

class BlockTokensTest {

    private final BlockTokens tokens = new BlockTokens(0x0123456789abcdefL, 0xfedcba9876543210L);

    @Test
    void modeBitsAreStable() {
        assertThat(READ).isEqualTo(1);
        assertThat(WRITE).isEqualTo(2);
    }

    @Test
    void issuedTokensCheck() {
        long r = tokens.issue(1, 2, 3, 4, READ);
        long w = tokens.issue(1, 2, 3, 4, WRITE);
        assertThat(tokens.check(r, 1, 2, 3, 4, READ)).isTrue();
        assertThat(tokens.check(w, 1, 2, 3, 4, WRITE)).isTrue();
    }

    @Test
    void writeTokenGrantsReadButReadTokenDoesNotGrantWrite() {
        long r = tokens.issue(1, 2, 3, 4, READ);
        long w = tokens.issue(1, 2, 3, 4, WRITE);
        assertThat(r).isNotEqualTo(w);
        assertThat(tokens.check(w, 1, 2, 3, 4, READ)).isTrue();
        assertThat(tokens.check(r, 1, 2, 3, 4, WRITE)).isFalse();
    }

    @Test
    void tokensAreDeterministicForAKeySoNamenodeAndDatanodeAgree() {
        BlockTokens namenode = new BlockTokens(11, 22);
        BlockTokens datanode = new BlockTokens(namenode.key0(), namenode.key1());
        assertThat(datanode.key0()).isEqualTo(11);
        assertThat(datanode.key1()).isEqualTo(22);
        long t = namenode.issue(5, 6, 7, 8, WRITE);
        assertThat(datanode.issue(5, 6, 7, 8, WRITE)).isEqualTo(t);
        assertThat(datanode.check(t, 5, 6, 7, 8, WRITE)).isTrue();
    }

    @Test
    void tokenIsTheSipHashOfThePackedFields() {
        long k0 = 0x0706050403020100L;
        long k1 = 0x0f0e0d0c0b0a0908L;
        BlockTokens t = new BlockTokens(k0, k1);
        assertThat(t.issue(0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, WRITE))
                .isEqualTo(SipHash.hash(k0, k1, 0x0302010007060504L, 0x0b0a09080f0e0d0cL, WRITE));
        // negative fields are packed as unsigned 32-bit halves, not sign-extended
        assertThat(t.issue(-1, -1, -1, -1, READ)).isEqualTo(SipHash.hash(k0, k1, -1L, -1L, READ));
        assertThat(t.issue(0, -1, 0, -1, READ)).isEqualTo(SipHash.hash(k0, k1, 0xffffffffL, 0xffffffffL, READ));
    }

    @Test
    void fieldsAreNotInterchangeable() {
        Set<Long> seen = new HashSet<>();
        seen.add(tokens.issue(1, 2, 3, 4, READ));
        seen.add(tokens.issue(2, 1, 3, 4, READ));
        seen.add(tokens.issue(1, 2, 4, 3, READ));
        seen.add(tokens.issue(3, 4, 1, 2, READ));
        seen.add(tokens.issue(0, 1, 2, 3, 4));
        seen.add(tokens.issue(1, 2, 3, 4, READ | WRITE));
        assertThat(seen).hasSize(6);
    }

    @Test
    void differentKeysGiveDifferentTokens() {
        BlockTokens other = new BlockTokens(tokens.key0(), tokens.key1() + 1);
        BlockTokens swapped = new BlockTokens(tokens.key1(), tokens.key0());
        long t = tokens.issue(1, 2, 3, 4, WRITE);
        assertThat(other.issue(1, 2, 3, 4, WRITE)).isNotEqualTo(t);
        assertThat(swapped.issue(1, 2, 3, 4, WRITE)).isNotEqualTo(t);
        assertThat(other.check(t, 1, 2, 3, 4, WRITE)).isFalse();
        assertThat(other.check(t, 1, 2, 3, 4, READ)).isFalse();
    }

    @Test
    void randomKeysDiffer() {
        BlockTokens a = BlockTokens.random();
        BlockTokens b = BlockTokens.random();
        assertThat(new long[] {a.key0(), a.key1()}).isNotEqualTo(new long[] {b.key0(), b.key1()});
        assertThat(a.issue(1, 2, 3, 4, READ)).isNotEqualTo(b.issue(1, 2, 3, 4, READ));
    }

    @Property
    void roundTripAndWriteImpliesRead(@ForAll long k0, @ForAll long k1, @ForAll int dn, @ForAll int region,
                                      @ForAll int block, @ForAll int gen) {
        BlockTokens t = new BlockTokens(k0, k1);
        long r = t.issue(dn, region, block, gen, READ);
        long w = t.issue(dn, region, block, gen, WRITE);
        assertThat(t.check(r, dn, region, block, gen, READ)).isTrue();
        assertThat(t.check(w, dn, region, block, gen, WRITE)).isTrue();
        assertThat(t.check(w, dn, region, block, gen, READ)).isTrue();
        assertThat(t.check(r, dn, region, block, gen, WRITE)).isFalse();
    }

    @Property
    void anyChangedFieldFails(@ForAll long k0, @ForAll long k1, @ForAll int dn, @ForAll int region,
                              @ForAll int block, @ForAll int gen, @ForAll boolean write,
                              @ForAll @IntRange(min = 0, max = 3) int field, @ForAll int delta) {
        int d = delta == 0 ? 1 : delta;
        int mode = write ? WRITE : READ;
        BlockTokens t = new BlockTokens(k0, k1);
        long token = t.issue(dn, region, block, gen, mode);
        int[] f = {dn, region, block, gen};
        f[field] += d;
        assertThat(t.check(token, f[0], f[1], f[2], f[3], mode)).isFalse();
        assertThat(t.check(token, f[0], f[1], f[2], f[3], READ)).isFalse();
    }

    @Test
    void eachFieldIsCovered() {
        long token = tokens.issue(10, 20, 30, 40, WRITE);
        assertThat(tokens.check(token, 11, 20, 30, 40, WRITE)).as("datanode").isFalse();
        assertThat(tokens.check(token, 10, 21, 30, 40, WRITE)).as("region").isFalse();
        assertThat(tokens.check(token, 10, 20, 31, 40, WRITE)).as("block").isFalse();
        assertThat(tokens.check(token, 10, 20, 30, 41, WRITE)).as("generation").isFalse();
        assertThat(tokens.check(token, 10, 20, 30, 41, READ)).as("generation, read").isFalse();
        assertThat(tokens.check(token ^ 1, 10, 20, 30, 40, WRITE)).as("token bit").isFalse();
        assertThat(tokens.check(token, 10, 20, 30, 40, WRITE)).isTrue();
    }
}
