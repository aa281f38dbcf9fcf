package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.PeerProtocol.AdoptionRequest;
import io.tarn.namenode.PeerProtocol.DirMkdirRequest;
import io.tarn.namenode.PeerProtocol.DirectorySnapshot;
import io.tarn.namenode.PeerProtocol.DirectorySnapshot.Directory;
import io.tarn.namenode.PeerProtocol.FreeBlocksRequest;
import io.tarn.namenode.PeerProtocol.MovedBlock;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The namenode-to-namenode messages: every value survives its encoding, and every truncation of an
 * encoding is refused as malformed, never read as another value.
 */
class PeerProtocolTest {
    @Property(tries = 200)
    void dirMkdirRoundTrips(@ForAll("dirMkdirs") DirMkdirRequest r) {
        check(r, DirMkdirRequest::encode, DirMkdirRequest::decode);
    }

    @Property(tries = 200)
    void adoptRoundTrips(@ForAll("adopts") AdoptRequest r) {
        check(r, AdoptRequest::encode, AdoptRequest::decode);
    }

    @Property(tries = 200)
    void adoptUndoRoundTrips(@ForAll("texts") String parent, @ForAll("texts") String name, @ForAll long from) {
        check(new AdoptionRequest(from), AdoptionRequest::encode, AdoptionRequest::decode);
    }

    @Property(tries = 200)
    void freeBlocksRoundTrips(@ForAll("movedBlockLists") List<MovedBlock> blocks) {
        check(new FreeBlocksRequest(blocks), FreeBlocksRequest::encode, FreeBlocksRequest::decode);
    }

    @Property(tries = 200)
    void snapshotsRoundTrip(@ForAll("snapshots") DirectorySnapshot s) {
        check(s, DirectorySnapshot::encode, DirectorySnapshot::decode);
    }

    private static <T> void check(T value, BiConsumer<T, ByteBuf> encode, Function<ByteBuf, T> decode) {
        ByteBuf buf = Unpooled.buffer();
        try {
            encode.accept(value, buf);
            int length = buf.readableBytes();
            assertThat(decode.apply(buf.duplicate())).isEqualTo(value);
            for (int cut = 0; cut < length; cut += Math.max(1, length / 16)) {
                ByteBuf truncated = buf.slice(0, cut);
                assertThatThrownBy(() -> decode.apply(truncated)).as("cut at %d of %d", cut, length)
                        .isInstanceOf(MalformedMessageException.class);
            }
        } finally {
            buf.release();
        }
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.strings().ofMaxLength(12);
    }

    private static Arbitrary<Ownership> ownerships() {
        return Combinators.combine(Arbitraries.strings().alpha().ofMaxLength(6), Arbitraries.strings().alpha()
                .ofMaxLength(6), Arbitraries.integers().between(0, 07777)).as(Ownership::new);
    }

    @Provide
    Arbitrary<DirMkdirRequest> dirMkdirs() {
        return Combinators.combine(texts(), texts(), Arbitraries.longs(), ownerships(), Arbitraries.longs())
                .as(DirMkdirRequest::new);
    }

    private static Arbitrary<MovedBlock> movedBlocks() {
        Arbitrary<Integer> u16 = Arbitraries.integers().between(0, 65_535);
        Arbitrary<Integer> natural = Arbitraries.integers().between(0, Integer.MAX_VALUE);
        return Combinators.combine(Arbitraries.strings().alpha().ofMaxLength(10), u16, u16, Arbitraries.longs(),
                Arbitraries.integers(), Arbitraries.integers(), natural, natural).as((host, port, home, epoch, id,
                        incarnation, region, block) -> new MovedBlock(host, port, home, epoch, id, incarnation, region,
                        block, 7, 11L, 13L));
    }

    @Provide
    Arbitrary<List<MovedBlock>> movedBlockLists() {
        return movedBlocks().list().ofMaxSize(4);
    }

    @Provide
    Arbitrary<AdoptRequest> adopts() {
        return Combinators.combine(texts(), texts(), Arbitraries.longs(), Arbitraries.longs(), Arbitraries.longs(),
                Arbitraries.integers().between(1, Integer.MAX_VALUE), ownerships(), movedBlockLists())
                .as((parent, name, from, writer, size, blockSize, ownership, blocks) -> new AdoptRequest(parent, name,
                        from, writer, size, blockSize, 0, 3, 1L, 2L, 3L, ownership, blocks, writer ^ size));
    }

    @Provide
    Arbitrary<DirectorySnapshot> snapshots() {
        return Arbitraries.integers().between(1, 5).flatMap(n -> Combinators.combine(texts(), Arbitraries.longs(),
                        ownerships()).as((name, id, ownership) -> new Object[] {name, id, ownership}).list().ofSize(n)
                .map(rows -> {
                    List<Directory> dirs = new ArrayList<>();
                    for (int i = 0; i < rows.size(); i++) {
                        Object[] row = rows.get(i);
                        dirs.add(new Directory(i - 1, (String) row[0], (Long) row[1], (Ownership) row[2], 1, 2, 3,
                                i % 2 == 0 ? 0 : 3));
                    }
                    return new DirectorySnapshot(dirs);
                }));
    }
}
