package io.tarn.common.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.protocol.MalformedMessageException;

import java.util.function.BiConsumer;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/** The property the decoder fuzz tests check, shared by the modules that have decoders. */
public final class Decoders {
    private Decoders() {
    }

    /**
     * Decodes {@code bytes}: a {@link MalformedMessageException} is a clear refusal and passes; a
     * value read must encode to bytes that read back as an equal value; anything else thrown is a
     * finding for the fuzzer.
     */
    public static <T> void readOrRefuse(String name, Function<ByteBuf, T> decoder, BiConsumer<T, ByteBuf> encoder,
                                        byte[] bytes) {
        readOrRefuse(name, decoder, encoder, bytes, false);
    }

    /** As {@link #readOrRefuse(String, Function, BiConsumer, byte[])}, the bytes in direct memory if asked. */
    public static <T> void readOrRefuse(String name, Function<ByteBuf, T> decoder, BiConsumer<T, ByteBuf> encoder,
                                        byte[] bytes, boolean direct) {
        ByteBuf buf = direct ? Unpooled.directBuffer(Math.max(1, bytes.length)).writeBytes(bytes)
                : Unpooled.wrappedBuffer(bytes);
        T value;
        try {
            value = decoder.apply(buf);
        } catch (MalformedMessageException refused) {
            return;
        } finally {
            buf.release();
        }
        ByteBuf again = Unpooled.buffer();
        try {
            encoder.accept(value, again);
            assertThat(decoder.apply(again)).as("%s read back", name).isEqualTo(value);
        } finally {
            again.release();
        }
    }
}
