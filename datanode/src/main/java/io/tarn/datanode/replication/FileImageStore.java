package io.tarn.datanode.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.tarn.replication.StateImage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Keeps images ({@link ChunkedImage}s: a live region image as it is while it is saved, an image a
 * follower received, a {@link ByteImage}) as files {@code image-<id>.img} in a group's journal
 * directory: {@code length[i64] crc32c[i32] bytes[length]}. A save streams the image chunk by chunk
 * into a temporary file (never holding the whole image in memory), forces it, renames it into place
 * and forces the directory, so an image is either whole or absent. A load verifies length and
 * checksum by reading the file once, and returns a handle that reads the file in chunks again when
 * the image is restored or sent.
 */
public final class FileImageStore implements ImageStore {

    private static final String PREFIX = "image-";
    private static final String SUFFIX = ".img";
    private static final String TMP = ".tmp";
    /** Chunks written between two forces of an image file. */
    private static final int FORCE_EVERY_CHUNKS = 4;
    private static final int HEADER = 12;

    private final Path dir;

    /** Images in {@code dir}, which must exist. */
    public FileImageStore(Path dir) {
        this.dir = dir;
    }

    Path file(long id) {
        return dir.resolve(PREFIX + id + SUFFIX);
    }

    @Override
    public void save(long id, StateImage image) throws IOException {
        if (!(image instanceof ChunkedImage chunked)) {
            throw new IllegalArgumentException("cannot save an image of kind " + image.getClass().getName());
        }
        Path tmp = dir.resolve(PREFIX + id + SUFFIX + TMP);
        try {
            write(chunked, tmp);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp); // a failed or abandoned save leaves nothing behind
            throw e;
        }
        Files.move(tmp, file(id), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Segments.forceDirectory(dir);
    }

    /** Streams {@code chunked} into {@code tmp} with its header, and forces it. */
    private static void write(ChunkedImage chunked, Path tmp) throws IOException {
        long size = chunked.sizeBytes();
        CRC32C crc = new CRC32C();
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            long position = HEADER;
            for (long at = 0; at < size; at += ChunkedImage.CHUNK_BYTES) {
                ByteBuf chunk = readChunk(chunked, at, (int) Math.min(ChunkedImage.CHUNK_BYTES, size - at));
                try {
                    for (ByteBuffer part : chunk.nioBuffers()) {
                        crc.update(part.duplicate());
                        position += writeFully(ch, part, position);
                    }
                } finally {
                    chunk.release();
                }
                if ((at / ChunkedImage.CHUNK_BYTES) % FORCE_EVERY_CHUNKS == FORCE_EVERY_CHUNKS - 1) {
                    // Never much unforced: a journal's force on the same file system waits for the
                    // dirty data of every file (ext4's ordered mode), so a whole region's worth of
                    // it would stall every group's acknowledgments for a quarter of a second.
                    ch.force(false);
                }
            }
            ByteBuffer header = ByteBuffer.allocate(HEADER).putLong(size).putInt((int) crc.getValue()).flip();
            writeFully(ch, header, 0);
            ch.force(true);
        }
    }

    private static ByteBuf readChunk(ChunkedImage image, long offset, int length) throws IOException {
        try {
            return image.slice(offset, length);
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static int writeFully(FileChannel ch, ByteBuffer src, long position) throws IOException {
        int n = src.remaining();
        long at = position;
        while (src.hasRemaining()) {
            at += ch.write(src, at);
        }
        return n;
    }

    @Override
    public StateImage load(long id) throws IOException {
        Path f = file(id);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            long fileSize = ch.size();
            if (fileSize < HEADER) {
                throw new IOException("checkpoint image " + f + " is truncated (" + fileSize + " bytes)");
            }
            ByteBuffer header = ByteBuffer.allocate(HEADER);
            readFully(ch, header, 0, f);
            long length = header.flip().getLong();
            int crc = header.getInt();
            if (length != fileSize - HEADER) {
                throw new IOException("checkpoint image " + f + " holds " + (fileSize - HEADER)
                        + " bytes, its header says " + length);
            }
            CRC32C actual = new CRC32C();
            ByteBuffer buf = ByteBuffer.allocateDirect((int) Math.min(ChunkedImage.CHUNK_BYTES, Math.max(1, length)));
            for (long at = 0; at < length; at += buf.capacity()) {
                buf.clear().limit((int) Math.min(buf.capacity(), length - at));
                readFully(ch, buf, HEADER + at, f);
                actual.update(buf.flip());
            }
            if ((int) actual.getValue() != crc) {
                throw new IOException("checkpoint image " + f + " is damaged: checksum "
                        + Integer.toHexString((int) actual.getValue()) + " instead of " + Integer.toHexString(crc));
            }
            return new FileImage(f, length);
        }
    }

    private static void readFully(FileChannel ch, ByteBuffer dst, long position, Path f) throws IOException {
        long at = position;
        while (dst.hasRemaining()) {
            int n = ch.read(dst, at);
            if (n < 0) {
                throw new IOException("checkpoint image " + f + " ends early, at byte " + at);
            }
            at += n;
        }
    }

    /**
     * {@code length} bytes of {@code ch} at {@code position} in a direct buffer the caller owns.
     *
     * @throws UncheckedIOException naming {@code file} when they cannot be read
     */
    static ByteBuf readBuffer(FileChannel ch, long position, int length, Path file) {
        ByteBuf buf = PooledByteBufAllocator.DEFAULT.directBuffer(length);
        try {
            readFully(ch, buf.nioBuffer(0, length), position, file);
            buf.writerIndex(length);
            return buf;
        } catch (IOException e) {
            buf.release();
            throw new UncheckedIOException(file + " cannot be read: " + e.getMessage(), e);
        }
    }

    @Override
    public void retainOnly(long... ids) throws IOException {
        Set<String> keep = new HashSet<>();
        for (long id : ids) {
            String name = file(id).getFileName().toString();
            keep.add(name);
            keep.add(name + TMP); // an image being saved
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path f : files) {
                if (!keep.contains(f.getFileName().toString())) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /**
     * A saved image, read from its file chunk by chunk (checked once at load). The journal keeps the
     * file while it is the latest checkpoint's; once a store restored from it, it reads the store.
     */
    static final class FileImage extends RestorableImage {
        private final Path file;

        FileImage(Path file, long length) {
            super(length);
            this.file = file;
        }

        @Override
        ByteBuf read(long offset, int length) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                return readBuffer(ch, HEADER + offset, length, file);
            } catch (IOException e) {
                throw new UncheckedIOException("checkpoint image " + file + " cannot be read: " + e.getMessage(), e);
            }
        }

        @Override
        void release() {
            // The file is the journal's: it goes when a newer checkpoint is durable.
        }

        @Override
        public String toString() {
            return "image file " + file + " (" + sizeBytes() + " bytes)";
        }
    }
}
