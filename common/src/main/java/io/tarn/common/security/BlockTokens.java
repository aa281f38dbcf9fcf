package io.tarn.common.security;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Issues and checks block access tokens that expire, under keys that rotate.
 *
 * <p>A token is a SipHash-2-4 MAC over (datanode, region, block, generation, stamp), keyed by the
 * access mode's key of one epoch. The <em>stamp</em> travels beside it: the issuing namenode's
 * partition (8 bits: a datanode checks the token with that namenode's keys, so a namenode that
 * adopted a file from another issues the tokens of its blocks itself), the epoch's key id (16 bits)
 * and the token's expiry in seconds since 1970 (40 bits). Time is cut into epochs of
 * {@code rotation}; each has its own key, derived from the namenode's master key, so members of a
 * replicated namenode group (which share the master, from their journal) issue the same tokens and
 * a namenode that restarts from its journal still honours the ones it issued before.
 *
 * <p>The namenode holds the master and issues; a datanode never sees the master: it holds the keys
 * of the epochs whose tokens may still be valid, and the next one ({@link #keysToHold}), which the
 * namenode hands it at registration and with every heartbeat answer. So a key taken from a datanode
 * forges tokens for a few epochs at most, and a token stolen from a client works until its expiry,
 * {@code lifetime} after it was issued. A check that fails names why: {@link Verdict#EXPIRED} (the
 * client asks for a new token and goes on), {@link Verdict#UNKNOWN_KEY}, or {@link Verdict#INVALID}
 * (another block, generation or mode, or forged). Expiry is reported for a token whose MAC holds,
 * and for a stamp past its expiry whose key is no longer held; a forger learns nothing from it.
 * Expiry is kept in whole seconds, rounded up.
 *
 * <p>Thread-safe; checking and issuing allocate nothing. Clocks of namenodes and datanodes must
 * agree to within a small part of the lifetime (as HDFS asks).
 */
public final class BlockTokens {
    /** Access mode bit in a token: reading. */
    public static final int READ = 1;
    /** Access mode bit in a token: writing (also permits reading). */
    public static final int WRITE = 2;
    /** Most keys a datanode is handed: the lifetime spans at most this many epochs less two. */
    public static final int MAX_KEYS = 64;
    /** Default lifetime of a token: 10 hours, as HDFS's. */
    public static final long DEFAULT_LIFETIME_MS = 10 * 3_600_000L;
    /** Default epoch of a key: 10 hours, as HDFS rolls its block keys. */
    public static final long DEFAULT_ROTATION_MS = 10 * 3_600_000L;

    private static final int KEY_ID_BITS = 16;
    private static final int KEY_ID_MASK = (1 << KEY_ID_BITS) - 1;
    private static final int EXPIRY_BITS = 40;
    /** Most namenodes (partitions) a stamp can name. */
    public static final int MAX_ISSUERS = 256;
    private static final long EXPIRY_MASK = (1L << EXPIRY_BITS) - 1;
    private static final long EPOCH_TAG = 0x7461726e2d6b6579L; // "tarn-key"
    private static final long MODE_TAG = 0x7461726e2d6d6f64L; // "tarn-mod"
    private static final long PRINT_TAG = 0x7461726e2d707274L; // "tarn-prt"

    /** What a check found. */
    public enum Verdict {
        /** The token grants the access and has not expired. */
        VALID,
        /** The token was issued for this access but its time is over: ask for a new one. */
        EXPIRED,
        /** The token names a key this holder does not have (a datanode that has not heard from its namenode lately). */
        UNKNOWN_KEY,
        /** The token was not issued for this block, generation and mode. */
        INVALID
    }

    /** The key of one epoch, as handed to datanodes. */
    public record EpochKey(int id, long k0, long k1) {
    }

    /** One epoch's per-mode keys, derived once. */
    private record Epoch(int id, long r0, long r1, long w0, long w1) {
        static Epoch of(EpochKey k) {
            return new Epoch(k.id(), SipHash.hash(k.k0(), k.k1(), READ, MODE_TAG, 0),
                    SipHash.hash(k.k0(), k.k1(), READ, MODE_TAG, 1), SipHash.hash(k.k0(), k.k1(), WRITE, MODE_TAG, 0),
                    SipHash.hash(k.k0(), k.k1(), WRITE, MODE_TAG, 1));
        }
    }

    /** The master key: one reference, so a reader never sees half of a new key. */
    private record Master(long k0, long k1) {
        EpochKey epoch(int id) {
            return new EpochKey(id, SipHash.hash(k0, k1, id, EPOCH_TAG, 0), SipHash.hash(k0, k1, id, EPOCH_TAG, 1));
        }
    }

    private volatile Master master;
    private final long lifetimeMs;
    private final long rotationMs;
    private final LongSupplier clock;
    /** The keys this instance checks with: the recent epochs' (a master holder derives the rest). */
    private volatile Epoch[] held = new Epoch[0];
    /** Fingerprint of the master the held keys come from (0: none known). */
    private volatile long fingerprint;
    /** A master holder's epoch of the last issue, reused while time stays in it. */
    private volatile Epoch issuing;
    /** The partition whose namenode issues with this instance. */
    private volatile int issuer;

    /** A namenode's instance: master key {@code k0, k1}, the default lifetime and rotation, wall time. */
    public BlockTokens(long k0, long k1) {
        this(k0, k1, DEFAULT_LIFETIME_MS, DEFAULT_ROTATION_MS, System::currentTimeMillis);
    }

    /**
     * A namenode's instance.
     *
     * @param lifetimeMs how long an issued token stays valid
     * @param rotationMs how long each key issues tokens (an epoch)
     * @param clock      milliseconds since 1970
     */
    public BlockTokens(long k0, long k1, long lifetimeMs, long rotationMs, LongSupplier clock) {
        if (lifetimeMs < 1000 || rotationMs < 1000) {
            throw new IllegalArgumentException("token lifetime and key rotation must be at least 1 s, not "
                    + lifetimeMs + " and " + rotationMs + " ms");
        }
        if (ceilDiv(lifetimeMs, rotationMs) + 2 > MAX_KEYS) {
            throw new IllegalArgumentException("a token lifetime of " + lifetimeMs + " ms spans more than "
                    + (MAX_KEYS - 2) + " key rotations of " + rotationMs + " ms: rotate less often");
        }
        this.master = new Master(k0, k1);
        this.fingerprint = printOf(k0, k1);
        this.lifetimeMs = lifetimeMs;
        this.rotationMs = rotationMs;
        this.clock = clock;
    }

    private BlockTokens(LongSupplier clock) {
        this.master = null;
        this.lifetimeMs = 0;
        this.rotationMs = 0;
        this.clock = clock;
    }

    /**
     * A datanode's instance: checks with {@code keys} (from the namenode whose master has
     * {@code fingerprint}), issues nothing.
     */
    public static BlockTokens holding(long fingerprint, List<EpochKey> keys, LongSupplier clock) {
        BlockTokens t = new BlockTokens(clock);
        t.hold(fingerprint, keys);
        return t;
    }

    /** A datanode's instance on wall time. */
    public static BlockTokens holding(long fingerprint, List<EpochKey> keys) {
        return holding(fingerprint, keys, System::currentTimeMillis);
    }

    /** From now on checks with {@code keys} (a heartbeat answer's), which replace the ones held. */
    public void hold(long print, List<EpochKey> keys) {
        if (keys.size() > MAX_KEYS) {
            throw new IllegalArgumentException(keys.size() + " block keys: at most " + MAX_KEYS);
        }
        Epoch[] e = new Epoch[keys.size()];
        for (int i = 0; i < e.length; i++) {
            e[i] = Epoch.of(keys.get(i));
        }
        this.held = e;
        this.fingerprint = print;
    }

    /** From now on tokens are issued and checked under master {@code k0, k1}. */
    public void rekey(long k0, long k1) {
        this.master = new Master(k0, k1);
        this.fingerprint = printOf(k0, k1);
        this.issuing = null;
    }

    /** A fresh random master key, default lifetime and rotation. */
    public static BlockTokens random() {
        SecureRandom r = new SecureRandom();
        return new BlockTokens(r.nextLong(), r.nextLong());
    }

    /** A fresh random master key. */
    public static BlockTokens random(long lifetimeMs, long rotationMs) {
        SecureRandom r = new SecureRandom();
        return new BlockTokens(r.nextLong(), r.nextLong(), lifetimeMs, rotationMs, System::currentTimeMillis);
    }

    public long key0() {
        return requireMaster().k0();
    }

    public long key1() {
        return requireMaster().k1();
    }

    /**
     * Identifies the master key without revealing it: datanodes compare it across registrations to
     * notice a namenode that came back with another key.
     */
    public long fingerprint() {
        return fingerprint;
    }

    public long lifetimeMs() {
        return lifetimeMs;
    }

    public long rotationMs() {
        return rotationMs;
    }

    /** Tokens issued from now on name partition {@code p}'s namenode as their issuer. */
    public void issuedBy(int p) {
        if (p < 0 || p >= MAX_ISSUERS) {
            throw new IllegalArgumentException("partition " + p + " cannot issue block tokens: at most "
                    + MAX_ISSUERS + " namenodes");
        }
        this.issuer = p;
    }

    /** The stamp of a token issued now: the issuer, the current epoch's key id and the expiry. */
    public long stamp() {
        long now = clock.getAsLong();
        return stampOf(issuer, keyIdAt(now), ceilDiv(now + lifetimeMs, 1000));
    }

    /** A stamp of issuer {@code partition}, key {@code keyId} and expiry {@code expirySeconds} (since 1970). */
    public static long stampOf(int partition, int keyId, long expirySeconds) {
        return ((long) partition << (KEY_ID_BITS + EXPIRY_BITS)) | ((long) (keyId & KEY_ID_MASK) << EXPIRY_BITS)
                | (expirySeconds & EXPIRY_MASK);
    }

    /** The key id of a stamp. */
    public static int keyId(long stamp) {
        return (int) (stamp >>> EXPIRY_BITS) & KEY_ID_MASK;
    }

    /** The partition whose namenode issued a token of this stamp. */
    public static int issuer(long stamp) {
        return (int) (stamp >>> (KEY_ID_BITS + EXPIRY_BITS));
    }

    /** When a token of this stamp expires, in milliseconds since 1970. */
    public static long expiryMillis(long stamp) {
        return (stamp & EXPIRY_MASK) * 1000;
    }

    /** The token for a block reference with the given access mode and stamp ({@link #stamp()}). */
    public long issue(int datanodeId, int regionId, int blockIndex, int generation, int mode, long stamp) {
        checkMode(mode);
        Epoch e = issuing;
        int id = keyId(stamp);
        if (e == null || e.id() != id) {
            e = Epoch.of(requireMaster().epoch(id));
            issuing = e;
        }
        return mac(e, datanodeId, regionId, blockIndex, generation, mode, stamp);
    }

    /**
     * Whether {@code token} with {@code stamp} grants {@code mode} on this block now; a write token
     * also grants reading.
     */
    public Verdict check(long token, long stamp, int datanodeId, int regionId, int blockIndex, int generation,
                         int mode) {
        checkMode(mode);
        Epoch e = epoch(keyId(stamp));
        if (e == null) {
            // The keys of epochs whose tokens have all expired are dropped: say so of a stamp past its
            // expiry (anyone can read that off the stamp, so it reveals nothing).
            return clock.getAsLong() >= expiryMillis(stamp) ? Verdict.EXPIRED : Verdict.UNKNOWN_KEY;
        }
        if (token != mac(e, datanodeId, regionId, blockIndex, generation, mode, stamp)
                && !(mode == READ && token == mac(e, datanodeId, regionId, blockIndex, generation, WRITE, stamp))) {
            return Verdict.INVALID;
        }
        return clock.getAsLong() >= expiryMillis(stamp) ? Verdict.EXPIRED : Verdict.VALID;
    }

    /**
     * The keys a datanode needs now: every epoch whose tokens may not have expired yet, and the next
     * one, so that it has a key before the namenode issues under it.
     */
    public List<EpochKey> keysToHold() {
        Master m = requireMaster();
        long now = clock.getAsLong();
        int current = keyIdAt(now);
        int back = (int) ceilDiv(lifetimeMs, rotationMs);
        List<EpochKey> keys = new ArrayList<>(back + 2);
        for (int i = -back; i <= 1; i++) {
            keys.add(m.epoch((current + i) & KEY_ID_MASK));
        }
        return keys;
    }

    /** "namenode 0's key 17, expiring 2026-11-27T10:00:00Z", for messages. */
    public static String describe(long stamp) {
        return "namenode " + issuer(stamp) + "'s key " + keyId(stamp) + ", expiring "
                + Instant.ofEpochMilli(expiryMillis(stamp));
    }

    private int keyIdAt(long nowMs) {
        return (int) ((nowMs / rotationMs) & KEY_ID_MASK);
    }

    private Epoch epoch(int id) {
        for (Epoch e : held) {
            if (e.id() == id) {
                return e;
            }
        }
        Master m = master;
        if (m == null) {
            return null;
        }
        Epoch e = issuing;
        return e != null && e.id() == id ? e : Epoch.of(m.epoch(id));
    }

    private static long mac(Epoch e, int datanodeId, int regionId, int blockIndex, int generation, int mode,
                            long stamp) {
        long m0 = ((long) datanodeId << 32) | (regionId & 0xffffffffL);
        long m1 = ((long) blockIndex << 32) | (generation & 0xffffffffL);
        return mode == WRITE ? SipHash.hash(e.w0(), e.w1(), m0, m1, stamp)
                : SipHash.hash(e.r0(), e.r1(), m0, m1, stamp);
    }

    private static void checkMode(int mode) {
        if (mode != READ && mode != WRITE) {
            throw new IllegalArgumentException("block access mode " + mode + " is neither READ (1) nor WRITE (2)");
        }
    }

    private Master requireMaster() {
        Master m = master;
        if (m == null) {
            throw new IllegalStateException("a datanode's block tokens hold epoch keys, not the master key");
        }
        return m;
    }

    private static long ceilDiv(long a, long b) {
        return -Math.floorDiv(-a, b);
    }

    private static long printOf(long k0, long k1) {
        return SipHash.hash(k0, k1, PRINT_TAG, 0, 0);
    }
}
