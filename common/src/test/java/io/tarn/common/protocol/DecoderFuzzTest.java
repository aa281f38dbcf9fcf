package io.tarn.common.protocol;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tarn.common.protocol.Messages.Codec;
import io.tarn.common.testing.Decoders;

/**
 * Coverage-guided fuzzing (Jazzer) of every message body decoder ({@link Messages#ALL}): whatever
 * bytes a peer sends, a decoder either reads a value or refuses the bytes with a
 * {@link MalformedMessageException}; any other exception (an index out of bounds, an array sized
 * by a lying count, an invariant of a record broken) is a finding. A value it reads encodes again
 * to bytes that read back as the same value.
 *
 * <p>{@code mvn verify} runs the inputs checked in under
 * {@code src/test/resources/io/tarn/common/protocol/DecoderFuzzTestInputs/} (regression mode);
 * {@code JAZZER_FUZZ=1 mvn -pl common test -Dtest=DecoderFuzzTest} fuzzes for
 * {@code maxDuration} (docs/security.md).
 */
class DecoderFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void everyDecoderReadsAValueOrRefusesTheBytes(FuzzedDataProvider data) {
        Codec<?> codec = data.pickValue(Messages.ALL);
        byte[] bytes = data.consumeRemainingAsBytes();
        readOrRefuse(codec, bytes);
    }

    private static <T> void readOrRefuse(Codec<T> codec, byte[] bytes) {
        Decoders.readOrRefuse(codec.name(), codec.decoder(), (value, buf) -> codec.encoder().accept(buf, value),
                bytes);
    }
}
