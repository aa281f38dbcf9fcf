package io.tarn.common.security;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tarn.common.config.ConfigException;
import io.tarn.common.testing.Decoders;

import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of what an unauthenticated peer can send before anything else is
 * accepted, the handshake's frames, and of the key file parser: a decoder reads a value (which encodes
 * back to an equal one) or refuses the bytes as malformed; the parser reads a key or refuses the text
 * with a {@link ConfigException}. Inputs checked in under
 * {@code src/test/resources/io/tarn/common/security/HandshakeFuzzTestInputs/}.
 */
class HandshakeFuzzTest {

    @FuzzTest(maxDuration = "20s")
    void handshakeFramesAndKeyFilesAreReadOrRefused(FuzzedDataProvider data) {
        int which = data.consumeInt(0, 3);
        byte[] bytes = data.consumeRemainingAsBytes();
        switch (which) {
            case 0 -> Decoders.readOrRefuse("Hello", SecretHandshake::readHello,
                    (v, b) -> SecretHandshake.writeHello(b, v), bytes);
            case 1 -> Decoders.readOrRefuse("Challenge", SecretHandshake::readChallenge,
                    (v, b) -> SecretHandshake.writeChallenge(b, v), bytes);
            case 2 -> Decoders.readOrRefuse("Proof", b -> Arrays.toString(SecretHandshake.readProof(b)),
                    (v, b) -> b.writeBytes(parse(v)), bytes);
            default -> {
                try {
                    KeyFile.parse(List.of(new String(bytes, java.nio.charset.StandardCharsets.UTF_8).split("\n", -1)),
                            "fuzzed");
                } catch (ConfigException refused) {
                    // a clear refusal
                }
            }
        }
    }

    /** Arrays.toString's text back to bytes. */
    private static byte[] parse(String text) {
        String[] parts = text.substring(1, text.length() - 1).split(", ");
        byte[] out = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            out[i] = Byte.parseByte(parts[i]);
        }
        return out;
    }
}
