package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.protocol.Messages.Codec;
import io.tarn.common.protocol.Messages.Sample;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/** Generated messages of every type: round trips, truncation at every length, and decoding of garbage. */
class MessagePropertiesTest {

    @Provide
    Arbitrary<Sample> messages() {
        return Messages.anySample();
    }

    @Provide
    Arbitrary<Codec<?>> codecs() {
        return Arbitraries.of(Messages.ALL);
    }

    @Provide
    Arbitrary<Bufs.Kind> kinds() {
        return Arbitraries.of(Bufs.Kind.class);
    }

    @Property(tries = 200)
    void roundTrip(@ForAll("messages") Sample sample, @ForAll("kinds") Bufs.Kind kind) {
        assertThat(sample.decode(kind, sample.bytes())).isEqualTo(sample.value());
    }

    @Property(tries = 150)
    void everyTruncationIsMalformed(@ForAll("messages") Sample sample, @ForAll("kinds") Bufs.Kind kind) {
        byte[] full = sample.bytes();
        for (int len = 0; len < full.length; len++) {
            byte[] prefix = Arrays.copyOf(full, len);
            int cut = len;
            assertThatThrownBy(() -> sample.decode(kind, prefix))
                    .as("%s cut to %d of %d bytes", sample.codec(), cut, full.length)
                    .isExactlyInstanceOf(MalformedMessageException.class);
        }
    }

    @Property(tries = 300)
    void requestDecodersRejectTrailingBytes(@ForAll("messages") Sample sample,
                                            @ForAll @Size(min = 1, max = 8) byte[] extra) {
        if (!sample.codec().rejectsTrailingBytes()) {
            return;
        }
        assertThatThrownBy(() -> sample.decode(Bufs.Kind.HEAP, Bufs.concat(sample.bytes(), extra)))
                .isExactlyInstanceOf(MalformedMessageException.class)
                .hasMessage(extra.length + " unexpected trailing bytes");
    }

    /** Arbitrary bytes either decode or fail as malformed; no other exception may escape a decoder. */
    @Property(tries = 1000)
    void garbageNeverEscapesAsAnotherException(@ForAll("codecs") Codec<?> codec,
                                               @ForAll @Size(max = 96) byte[] garbage) {
        ByteBuf buf = Unpooled.wrappedBuffer(garbage);
        Throwable t = catchThrowable(() -> codec.decoder().apply(buf));
        if (t != null) {
            assertThat(t).as("%s on %s", codec, Arrays.toString(garbage))
                    .isExactlyInstanceOf(MalformedMessageException.class);
        }
    }

    /** Flipping bytes of a valid message must never produce anything but a value or a malformed error. */
    @Property(tries = 500)
    void corruptedMessagesNeverEscapeAsAnotherException(@ForAll("messages") Sample sample,
                                                        @ForAll int position, @ForAll byte value) {
        byte[] bytes = sample.bytes().clone();
        if (bytes.length == 0) {
            return;
        }
        bytes[Math.floorMod(position, bytes.length)] = value;
        Throwable t = catchThrowable(() -> sample.decode(Bufs.Kind.DIRECT, bytes));
        if (t != null) {
            assertThat(t).as("%s corrupted", sample.codec()).isExactlyInstanceOf(MalformedMessageException.class);
        }
    }
}
