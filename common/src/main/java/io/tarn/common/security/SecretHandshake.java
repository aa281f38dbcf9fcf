package io.tarn.common.security;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.Wire;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The mutual challenge-response every connection to an authenticating server starts with, before
 * any other frame. Both sides prove they hold the same key without sending it; fresh nonces from both
 * sides make a recorded exchange useless later.
 *
 * <pre>
 *  client                                               server
 *  AUTH_HELLO  mechanism kind user clientNonce   --&gt;
 *                                                &lt;--  OK: serverNonce serverProof
 *                                                     (or UNAUTHENTICATED: why, and the server closes)
 *  (checks serverProof: a server without the key cannot make it)
 *  AUTH_PROOF  clientProof                       --&gt;
 *  requests, at once                             --&gt;  (the proof is checked before them; a wrong one is
 *                                                      answered UNAUTHENTICATED and the connection closed)
 * </pre>
 *
 * <p>{@code key} is the key of the peer's kind ({@link KeyFile}); the server derives it from the
 * cluster secret. Each proof is HMAC-SHA-256 under that key over a label ("server" or "client") and
 * the transcript: mechanism, kind, user and both nonces, so a proof is good for this exchange only and
 * one side's proof cannot stand in for the other's. A connection costs one round trip before its first
 * request. The fields: mechanism u8 (1), kind u8 ({@link KeyFile.Kind} ordinal), user string, nonces
 * and proofs 32 bytes each.
 *
 * <p>Why not SASL: the JDK's SASL mechanisms for a shared secret are DIGEST-MD5 and CRAM-MD5 (MD5,
 * deprecated, one-way), and Kerberos needs a KDC; SCRAM-SHA-256 is not in the JDK. This exchange
 * gives what SCRAM gives for a shared key (mutual proof, no replay, HMAC-SHA-256) in one round trip.
 */
public final class SecretHandshake {
    /** The only mechanism so far: HMAC-SHA-256 over a shared key. */
    public static final int MECHANISM_HMAC_SHA256 = 1;
    public static final int NONCE_BYTES = 32;
    public static final int PROOF_BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();

    private SecretHandshake() {
    }

    /** A client's first frame's body. Equal when every field is, the nonce byte for byte. */
    public record Hello(int mechanism, KeyFile.Kind kind, String user, byte[] nonce) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Hello h && mechanism == h.mechanism && kind == h.kind && user.equals(h.user)
                    && Arrays.equals(nonce, h.nonce);
        }

        @Override
        public int hashCode() {
            return Objects.hash(mechanism, kind, user) * 31 + Arrays.hashCode(nonce);
        }

        @Override
        public String toString() {
            return "Hello[mechanism=" + mechanism + ", kind=" + kind + ", user=" + user + "]";
        }
    }

    /** The server's answer to {@link Hello}. Equal when both arrays are, byte for byte. */
    public record Challenge(byte[] nonce, byte[] proof) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Challenge c && Arrays.equals(nonce, c.nonce) && Arrays.equals(proof, c.proof);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(nonce) * 31 + Arrays.hashCode(proof);
        }

        @Override
        public String toString() {
            return "Challenge[" + HexFormat.of().formatHex(nonce) + "]";
        }
    }

    public static void writeHello(ByteBuf buf, Hello hello) {
        buf.writeByte(hello.mechanism());
        buf.writeByte(hello.kind().ordinal());
        Wire.writeString(buf, hello.user());
        buf.writeBytes(hello.nonce());
    }

    /** Reads a hello; a mechanism this build does not know is left for the caller to refuse with a message. */
    public static Hello readHello(ByteBuf buf) {
        int mechanism = Wire.readUnsignedByte(buf);
        int kindNumber = Wire.readUnsignedByte(buf);
        KeyFile.Kind kind = KeyFile.Kind.of(kindNumber);
        if (kind == null) {
            throw new MalformedMessageException("key kind " + kindNumber + " is not 0, 1 or 2");
        }
        String user = Wire.readString(buf);
        byte[] nonce = readBytes(buf, NONCE_BYTES);
        Wire.end(buf);
        return new Hello(mechanism, kind, user, nonce);
    }

    public static void writeChallenge(ByteBuf buf, Challenge challenge) {
        buf.writeBytes(challenge.nonce());
        buf.writeBytes(challenge.proof());
    }

    public static Challenge readChallenge(ByteBuf buf) {
        byte[] nonce = readBytes(buf, NONCE_BYTES);
        byte[] proof = readBytes(buf, PROOF_BYTES);
        Wire.end(buf);
        return new Challenge(nonce, proof);
    }

    public static void writeProof(ByteBuf buf, byte[] proof) {
        buf.writeBytes(proof);
    }

    public static byte[] readProof(ByteBuf buf) {
        byte[] proof = readBytes(buf, PROOF_BYTES);
        Wire.end(buf);
        return proof;
    }

    private static byte[] readBytes(ByteBuf buf, int n) {
        Wire.need(buf, n);
        byte[] out = new byte[n];
        buf.readBytes(out);
        return out;
    }

    static byte[] nonce() {
        byte[] n = new byte[NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    /** HMAC-SHA-256 under {@code key} of the label and the exchange's transcript. */
    static byte[] proof(byte[] key, String label, Hello hello, byte[] serverNonce) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            mac.update(("tarn-auth-1 " + label).getBytes(StandardCharsets.US_ASCII));
            mac.update((byte) 0);
            mac.update((byte) hello.mechanism());
            mac.update((byte) hello.kind().ordinal());
            byte[] user = hello.user().getBytes(StandardCharsets.UTF_8);
            mac.update((byte) (user.length >>> 8));
            mac.update((byte) user.length);
            mac.update(user);
            mac.update(hello.nonce());
            mac.update(serverNonce);
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** A client's side of one handshake. Not thread-safe; one per connection attempt. */
    public static final class Client {
        private final byte[] key;
        private final Hello hello;

        /**
         * @param keyFile the client's key
         * @param user    the user name to authenticate as (a user key's own user is used instead)
         */
        public Client(KeyFile keyFile, String user) {
            String name = keyFile.kind() == KeyFile.Kind.USER ? keyFile.user() : user;
            String problem = KeyFile.checkUser(name);
            if (problem != null) {
                throw new IllegalArgumentException("cannot authenticate: " + problem + " (tarn.client.user)");
            }
            this.key = keyFile.kind() == KeyFile.Kind.CLUSTER
                    ? keyFile.keyFor(KeyFile.Kind.CLUSTER, "") : keyFile.secret();
            this.hello = new Hello(MECHANISM_HMAC_SHA256, keyFile.kind(), name, nonce());
        }

        public Hello hello() {
            return hello;
        }

        /**
         * Checks the server's answer and returns the proof to send.
         *
         * @throws AuthenticationException when the server's proof is wrong: it does not hold this
         *                                 cluster's secret (or this key is not from it)
         */
        public byte[] answer(Challenge challenge, String server) throws AuthenticationException {
            byte[] expected = proof(key, "server", hello, challenge.nonce());
            if (!MessageDigest.isEqual(expected, challenge.proof())) {
                throw new AuthenticationException("the server at " + server + " could not prove it holds this "
                        + "cluster's secret: the " + hello.kind().word() + " key in "
                        + "tarn.security.secret.file is not from the secret that server was started with (a new "
                        + "'tarn start' makes a new one), or the address is not that cluster's");
            }
            return proof(key, "client", hello, challenge.nonce());
        }

        /**
         * The client's proof for {@code challenge} without checking the server's: sent, then the
         * connection closed, when the server's proof was wrong, so that a server holding another key
         * learns of the mismatch and logs it.
         */
        public byte[] proofFor(Challenge challenge) {
            return proof(key, "client", hello, challenge.nonce());
        }
    }

    /** A server's side of one handshake. Not thread-safe; one per connection. */
    public static final class Server {
        private final KeyFile clusterSecret;
        private Hello hello;
        private byte[] key;
        private byte[] serverNonce;

        public Server(KeyFile clusterSecret) {
            if (clusterSecret.kind() != KeyFile.Kind.CLUSTER) {
                throw new IllegalArgumentException("a server needs the cluster secret, not a "
                        + clusterSecret.kind().word() + " key");
            }
            this.clusterSecret = clusterSecret;
        }

        /**
         * Answers the client's hello.
         *
         * @throws AuthenticationException for a mechanism this build does not speak or a user name no
         *                                 key can carry
         */
        public Challenge challenge(Hello h) throws AuthenticationException {
            if (h.mechanism() != MECHANISM_HMAC_SHA256) {
                throw new AuthenticationException("authentication mechanism " + h.mechanism()
                        + " is not supported by this server (it speaks " + MECHANISM_HMAC_SHA256
                        + ", HMAC-SHA-256 over a shared key)");
            }
            String problem = KeyFile.checkUser(h.user());
            if (problem != null) {
                throw new AuthenticationException("cannot authenticate: " + problem);
            }
            this.hello = h;
            this.key = clusterSecret.keyFor(h.kind(), h.user());
            this.serverNonce = nonce();
            return new Challenge(serverNonce, proof(key, "server", h, serverNonce));
        }

        /** The hello answered, or null before. */
        public Hello hello() {
            return hello;
        }

        /**
         * Checks the client's proof.
         *
         * @return who the client is
         * @throws AuthenticationException when the proof is wrong
         */
        public Identity verify(byte[] clientProof) throws AuthenticationException {
            if (hello == null) {
                throw new IllegalStateException("no hello answered yet");
            }
            byte[] expected = proof(key, "client", hello, serverNonce);
            if (!MessageDigest.isEqual(expected, clientProof)) {
                throw new AuthenticationException("wrong key: the " + hello.kind().word() + " key "
                        + (hello.kind() == KeyFile.Kind.USER ? "of " + hello.user() + " " : "")
                        + "in the client's tarn.security.secret.file is not from this cluster's secret");
            }
            return new Identity(hello.user(), hello.kind() == KeyFile.Kind.CLUSTER);
        }
    }
}
