package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;

import java.util.function.Consumer;
import java.util.function.Function;

/** Test helpers: heap and direct Netty buffers, and byte-level views of encoded messages. */
final class Bufs {
    private Bufs() {
    }

    /** Where a buffer's memory lives; every codec must behave the same on both. */
    enum Kind {
        HEAP {
            @Override
            ByteBuf allocate() {
                return Unpooled.buffer(64);
            }
        },
        DIRECT {
            @Override
            ByteBuf allocate() {
                return Unpooled.directBuffer(64);
            }
        };

        abstract ByteBuf allocate();

        /** A buffer of this kind holding exactly {@code bytes}. */
        ByteBuf of(byte[] bytes) {
            ByteBuf b = allocate();
            b.writeBytes(bytes);
            return b;
        }
    }

    /** The bytes an encoder writes. */
    static byte[] encode(Consumer<ByteBuf> encoder) {
        ByteBuf b = Unpooled.buffer();
        try {
            encoder.accept(b);
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** Runs a decoder over a buffer of the given kind holding {@code bytes}, releasing it afterwards. */
    static <T> T decode(Kind kind, byte[] bytes, Function<ByteBuf, T> decoder) {
        ByteBuf b = kind.of(bytes);
        try {
            return decoder.apply(b);
        } finally {
            b.release();
        }
    }

    static byte[] concat(byte[] a, byte... b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
