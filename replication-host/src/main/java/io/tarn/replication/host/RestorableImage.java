package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;

/**
 * An image with a copy of its own (a checkpoint file, a transfer's staged chunks) until a store
 * restores from it. From then on it reads that store's live image and lets its copy go: the store
 * holds the same bytes, and a live image is a valid image of the checkpoint (see
 * a datanode's region group store). So the core may keep the image as its checkpoint, the journal may save
 * it and a leader may send it, without a staged copy outliving the restore.
 */
public abstract class RestorableImage implements ChunkedImage {
    private final long size;
    private volatile ChunkedImage restoredAs;

    RestorableImage(long size) {
        this.size = size;
    }

    @Override
    public final long sizeBytes() {
        return size;
    }

    @Override
    public final ByteBuf slice(long offset, int length) {
        ChunkedImage live = restoredAs;
        if (live != null) {
            return live.slice(offset, length);
        }
        ChunkedImage.checkRange(offset, length, size);
        return read(offset, length);
    }

    /** Whether a store restored from this image into {@code live}'s store already. */
    public final boolean restoredAs(ChunkedImage live) {
        return restoredAs == live;
    }

    /** Whether a store restored from this image already. */
    final boolean restored() {
        return restoredAs != null;
    }

    /** A store restored from this image: read {@code live} from now on and let the copy go. */
    public final void restored(ChunkedImage live) {
        if (restoredAs == null) {
            restoredAs = live;
            release();
        }
    }

    /** Reads bytes of the image's own copy (a checked range). */
    abstract ByteBuf read(long offset, int length);

    /** Lets the copy go; called once, after the last read of it. */
    abstract void release();
}
