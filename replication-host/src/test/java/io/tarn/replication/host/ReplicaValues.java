package io.tarn.replication.host;

import io.tarn.replication.BlockRange;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.LogEntry;
import io.tarn.replication.Message;
import io.tarn.replication.SessionSnapshot;
import io.tarn.replication.WriteCommand;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

import java.util.List;
import java.util.Map;

/** Generators of arbitrary replication values for property tests (datanode units: ranges in bytes). */
final class ReplicaValues {
    private ReplicaValues() {
    }

    static Arbitrary<Long> nonNegative() {
        return Arbitraries.oneOf(Arbitraries.longs().between(0, 1000), Arbitraries.longs().between(0, Long.MAX_VALUE));
    }

    static Arbitrary<Integer> replicaIds() {
        return Arbitraries.oneOf(Arbitraries.integers().between(0, 3), Arbitraries.integers().greaterOrEqual(0));
    }

    static Arbitrary<BlockRange> ranges() {
        return Combinators.combine(Arbitraries.longs().between(0, 1L << 40), Arbitraries.integers().between(0, 1 << 20))
                .as(BlockRange::new);
    }

    static Arbitrary<BytesPayload> payloads(int maxBytes) {
        return Arbitraries.bytes().array(byte[].class).ofMinSize(1).ofMaxSize(maxBytes).map(BytesPayload::copyOf);
    }

    static Arbitrary<WriteCommand> commands() {
        Arbitrary<Long> seq = Arbitraries.longs().between(1, Long.MAX_VALUE);
        return Combinators.combine(Arbitraries.longs(), seq, Arbitraries.longs().between(0, 1L << 40), payloads(48))
                .as((client, sequence, offset, payload) -> {
                    long first = Math.max(1, sequence / 2);
                    return new WriteCommand(client, sequence, first, new BlockRange(offset, payload.length()),
                            payload);
                });
    }

    static Arbitrary<LogEntry> entries() {
        Arbitrary<Long> terms = nonNegative();
        Arbitrary<Long> indices = Arbitraries.longs().between(1, Long.MAX_VALUE);
        Arbitrary<List<BlockRange>> lookBehind = ranges().list().ofMaxSize(3);
        Arbitrary<LogEntry> noops = Combinators.combine(terms, indices, lookBehind,
                Arbitraries.longs().between(0, 1L << 40))
                .as((t, i, lb, first) -> new LogEntry(t, i,
                        first % 3 == 0 ? BlockRange.EMPTY : new BlockRange(first, 0), lb, null));
        Arbitrary<LogEntry> writes = Combinators.combine(terms, indices, lookBehind, commands())
                .as((t, i, lb, c) -> new LogEntry(t, i, c.range(), lb, c));
        Arbitrary<LogEntry> configurations = Combinators.combine(terms, indices,
                Arbitraries.integers().between(0, 1000).set().ofMinSize(1).ofMaxSize(5))
                .as((t, i, m) -> LogEntry.configuration(t, i, List.copyOf(m)));
        return Arbitraries.frequencyOf(Tuple.of(1, noops), Tuple.of(3, writes), Tuple.of(1, configurations));
    }

    static Arbitrary<List<LogEntry>> entryLists() {
        return entries().list().ofMaxSize(4);
    }

    static Arbitrary<List<Long>> indexLists() {
        return nonNegative().list().ofMaxSize(5);
    }

    static Arbitrary<CheckpointMeta> metas() {
        Arbitrary<SessionSnapshot> sessions = Combinators.combine(nonNegative(), indexLists()).as(SessionSnapshot::new);
        Arbitrary<Map<Long, SessionSnapshot>> tables = Arbitraries.maps(Arbitraries.longs(), sessions).ofMaxSize(3);
        Arbitrary<List<Integer>> members = Arbitraries.integers().between(0, 1000).set().ofMaxSize(5)
                .map(m -> m.stream().sorted().toList());
        return Combinators.combine(nonNegative(), indexLists(), tables, members).as(CheckpointMeta::new);
    }

    static Arbitrary<ByteImage> images() {
        return Arbitraries.bytes().array(byte[].class).ofMaxSize(64).map(ByteImage::copyOf);
    }

    static Arbitrary<Message> messages() {
        Arbitrary<Integer> id = replicaIds();
        Arbitrary<Long> n = nonNegative();
        Arbitrary<Boolean> b = Arbitraries.of(true, false);
        return Arbitraries.oneOf(
                Combinators.combine(id, id, n, n, n, n, b).as(Message.RequestVote::new),
                Combinators.combine(id, id, n, b, b, n, n, entryLists()).as(Message.VoteReply::new),
                Combinators.combine(id, id, n, n, n, entryLists(), n).as(Message.Sync::new),
                Combinators.combine(id, id, n, b, b, n).as(Message.SyncReply::new),
                Combinators.combine(id, id, n, entryLists(), n, indexLists(), n, b).as(Message.Append::new),
                Combinators.combine(id, id, n, b, b, indexLists(), n, n).as(Message.AppendReply::new),
                Combinators.combine(id, id, n, metas(), images()).as(Message.InstallCheckpoint::new),
                Combinators.combine(id, id, n, b, n).as(Message.InstallCheckpointReply::new),
                Combinators.combine(id, id, n).as(Message.TimeoutNow::new),
                Combinators.combine(id, id, n, n, n, n).as(Message.PreVote::new),
                Combinators.combine(id, id, n, n, b).as(Message.PreVoteReply::new));
    }
}
