package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * The base of a zero-allocation view of a fixed-size part at the start of a request body: the
 * subclass names each field's offset and reads it in place.
 */
abstract class FixedView {
    /** The body viewed. */
    protected ByteBuf buf;
    /** Reader index of the fixed part's first byte. */
    protected int base;

    /** Points the view at {@code body}'s reader index; throws when fewer than {@code length} bytes remain. */
    protected final void point(ByteBuf body, int length) {
        Wire.need(body, length);
        this.buf = body;
        this.base = body.readerIndex();
    }
}
