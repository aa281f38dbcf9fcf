package io.tarn.replication.host;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.tarn.common.testing.Decoders;

/**
 * Coverage-guided fuzzing (Jazzer) of what a datanode reads from the other members of its block
 * groups: one replication message, from heap or direct memory. It is read (and then encodes to bytes
 * that read back as the same message) or refused as malformed; anything else is a finding. Inputs
 * checked in under {@code src/test/resources/io/tarn/replication/host/ReplicationCodecFuzzTestInputs/}.
 */
class ReplicationCodecFuzzTest {
    private static final ReplicationCodec CODEC = new ReplicationCodec(ByteImage.CODEC);

    @FuzzTest(maxDuration = "20s")
    void replicationMessagesAreReadOrRefused(FuzzedDataProvider data) {
        boolean direct = data.consumeBoolean();
        Decoders.readOrRefuse("replication message", CODEC::decode, (m, b) -> CODEC.encode(b, m),
                data.consumeRemainingAsBytes(), direct);
    }
}
