package io.tarn.namenode;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.testing.Decoders;

import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Coverage-guided fuzzing (Jazzer) of the decoders of the protocol between namenodes
 * ({@link PeerProtocol}: directory changes, file adoptions, moved and freed blocks, the directory
 * snapshot a new coordinator takes): whatever bytes arrive, a decoder reads a value or throws
 * {@link MalformedMessageException}, and a value read encodes to bytes that read back equal.
 *
 * <p>{@code mvn verify} replays the inputs checked in under
 * {@code src/test/resources/io/tarn/namenode/PeerProtocolFuzzTestInputs/} and fuzzes for
 * {@code maxDuration} (docs/security.md).
 */
class PeerProtocolFuzzTest {

    private record Codec<T>(String name, BiConsumer<T, ByteBuf> encoder, Function<ByteBuf, T> decoder) {
    }

    private static final List<Codec<?>> CODECS = List.of(
            new Codec<PeerProtocol.DirMkdirRequest>("DirMkdirRequest", PeerProtocol.DirMkdirRequest::encode,
                    PeerProtocol.DirMkdirRequest::decode),
            new Codec<PeerProtocol.MovedBlock>("MovedBlock", PeerProtocol.MovedBlock::encode,
                    PeerProtocol.MovedBlock::decode),
            new Codec<PeerProtocol.AdoptRequest>("AdoptRequest", PeerProtocol.AdoptRequest::encode,
                    PeerProtocol.AdoptRequest::decode),
            new Codec<PeerProtocol.AdoptionRequest>("AdoptionRequest", PeerProtocol.AdoptionRequest::encode,
                    PeerProtocol.AdoptionRequest::decode),
            new Codec<PeerProtocol.FreeBlocksRequest>("FreeBlocksRequest", PeerProtocol.FreeBlocksRequest::encode,
                    PeerProtocol.FreeBlocksRequest::decode),
            new Codec<PeerProtocol.UnreachableRequest>("UnreachableRequest", PeerProtocol.UnreachableRequest::encode,
                    PeerProtocol.UnreachableRequest::decode),
            new Codec<PeerProtocol.DirectorySnapshot>("DirectorySnapshot", PeerProtocol.DirectorySnapshot::encode,
                    PeerProtocol.DirectorySnapshot::decode));

    @FuzzTest(maxDuration = "30s")
    void everyPeerDecoderReadsAValueOrRefusesTheBytes(FuzzedDataProvider data) {
        Codec<?> codec = data.pickValue(CODECS);
        readOrRefuse(codec, data.consumeRemainingAsBytes());
    }

    private static <T> void readOrRefuse(Codec<T> codec, byte[] bytes) {
        Decoders.readOrRefuse(codec.name(), codec.decoder(), codec.encoder(), bytes);
    }
}
