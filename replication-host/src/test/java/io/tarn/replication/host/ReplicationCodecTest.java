package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.replication.BlockRange;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.LogEntry;
import io.tarn.replication.Message;
import io.tarn.replication.SessionSnapshot;
import io.tarn.replication.WriteCommand;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

class ReplicationCodecTest {

    private static final ReplicationCodec CODEC = new ReplicationCodec(ByteImage.CODEC);

    @Provide
    Arbitrary<Message> messages() {
        return ReplicaValues.messages();
    }

    @Provide
    Arbitrary<LogEntry> entries() {
        return ReplicaValues.entries();
    }

    @Provide
    Arbitrary<CheckpointMeta> metas() {
        return ReplicaValues.metas();
    }

    @Provide
    Arbitrary<BlockRange> ranges() {
        return ReplicaValues.ranges();
    }

    @Provide
    Arbitrary<WriteCommand> commands() {
        return ReplicaValues.commands();
    }

    static byte[] encode(Message m) {
        return bytes(buf -> CODEC.encode(buf, m));
    }

    static byte[] bytes(Consumer<ByteBuf> writer) {
        ByteBuf buf = Unpooled.buffer();
        writer.accept(buf);
        return ByteBufUtil.getBytes(buf);
    }

    static Message decode(byte[] bytes, boolean direct) {
        ByteBuf buf = direct ? Unpooled.directBuffer(bytes.length) : Unpooled.buffer(bytes.length);
        buf.writeBytes(bytes);
        try {
            return CODEC.decode(buf);
        } finally {
            buf.release();
        }
    }

    @Property(tries = 500)
    void everyMessageRoundTrips(@ForAll("messages") Message m, @ForAll boolean direct) {
        assertThat(decode(encode(m), direct)).isEqualTo(m);
    }

    @Property(tries = 300)
    void valuesRoundTripAndConsumeExactlyTheirBytes(@ForAll("entries") LogEntry e, @ForAll("metas") CheckpointMeta meta,
                                                    @ForAll("ranges") BlockRange r,
                                                    @ForAll("commands") WriteCommand c) {
        assertThat(roundTrip(e, ReplicationCodec::writeEntry, ReplicationCodec::readEntry)).isEqualTo(e);
        assertThat(roundTrip(meta, ReplicationCodec::writeMeta, ReplicationCodec::readMeta)).isEqualTo(meta);
        assertThat(roundTrip(r, ReplicationCodec::writeRange, ReplicationCodec::readRange)).isEqualTo(r);
        assertThat(roundTrip(c, ReplicationCodec::writeCommand, ReplicationCodec::readCommand)).isEqualTo(c);
    }

    private static <T> T roundTrip(T value, BiConsumer<ByteBuf, T> writer, Function<ByteBuf, T> reader) {
        ByteBuf buf = Unpooled.buffer();
        writer.accept(buf, value);
        buf.writeByte(0x5A); // a sentinel: the reader must stop right before it
        T back = reader.apply(buf);
        assertThat(buf.readableBytes()).isEqualTo(1);
        return back;
    }

    @Property(tries = 150)
    void everyTruncationIsMalformed(@ForAll("messages") Message m) {
        byte[] full = encode(m);
        for (int len = 0; len < full.length; len++) {
            byte[] prefix = Arrays.copyOf(full, len);
            int cut = len;
            assertThatThrownBy(() -> decode(prefix, false))
                    .as("%s cut to %d of %d bytes", m.getClass().getSimpleName(), cut, full.length)
                    .isExactlyInstanceOf(MalformedMessageException.class);
        }
    }

    @Property(tries = 1000)
    void corruptionGivesMalformedOrAnotherValidMessage(@ForAll("messages") Message m, @ForAll int position,
                                                        @ForAll byte value) {
        byte[] bytes = encode(m);
        int at = Math.floorMod(position, bytes.length);
        boolean changed = bytes[at] != value;
        bytes[at] = value;
        Throwable t = catchThrowable(() -> {
            Message back = decode(bytes, true);
            if (changed) {
                assertThat(back).isNotEqualTo(m);
            }
        });
        if (t != null) {
            assertThat(t).as("%s with byte %d set to %d", m, at, value)
                    .isExactlyInstanceOf(MalformedMessageException.class);
        }
    }

    @Property(tries = 1000)
    void garbageIsMalformedOrAMessage(@ForAll @Size(max = 96) byte[] garbage, @ForAll boolean validStart,
                                      @ForAll byte type) {
        if (validStart && garbage.length >= 2) {
            garbage[0] = ReplicationCodec.FORMAT_VERSION;
            garbage[1] = (byte) (1 + Math.floorMod(type, ReplicationCodec.PRE_VOTE_REPLY));
        }
        Throwable t = catchThrowable(() -> decode(garbage, false));
        if (t != null) {
            assertThat(t).isExactlyInstanceOf(MalformedMessageException.class);
        }
    }

    @Test
    void goldenRequestVote() {
        Message m = new Message.RequestVote(1, 2, 7, 6, 100, 98, true);
        assertThat(ByteBufUtil.hexDump(encode(m))).isEqualTo("01" + "01" + "00000001" + "00000002"
                + "0000000000000007" + "0000000000000006" + "0000000000000064" + "0000000000000062" + "01");
    }

    @Test
    void goldenPreVoteAndItsReply() {
        Message vote = new Message.PreVote(1, 2, 8, 6, 100, 98);
        assertThat(ByteBufUtil.hexDump(encode(vote))).isEqualTo("01" + "0a" + "00000001" + "00000002"
                + "0000000000000008" + "0000000000000006" + "0000000000000064" + "0000000000000062");
        Message reply = new Message.PreVoteReply(2, 1, 7, 8, true);
        assertThat(ByteBufUtil.hexDump(encode(reply))).isEqualTo("01" + "0b" + "00000002" + "00000001"
                + "0000000000000007" + "0000000000000008" + "01");
        assertThat(decode(encode(vote), false)).isEqualTo(vote);
        assertThat(decode(encode(reply), false)).isEqualTo(reply);
    }

    @Test
    void goldenAppendWithOneWrite() {
        BytesPayload data = BytesPayload.copyOf(new byte[] {(byte) 0xAA, (byte) 0xBB});
        BlockRange range = new BlockRange(4096, 2);
        LogEntry e = new LogEntry(3, 10, range, List.of(new BlockRange(0, 512)),
                new WriteCommand(42, 5, 4, range, data));
        Message m = new Message.Append(0, 1, 3, List.of(e), 9, List.of(11L), 77, false);
        String crc = String.format("%08x", data.crc32c());
        assertThat(ByteBufUtil.hexDump(encode(m))).isEqualTo("01" + "05" + "00000000" + "00000001" + "0000000000000003"
                + "00000001" // one entry
                + "0000000000000003" + "000000000000000a" + "01" // term, index, kind write
                + "000000000000002a" + "0000000000000005" + "0000000000000004" // client, seq, firstUnacked
                + "0000000000001000" + "00000002" + "00000002" + crc + "aabb" // range, length, crc, data
                + "01" + "0000000000000000" + "00000200" // look-behind
                + "0000000000000009" + "00000001" + "000000000000000b" // commitPrefix, committedAbove
                + "000000000000004d" + "00"); // probe, promote
    }

    @Test
    void goldenHeader() {
        byte[] bytes = bytes(buf -> ReplicationCodec.writeHeader(buf, 7, 2));
        assertThat(ByteBufUtil.hexDump(bytes)).isEqualTo("0000000000000007" + "0000000000000002");
        ReplicationCodec.Header h = new ReplicationCodec.Header().read(Unpooled.wrappedBuffer(bytes));
        assertThat(h.groupId()).isEqualTo(7);
        assertThat(h.membershipVersion()).isEqualTo(2);
        byte[] negative = bytes(buf -> ReplicationCodec.writeHeader(buf, -1, 2));
        assertThatThrownBy(() -> new ReplicationCodec.Header().read(Unpooled.wrappedBuffer(negative)))
                .isExactlyInstanceOf(MalformedMessageException.class).hasMessage("group id is negative: -1");
    }

    @Test
    void hostileCountsAllocateNothingLarge() {
        byte[] header = encode(new Message.Append(0, 1, 3, List.of(), 0, List.of(), 0, false));
        byte[] hostile = Arrays.copyOf(header, header.length);
        // The entry count sits right after the 18-byte prefix (version, type, from, to, term).
        hostile[18] = 0x7f;
        hostile[19] = (byte) 0xff;
        hostile[20] = (byte) 0xff;
        hostile[21] = (byte) 0xff;
        assertThatThrownBy(() -> decode(hostile, false)).isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("entry count 2147483647 does not fit");
    }

    @Test
    void rejectsAnotherVersionAndUnknownTypesWithAClearMessage() {
        byte[] bytes = encode(new Message.TimeoutNow(0, 1, 2));
        bytes[0] = 2;
        assertThatThrownBy(() -> decode(bytes, false))
                .hasMessage("replication format version 2 is not supported (this datanode reads version 1)");
        bytes[0] = 1;
        bytes[1] = 12;
        assertThatThrownBy(() -> decode(bytes, false)).hasMessage("unknown replication message type 12");
    }

    @Test
    void detectsACorruptedPayload() {
        BytesPayload data = BytesPayload.copyOf(new byte[] {1, 2, 3});
        BlockRange range = new BlockRange(0, 3);
        WriteCommand c = new WriteCommand(1, 1, 1, range, data);
        byte[] bytes = bytes(buf -> ReplicationCodec.writeCommand(buf, c));
        bytes[bytes.length - 1] ^= 1;
        assertThatThrownBy(() -> ReplicationCodec.readCommand(Unpooled.wrappedBuffer(bytes)))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessageContaining("write payload checksum mismatch for client 1 seq 1");
    }

    @Test
    void refusesToEncodeAPayloadThatIsNotBytes() {
        WriteCommand c = new WriteCommand(1, 1, 1, new BlockRange(0, 4), () -> 4);
        assertThatThrownBy(() -> bytes(buf -> ReplicationCodec.writeCommand(buf, c)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("as a BytesPayload");
    }

    @Test
    void aPayloadLongerThanItsRangeRoundTrips() {
        BytesPayload data = BytesPayload.copyOf(new byte[] {0, 0, 0, 7, 1, 2, 3});
        WriteCommand c = new WriteCommand(1, 1, 1, new BlockRange(100, 3), data);
        byte[] encoded = bytes(buf -> ReplicationCodec.writeCommand(buf, c));
        assertThat(ReplicationCodec.readCommand(Unpooled.wrappedBuffer(encoded))).isEqualTo(c);
    }

    @Test
    void recordValidationBecomesMalformed() {
        // A no-op entry that claims to write bytes: LogEntry itself refuses it.
        byte[] bytes = bytes(buf -> {
            buf.writeLong(1);
            buf.writeLong(1);
            buf.writeByte(0);
            ReplicationCodec.writeRange(buf, new BlockRange(0, 5));
            buf.writeByte(0);
        });
        assertThatThrownBy(() -> ReplicationCodec.readEntry(Unpooled.wrappedBuffer(bytes)))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage("invalid replication value: a no-op writes no blocks");
        CheckpointMeta twice = new CheckpointMeta(1, List.of(), Map.of(5L, new SessionSnapshot(1, List.of())));
        byte[] meta = bytes(buf -> ReplicationCodec.writeMeta(buf, twice));
        // index, no appliedAbove, one 20-byte session, no members: the session written twice.
        byte[] doubled = new byte[meta.length + 20];
        System.arraycopy(meta, 0, doubled, 0, 36);
        System.arraycopy(meta, 16, doubled, 36, 20);
        System.arraycopy(meta, 36, doubled, 56, meta.length - 36);
        doubled[8 + 4 + 3] = 2; // session count 2
        assertThatThrownBy(() -> ReplicationCodec.readMeta(Unpooled.wrappedBuffer(doubled)))
                .hasMessage("client 5 appears twice in a checkpoint");
    }

    @Property(tries = 200)
    void datanodesCarryAStagedReferenceInPlaceOfTheImage(@ForAll("metas") CheckpointMeta meta, @ForAll long transfer,
                                                        @ForAll @LongRange(min = 0)
                                                        long length) {
        ReplicationCodec datanodes = new ReplicationCodec(StagedRef.CODEC);
        Message m = new Message.InstallCheckpoint(1, 2, 3, meta, new StagedRef(transfer, length));
        byte[] encoded = bytes(buf -> datanodes.encode(buf, m));
        assertThat(datanodes.decode(Unpooled.wrappedBuffer(encoded))).isEqualTo(m);
        byte[] cut = Arrays.copyOf(encoded, encoded.length - 1);
        assertThatThrownBy(() -> datanodes.decode(Unpooled.wrappedBuffer(cut)))
                .isExactlyInstanceOf(MalformedMessageException.class);
        Message inline = new Message.InstallCheckpoint(1, 2, 3, meta, ByteImage.copyOf(new byte[] {1, 2}));
        assertThatThrownBy(() -> datanodes.encode(Unpooled.buffer(), inline))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("in chunks");
    }
}
