package io.tarn.replication.host;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Collects, for one group hosted here, the chunks of a checkpoint image a leader streams to this
 * member ({@code REPLICA_IMAGE_CHUNK}, sent by {@link ImageTransfers}), until the leader's
 * {@code InstallCheckpoint} names the complete transfer ({@link StagedRef}) and the image goes to
 * the core ({@link #resolve}). At most one transfer is staged per group: the first chunk of a new
 * one lets the previous one go.
 *
 * <p>Chunks are staged in a file in the group's journal directory (disk journals; no memory beyond
 * one chunk) or in direct memory (memory journals, which keep nothing on disk), within a budget
 * shared by the datanode's groups ({@link Budget}). A staged image keeps its copy only until a store
 * restored from it ({@link RestorableImage}).
 *
 * <p>Thread-safety: used only on the group's loop thread, the thread that also delivers the staged
 * image to the core and restores it, so a transfer never lets go of an image being restored.
 */
public final class ImageStaging implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ImageStaging.class);
    private static final String PREFIX = "staging-";
    private static final String SUFFIX = ".img";

    /** Direct memory the memory-staged images of a datanode's groups may take together. */
    public static final class Budget {
        private final long limit;
        private final AtomicLong used = new AtomicLong();

        /** A budget of {@code limit} bytes; one image is always admitted when nothing else is staged. */
        public Budget(long limit) {
            this.limit = limit;
        }

        boolean reserve(long bytes) {
            while (true) {
                long now = used.get();
                if (now > 0 && now + bytes > limit) {
                    return false;
                }
                if (used.compareAndSet(now, now + bytes)) {
                    return true;
                }
            }
        }

        void free(long bytes) {
            used.addAndGet(-bytes);
        }

        public long used() {
            return used.get();
        }

        long limit() {
            return limit;
        }
    }

    private final long groupId;
    private final long imageBytes;
    private final Path dir;
    private final Budget budget;
    private Staged current;

    /**
     * @param groupId    the group (for messages)
     * @param imageBytes the size of every image of the group (generations and region), or -1 when
     *                   images vary in size
     * @param dir        the group's journal directory to stage in, or null to stage in memory
     * @param budget     the datanode's memory budget (memory staging)
     */
    public ImageStaging(long groupId, long imageBytes, Path dir, Budget budget) {
        this.groupId = groupId;
        this.imageBytes = imageBytes;
        this.dir = dir;
        this.budget = budget;
        if (dir != null) {
            deleteLeftovers(dir);
        }
    }

    /**
     * Stages one chunk of transfer {@code transferId}.
     *
     * @return null when the chunk was taken; otherwise why not (the sender gives the transfer up)
     */
    public String accept(long transferId, long length, long offset, ByteBuf data) {
        if (imageBytes >= 0 ? length != imageBytes : length < 0) {
            return "group " + groupId + ": an image of " + length + " bytes does not fit this member's replica, "
                    + "whose images have " + imageBytes;
        }
        int n = data.readableBytes();
        if (current == null || current.transferId != transferId) {
            if (offset != 0) {
                return "group " + groupId + ": chunk at " + offset + " of image transfer " + transferId
                        + ", which is not staged here (it began elsewhere or was replaced)";
            }
            drop();
            try {
                current = dir != null ? new FileStaged(transferId, length, dir) : MemoryStaged.create(transferId,
                        length, budget);
            } catch (IOException e) {
                return "group " + groupId + ": cannot stage an image in " + dir + ": " + e.getMessage();
            }
            if (current == null) {
                return "group " + groupId + ": " + budget.used() + " bytes of images are staged for other groups "
                        + "(budget " + budget.limit() + "); try again when they are installed";
            }
        }
        if (offset != current.received) {
            return "group " + groupId + ": chunk at " + offset + " of image transfer " + transferId + ", expected "
                    + current.received;
        }
        if (offset + n > length) {
            return "group " + groupId + ": chunk " + offset + "+" + n + " runs past the image's " + length + " bytes";
        }
        try {
            current.write(offset, data);
        } catch (IOException e) {
            drop();
            return "group " + groupId + ": cannot stage image chunk in " + dir + ": " + e.getMessage();
        }
        current.received += n;
        return null;
    }

    /** The staged image of a complete transfer {@code transferId} of {@code length} bytes, or null. */
    public StagedImage resolve(long transferId, long length) {
        Staged s = current;
        return s != null && s.transferId == transferId && s.received == length && length == s.sizeBytes() ? s : null;
    }

    /** Lets the staged image go (unless a store restored from it, when it holds nothing). */
    private void drop() {
        if (current != null) {
            current.release(); // nothing left to let go if a store restored from it
            current = null;
        }
    }

    @Override
    public void close() {
        drop();
    }

    private static void deleteLeftovers(Path dir) {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*" + SUFFIX)) {
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            LOG.warn("Could not delete staged image files left in {}: {}", dir, e.toString());
        }
    }

    /** An image a follower received whole; restoring it is how the core installs it. */
    public abstract static class StagedImage extends RestorableImage {
        StagedImage(long size) {
            super(size);
        }
    }

    /** One transfer's chunks so far. */
    private abstract static class Staged extends StagedImage {
        final long transferId;
        long received;
        private boolean released;

        Staged(long transferId, long size) {
            super(size);
            this.transferId = transferId;
        }

        abstract void write(long offset, ByteBuf data) throws IOException;

        abstract void free();

        @Override
        final void release() {
            if (!released) {
                released = true;
                free();
            }
        }
    }

    /** Chunks in a file next to the group's journal. */
    private static final class FileStaged extends Staged {
        private final Path file;
        private final FileChannel channel;

        FileStaged(long transferId, long size, Path dir) throws IOException {
            super(transferId, size);
            this.file = dir.resolve(PREFIX + Long.toHexString(transferId) + SUFFIX);
            this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
        }

        @Override
        void write(long offset, ByteBuf data) throws IOException {
            long at = offset;
            for (ByteBuffer part : data.nioBuffers()) {
                while (part.hasRemaining()) {
                    at += channel.write(part, at);
                }
            }
        }

        @Override
        ByteBuf read(long offset, int length) {
            return FileImageStore.readBuffer(channel, offset, length, file);
        }

        @Override
        void free() {
            try {
                channel.close();
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("Could not delete staged image {}: {}", file, e.toString());
            }
        }
    }

    /** Chunks in direct memory, in arrival order. */
    private static final class MemoryStaged extends Staged {
        private final Budget budget;
        private final List<ByteBuf> chunks = new ArrayList<>();
        private final List<Long> starts = new ArrayList<>();

        private MemoryStaged(long transferId, long size, Budget budget) {
            super(transferId, size);
            this.budget = budget;
        }

        /** A staging of {@code size} bytes, or null when the budget has no room for it. */
        static MemoryStaged create(long transferId, long size, Budget budget) {
            return budget.reserve(size) ? new MemoryStaged(transferId, size, budget) : null;
        }

        @Override
        void write(long offset, ByteBuf data) {
            ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(data.readableBytes());
            copy.writeBytes(data, data.readerIndex(), data.readableBytes());
            chunks.add(copy);
            starts.add(offset);
        }

        @Override
        ByteBuf read(long offset, int length) {
            int i = chunkAt(offset);
            CompositeByteBuf out = Unpooled.compositeBuffer(Math.max(2, chunks.size()));
            long at = offset;
            int left = length;
            while (left > 0) {
                ByteBuf chunk = chunks.get(i);
                int from = (int) (at - starts.get(i));
                int n = Math.min(left, chunk.readableBytes() - from);
                if (n == length) {
                    out.release();
                    return chunk.retainedSlice(chunk.readerIndex() + from, n);
                }
                out.addComponent(true, chunk.retainedSlice(chunk.readerIndex() + from, n));
                at += n;
                left -= n;
                i++;
            }
            return out;
        }

        private int chunkAt(long offset) {
            int lo = 0;
            int hi = starts.size() - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (starts.get(mid) <= offset) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }

        @Override
        void free() {
            chunks.forEach(ByteBuf::release);
            chunks.clear();
            starts.clear();
            budget.free(sizeBytes());
        }
    }
}
