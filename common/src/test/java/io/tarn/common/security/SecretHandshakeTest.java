package io.tarn.common.security;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.AuthenticationException;
import io.tarn.common.protocol.MalformedMessageException;
import org.junit.jupiter.api.Test;

import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The handshake's exchange run in memory, with every field encoded and decoded as on the wire. */
class SecretHandshakeTest {
    private final KeyFile secret = KeyFile.newClusterSecret();

    /** Runs one exchange through the codecs; returns the server's verdict. */
    private static Identity exchange(KeyFile serverKey, KeyFile clientKey, String user) throws Exception {
        SecretHandshake.Client client = new SecretHandshake.Client(clientKey, user);
        SecretHandshake.Server server = new SecretHandshake.Server(serverKey);
        SecretHandshake.Hello hello = roundTrip(client.hello(), SecretHandshake::writeHello,
                SecretHandshake::readHello);
        SecretHandshake.Challenge challenge = roundTrip(server.challenge(hello), SecretHandshake::writeChallenge,
                SecretHandshake::readChallenge);
        byte[] proof = roundTrip(client.answer(challenge, "server:1"), SecretHandshake::writeProof,
                SecretHandshake::readProof);
        return server.verify(proof);
    }

    private static <T> T roundTrip(T value, java.util.function.BiConsumer<ByteBuf, T> write,
            Function<ByteBuf, T> read) {
        ByteBuf buf = Unpooled.buffer();
        try {
            write.accept(buf, value);
            T back = read.apply(buf);
            assertThat(back).isEqualTo(value);
            return back;
        } finally {
            buf.release();
        }
    }

    @Test
    void eachKindOfKeyAuthenticatesAsItsIdentity() throws Exception {
        assertThat(exchange(secret, secret, "tarn")).isEqualTo(new Identity("tarn", true));
        assertThat(exchange(secret, secret.clientKey(), "alice")).isEqualTo(new Identity("alice", false));
        assertThat(exchange(secret, secret.userKey("bob"), "root")).isEqualTo(new Identity("bob", false));
    }

    @Test
    void aKeyOfAnotherClusterFailsTheServersProofAtTheClient() {
        KeyFile other = KeyFile.newClusterSecret();
        for (KeyFile key : new KeyFile[] {other, other.clientKey(), other.userKey("bob")}) {
            assertThatThrownBy(() -> exchange(secret, key, "bob")).isInstanceOf(AuthenticationException.class)
                    .hasMessageContaining("the server at server:1 could not prove it holds this cluster's secret");
        }
    }

    @Test
    void theServerRefusesAProofMadeWithAnotherKeyOrForAnotherExchange() throws Exception {
        SecretHandshake.Server server = new SecretHandshake.Server(secret);
        SecretHandshake.Client honest = new SecretHandshake.Client(secret.clientKey(), "alice");
        SecretHandshake.Challenge first = server.challenge(honest.hello());
        byte[] proof = honest.answer(first, "s");
        assertThat(server.verify(proof)).isEqualTo(new Identity("alice", false));

        // The same hello and proof replayed on a new connection: the server's nonce differs.
        SecretHandshake.Server again = new SecretHandshake.Server(secret);
        again.challenge(honest.hello());
        assertThatThrownBy(() -> again.verify(proof)).isInstanceOf(AuthenticationException.class)
                .hasMessageContaining("wrong key");

        // A user key's proof does not pass for another user, nor as a daemon.
        SecretHandshake.Client bob = new SecretHandshake.Client(secret.userKey("bob"), "bob");
        SecretHandshake.Hello claimsAlice = new SecretHandshake.Hello(bob.hello().mechanism(), KeyFile.Kind.USER,
                "alice", bob.hello().nonce());
        SecretHandshake.Server third = new SecretHandshake.Server(secret);
        SecretHandshake.Challenge c = third.challenge(claimsAlice);
        assertThatThrownBy(() -> third.verify(bob.proofFor(c))).isInstanceOf(AuthenticationException.class);
        SecretHandshake.Hello claimsDaemon = new SecretHandshake.Hello(bob.hello().mechanism(),
                KeyFile.Kind.CLUSTER, "bob", bob.hello().nonce());
        SecretHandshake.Server fourth = new SecretHandshake.Server(secret);
        SecretHandshake.Challenge d = fourth.challenge(claimsDaemon);
        assertThatThrownBy(() -> fourth.verify(bob.proofFor(d))).isInstanceOf(AuthenticationException.class);
    }

    @Test
    void anUnknownMechanismOrAnUnusableUserNameIsRefusedWithAReason() {
        SecretHandshake.Server server = new SecretHandshake.Server(secret);
        byte[] nonce = new byte[SecretHandshake.NONCE_BYTES];
        assertThatThrownBy(() -> server.challenge(new SecretHandshake.Hello(9, KeyFile.Kind.CLIENT, "a", nonce)))
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("mechanism 9 is not supported");
        assertThatThrownBy(() -> server.challenge(new SecretHandshake.Hello(1, KeyFile.Kind.CLIENT, "", nonce)))
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("user name is empty");
        assertThatThrownBy(() -> server.challenge(new SecretHandshake.Hello(1, KeyFile.Kind.CLIENT, "a\nb", nonce)))
                .isInstanceOf(AuthenticationException.class).hasMessageContaining("control character");
        assertThatThrownBy(() -> new SecretHandshake.Server(secret.clientKey()))
                .hasMessageContaining("a server needs the cluster secret");
    }

    @Test
    void everyTruncationOfAHandshakeFrameIsRefusedAsMalformed() {
        SecretHandshake.Client client = new SecretHandshake.Client(secret.clientKey(), "alice");
        ByteBuf full = Unpooled.buffer();
        SecretHandshake.writeHello(full, client.hello());
        for (int n = 0; n < full.readableBytes(); n++) {
            ByteBuf cut = full.slice(0, n);
            assertThatThrownBy(() -> SecretHandshake.readHello(cut)).isInstanceOf(MalformedMessageException.class);
        }
        ByteBuf longer = Unpooled.buffer().writeBytes(full, 0, full.readableBytes()).writeByte(0);
        assertThatThrownBy(() -> SecretHandshake.readHello(longer)).isInstanceOf(MalformedMessageException.class);
        ByteBuf badKind = full.copy();
        badKind.setByte(1, 7);
        assertThatThrownBy(() -> SecretHandshake.readHello(badKind)).isInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("key kind 7");
        for (ByteBuf b : new ByteBuf[] {full, longer, badKind}) {
            b.release();
        }
    }
}
