package io.tarn.common.security;

import io.tarn.common.security.BlockTokens.EpochKey;
import io.tarn.common.security.BlockTokens.Verdict;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static io.tarn.common.security.BlockTokens.READ;
import static io.tarn.common.security.BlockTokens.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Block tokens: what they grant, that they expire, that keys rotate and datanodes check with the
 * keys handed to them (the previous epochs' for as long as their tokens live), and that a token
 * for another block, generation, mode, issuer or time is refused.
 */
class BlockTokensTest {
    private static final long HOUR = 3_600_000L;
    /** The namenode's and the datanode's clock: 2026-11-27 10:00 UTC, moved by the tests. */
    private final AtomicLong now = new AtomicLong(1_795_773_600_000L);
    private final BlockTokens namenode = new BlockTokens(0x0123456789abcdefL, 0xfedcba9876543210L, HOUR, HOUR,
            now::get);

    private BlockTokens datanode() {
        return BlockTokens.holding(namenode.fingerprint(), namenode.keysToHold(), now::get);
    }

    @Test
    void modeBitsAreStable() {
        assertThat(READ).isEqualTo(1);
        assertThat(WRITE).isEqualTo(2);
    }

    @Test
    void aDatanodeHoldingTheKeysChecksWhatTheNamenodeIssued() {
        BlockTokens dn = datanode();
        long stamp = namenode.stamp();
        long r = namenode.issue(1, 2, 3, 4, READ, stamp);
        long w = namenode.issue(1, 2, 3, 4, WRITE, stamp);
        assertThat(r).isNotEqualTo(w);
        assertThat(dn.check(r, stamp, 1, 2, 3, 4, READ)).isEqualTo(Verdict.VALID);
        assertThat(dn.check(w, stamp, 1, 2, 3, 4, WRITE)).isEqualTo(Verdict.VALID);
        assertThat(dn.check(w, stamp, 1, 2, 3, 4, READ)).as("write grants read").isEqualTo(Verdict.VALID);
        assertThat(dn.check(r, stamp, 1, 2, 3, 4, WRITE)).as("read does not grant write").isEqualTo(Verdict.INVALID);
        assertThatThrownBy(() -> dn.key0()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not the master key");
    }

    @Test
    void theStampCarriesTheIssuerTheKeyAndTheExpiry() {
        namenode.issuedBy(3);
        long stamp = namenode.stamp();
        assertThat(BlockTokens.issuer(stamp)).isEqualTo(3);
        assertThat(BlockTokens.keyId(stamp)).isEqualTo((int) (now.get() / HOUR) & 0xffff);
        assertThat(BlockTokens.expiryMillis(stamp)).isEqualTo(now.get() + HOUR);
        assertThat(BlockTokens.describe(stamp)).isEqualTo("namenode 3's key " + BlockTokens.keyId(stamp)
                + ", expiring 2026-11-27T11:00:00Z");
        assertThat(BlockTokens.stampOf(3, BlockTokens.keyId(stamp), (now.get() + HOUR) / 1000)).isEqualTo(stamp);
        assertThatThrownBy(() -> namenode.issuedBy(256)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aTokenExpiresAfterItsLifetimeAndAReplayIsRefused() {
        BlockTokens dn = datanode();
        long stamp = namenode.stamp();
        long t = namenode.issue(7, 8, 9, 10, READ, stamp);
        now.addAndGet(HOUR - 1);
        assertThat(dn.check(t, stamp, 7, 8, 9, 10, READ)).isEqualTo(Verdict.VALID);
        now.addAndGet(1);
        assertThat(dn.check(t, stamp, 7, 8, 9, 10, READ)).isEqualTo(Verdict.EXPIRED);
        // Replayed later still, against the keys the datanode then holds: refused all the same.
        now.addAndGet(3 * HOUR);
        dn.hold(namenode.fingerprint(), namenode.keysToHold());
        assertThat(dn.check(t, stamp, 7, 8, 9, 10, READ)).as("its key dropped, its expiry past")
                .isEqualTo(Verdict.EXPIRED);
    }

    @Test
    void extendingTheExpiryOrChangingTheIssuerBreaksTheToken() {
        BlockTokens dn = datanode();
        long stamp = namenode.stamp();
        long t = namenode.issue(7, 8, 9, 10, WRITE, stamp);
        long later = BlockTokens.stampOf(0, BlockTokens.keyId(stamp), (BlockTokens.expiryMillis(stamp) / 1000) + 3600);
        assertThat(dn.check(t, later, 7, 8, 9, 10, WRITE)).isEqualTo(Verdict.INVALID);
        long other = BlockTokens.stampOf(1, BlockTokens.keyId(stamp), BlockTokens.expiryMillis(stamp) / 1000);
        assertThat(dn.check(t, other, 7, 8, 9, 10, WRITE)).isEqualTo(Verdict.INVALID);
        // Once expired, a forged stamp is still INVALID: expiry is said only of a token whose MAC holds.
        now.addAndGet(2 * HOUR);
        assertThat(dn.check(t, later, 7, 8, 9, 10, WRITE)).isEqualTo(Verdict.INVALID);
    }

    @Test
    void keysRotateAndDatanodesKeepThePreviousOnesWhileTheirTokensLive() {
        assertThat(now.get() % HOUR).as("the test starts at an epoch's start").isZero();
        BlockTokens dn = datanode();
        now.addAndGet(HOUR / 2);
        long first = namenode.stamp(); // epoch N, expiring at 1.5 h
        long t = namenode.issue(1, 1, 1, 1, READ, first);
        now.addAndGet(HOUR / 2 + HOUR / 6); // 1 h 10 min: epoch N + 1
        long second = namenode.stamp();
        assertThat(BlockTokens.keyId(second)).isEqualTo(BlockTokens.keyId(first) + 1);
        long u = namenode.issue(1, 1, 1, 1, READ, second);
        assertThat(u).isNotEqualTo(t);
        // The datanode had epoch N + 1's key before it was used: it was handed ahead.
        assertThat(dn.check(u, second, 1, 1, 1, 1, READ)).isEqualTo(Verdict.VALID);
        // With the keys of epoch N + 1 it still checks t, issued under N and not expired yet.
        dn.hold(namenode.fingerprint(), namenode.keysToHold());
        assertThat(namenode.keysToHold()).extracting(EpochKey::id).containsExactly(BlockTokens.keyId(first),
                BlockTokens.keyId(second), BlockTokens.keyId(second) + 1);
        assertThat(dn.check(t, first, 1, 1, 1, 1, READ)).isEqualTo(Verdict.VALID);
        // At 2 h 10 min (epoch N + 2) t has expired and N's key is no longer handed out.
        now.addAndGet(HOUR);
        dn.hold(namenode.fingerprint(), namenode.keysToHold());
        assertThat(namenode.keysToHold()).extracting(EpochKey::id).doesNotContain(BlockTokens.keyId(first));
        assertThat(dn.check(t, first, 1, 1, 1, 1, READ)).isEqualTo(Verdict.EXPIRED);
        assertThat(dn.check(u, second, 1, 1, 1, 1, READ)).isEqualTo(Verdict.EXPIRED);
        // A datanode that never got a key cannot check a live token.
        BlockTokens stale = BlockTokens.holding(namenode.fingerprint(), List.of(), now::get);
        long third = namenode.stamp();
        long v = namenode.issue(1, 1, 1, 1, READ, third);
        assertThat(stale.check(v, third, 1, 1, 1, 1, READ)).isEqualTo(Verdict.UNKNOWN_KEY);
        assertThat(stale.check(v ^ 1, third, 1, 1, 1, 1, READ)).isEqualTo(Verdict.UNKNOWN_KEY);
    }

    @Test
    void aLifetimeOfSeveralEpochsKeepsThatManyKeys() {
        BlockTokens longLived = new BlockTokens(1, 2, 5 * HOUR, HOUR, now::get);
        long stamp = longLived.stamp();
        long t = longLived.issue(4, 4, 4, 4, WRITE, stamp);
        now.addAndGet(5 * HOUR - 1000);
        BlockTokens dn = BlockTokens.holding(longLived.fingerprint(), longLived.keysToHold(), now::get);
        assertThat(longLived.keysToHold()).hasSize(7);
        assertThat(dn.check(t, stamp, 4, 4, 4, 4, WRITE)).isEqualTo(Verdict.VALID);
        assertThatThrownBy(() -> new BlockTokens(1, 2, 100 * HOUR, HOUR, now::get))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("rotate less often");
        assertThatThrownBy(() -> new BlockTokens(1, 2, 999, HOUR, now::get))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1 s");
    }

    @Test
    void membersOfAGroupAndARestartedNamenodeIssueTheSameTokensFromTheSameMaster() {
        BlockTokens other = new BlockTokens(namenode.key0(), namenode.key1(), HOUR, HOUR, now::get);
        long stamp = namenode.stamp();
        assertThat(other.stamp()).isEqualTo(stamp);
        assertThat(other.issue(5, 6, 7, 8, WRITE, stamp)).isEqualTo(namenode.issue(5, 6, 7, 8, WRITE, stamp));
        assertThat(other.fingerprint()).isEqualTo(namenode.fingerprint());
        assertThat(other.keysToHold()).isEqualTo(namenode.keysToHold());
        BlockTokens rekeyed = new BlockTokens(9, 9, HOUR, HOUR, now::get);
        rekeyed.rekey(namenode.key0(), namenode.key1());
        assertThat(rekeyed.issue(5, 6, 7, 8, WRITE, stamp)).isEqualTo(namenode.issue(5, 6, 7, 8, WRITE, stamp));
        BlockTokens swapped = new BlockTokens(namenode.key1(), namenode.key0(), HOUR, HOUR, now::get);
        assertThat(swapped.issue(5, 6, 7, 8, WRITE, stamp)).isNotEqualTo(namenode.issue(5, 6, 7, 8, WRITE, stamp));
        assertThat(swapped.fingerprint()).isNotEqualTo(namenode.fingerprint());
    }

    @Test
    void theTokenIsTheSipHashOfThePackedFieldsUnderTheModesKey() {
        long stamp = namenode.stamp();
        EpochKey epoch = namenode.keysToHold().get(1); // the current epoch's
        assertThat(epoch.id()).isEqualTo(BlockTokens.keyId(stamp));
        long w0 = SipHash.hash(epoch.k0(), epoch.k1(), WRITE, 0x7461726e2d6d6f64L, 0);
        long w1 = SipHash.hash(epoch.k0(), epoch.k1(), WRITE, 0x7461726e2d6d6f64L, 1);
        assertThat(namenode.issue(0x03020100, 0x07060504, 0x0b0a0908, 0x0f0e0d0c, WRITE, stamp))
                .isEqualTo(SipHash.hash(w0, w1, 0x0302010007060504L, 0x0b0a09080f0e0d0cL, stamp));
        long r0 = SipHash.hash(epoch.k0(), epoch.k1(), READ, 0x7461726e2d6d6f64L, 0);
        long r1 = SipHash.hash(epoch.k0(), epoch.k1(), READ, 0x7461726e2d6d6f64L, 1);
        // negative fields are packed as unsigned 32-bit halves, not sign-extended
        assertThat(namenode.issue(-1, -1, -1, -1, READ, stamp)).isEqualTo(SipHash.hash(r0, r1, -1L, -1L, stamp));
        assertThat(namenode.issue(0, -1, 0, -1, READ, stamp))
                .isEqualTo(SipHash.hash(r0, r1, 0xffffffffL, 0xffffffffL, stamp));
    }

    @Test
    void fieldsAreNotInterchangeable() {
        long stamp = namenode.stamp();
        Set<Long> seen = new HashSet<>();
        seen.add(namenode.issue(1, 2, 3, 4, READ, stamp));
        seen.add(namenode.issue(2, 1, 3, 4, READ, stamp));
        seen.add(namenode.issue(1, 2, 4, 3, READ, stamp));
        seen.add(namenode.issue(3, 4, 1, 2, READ, stamp));
        seen.add(namenode.issue(1, 2, 3, 4, WRITE, stamp));
        seen.add(namenode.issue(1, 2, 3, 4, READ, stamp + 1));
        assertThat(seen).hasSize(6);
        assertThatThrownBy(() -> namenode.issue(1, 2, 3, 4, READ | WRITE, stamp))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void randomKeysDiffer() {
        BlockTokens a = BlockTokens.random();
        BlockTokens b = BlockTokens.random();
        assertThat(new long[] {a.key0(), a.key1()}).isNotEqualTo(new long[] {b.key0(), b.key1()});
        long stamp = a.stamp();
        assertThat(a.issue(1, 2, 3, 4, READ, stamp)).isNotEqualTo(b.issue(1, 2, 3, 4, READ, stamp));
    }

    @Property
    void roundTripAndWriteImpliesRead(@ForAll long k0, @ForAll long k1, @ForAll int dn, @ForAll int region,
                                      @ForAll int block, @ForAll int gen) {
        BlockTokens t = new BlockTokens(k0, k1);
        BlockTokens held = BlockTokens.holding(t.fingerprint(), t.keysToHold());
        long stamp = t.stamp();
        long r = t.issue(dn, region, block, gen, READ, stamp);
        long w = t.issue(dn, region, block, gen, WRITE, stamp);
        assertThat(held.check(r, stamp, dn, region, block, gen, READ)).isEqualTo(Verdict.VALID);
        assertThat(held.check(w, stamp, dn, region, block, gen, WRITE)).isEqualTo(Verdict.VALID);
        assertThat(held.check(w, stamp, dn, region, block, gen, READ)).isEqualTo(Verdict.VALID);
        assertThat(held.check(r, stamp, dn, region, block, gen, WRITE)).isEqualTo(Verdict.INVALID);
    }

    @Property
    void anyChangedFieldFails(@ForAll long k0, @ForAll long k1, @ForAll int dn, @ForAll int region,
                              @ForAll int block, @ForAll int gen, @ForAll boolean write,
                              @ForAll @IntRange(min = 0, max = 3) int field, @ForAll int delta) {
        int d = delta == 0 ? 1 : delta;
        int mode = write ? WRITE : READ;
        BlockTokens t = new BlockTokens(k0, k1);
        long stamp = t.stamp();
        long token = t.issue(dn, region, block, gen, mode, stamp);
        int[] f = {dn, region, block, gen};
        f[field] += d;
        assertThat(t.check(token, stamp, f[0], f[1], f[2], f[3], mode)).isEqualTo(Verdict.INVALID);
        assertThat(t.check(token, stamp, f[0], f[1], f[2], f[3], READ)).isEqualTo(Verdict.INVALID);
    }

    @Test
    void eachFieldIsCovered() {
        long stamp = namenode.stamp();
        long token = namenode.issue(10, 20, 30, 40, WRITE, stamp);
        BlockTokens dn = datanode();
        assertThat(dn.check(token, stamp, 11, 20, 30, 40, WRITE)).as("datanode").isEqualTo(Verdict.INVALID);
        assertThat(dn.check(token, stamp, 10, 21, 30, 40, WRITE)).as("region").isEqualTo(Verdict.INVALID);
        assertThat(dn.check(token, stamp, 10, 20, 31, 40, WRITE)).as("block").isEqualTo(Verdict.INVALID);
        assertThat(dn.check(token, stamp, 10, 20, 30, 41, WRITE)).as("generation").isEqualTo(Verdict.INVALID);
        assertThat(dn.check(token, stamp, 10, 20, 30, 41, READ)).as("generation, read").isEqualTo(Verdict.INVALID);
        assertThat(dn.check(token ^ 1, stamp, 10, 20, 30, 40, WRITE)).as("token bit").isEqualTo(Verdict.INVALID);
        assertThat(dn.check(token, stamp, 10, 20, 30, 40, WRITE)).isEqualTo(Verdict.VALID);
    }
}
