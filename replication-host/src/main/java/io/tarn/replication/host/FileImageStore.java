package io.tarn.replication.host;

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
import java.util.BitSet;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * Keeps images ({@link ChunkedImage}s: a live region image as it is while it is saved, an image a
 * follower received, a {@link ByteImage}) as files {@code image-<id>.img} in a group's journal
 * directory:
 * <pre>
 * magic[i32] length[i64] tableCrc[i32] pageCrcs[pages][i32] bytes[length]
 * </pre>
 * where a page is {@value ChunkedImage#PAGE_BYTES} bytes of the image (the last may be shorter),
 * {@code pageCrcs} holds the CRC32C of each and {@code tableCrc} that of the table.
 *
 * <p>A full save ({@link #save}) streams the image chunk by chunk into a temporary file (never
 * holding the whole image in memory), forces it, renames it into place and forces the directory,
 * so an image is either whole or absent. An incremental save ({@link #saveChanged}) turns an older
 * image file into the new one: it renames the older file to the new one's temporary name, rewrites
 * only the pages that changed since the older image was taken and their checksums, forces, and
 * renames it into place; so a checkpoint of a region that took a thousand 4 KiB writes writes a few
 * MiB, not the region. A save that fails or is abandoned deletes its temporary file (an incremental
 * one thereby loses its older file too). A load verifies the table and every page by reading the
 * file once, and returns a handle that reads the file in chunks again when the image is restored
 * or sent.
 */
public final class FileImageStore implements ImageStore {

    private static final String PREFIX = "image-";
    private static final String SUFFIX = ".img";
    private static final String TMP = ".tmp";
    /** "TIM2": the format above. */
    private static final int MAGIC = 0x54494D32;
    /** magic, length, table checksum. */
    private static final int HEADER = Integer.BYTES + Long.BYTES + Integer.BYTES;
    /** Bytes written between two forces of an image file. */
    private static final long FORCE_EVERY_BYTES = 4L * ChunkedImage.CHUNK_BYTES;
    /** A page of zeros, to find the pages a new image file may leave as holes. */
    private static final ByteBuffer ZERO_PAGE = ByteBuffer.allocateDirect(ChunkedImage.PAGE_BYTES).asReadOnlyBuffer();

    private final Path dir;

    /** Images in {@code dir}, which must exist. */
    public FileImageStore(Path dir) {
        this.dir = dir;
    }

    public Path file(long id) {
        return dir.resolve(PREFIX + id + SUFFIX);
    }

    private Path tmp(long id) {
        return dir.resolve(PREFIX + id + SUFFIX + TMP);
    }

    private static int pages(long length) {
        return (int) ((length + ChunkedImage.PAGE_BYTES - 1) / ChunkedImage.PAGE_BYTES);
    }

    private static long dataOffset(long length) {
        return HEADER + (long) pages(length) * Integer.BYTES;
    }

    @Override
    public void save(long id, StateImage image) throws IOException {
        ChunkedImage chunked = chunked(image);
        Path tmp = tmp(id);
        try {
            writeWhole(chunked, tmp);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp); // a failed or abandoned save leaves nothing behind
            throw e;
        }
        Files.move(tmp, file(id), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Segments.forceDirectory(dir);
    }

    /**
     * Saves {@code image} under {@code id} by rewriting, in the file of image {@code fromId}, the pages
     * in {@code changed} (every page where the two images may differ); that file is gone afterwards,
     * even when the save fails. Without that file, or when it holds an image of another size, this is
     * a full {@link #save}.
     */
    @Override
    public void saveChanged(long fromId, long id, StateImage image, BitSet changed) throws IOException {
        ChunkedImage chunked = chunked(image);
        Path from = file(fromId);
        long length = chunked.sizeBytes();
        if (fromId == id || !Files.exists(from) || Files.size(from) != dataOffset(length) + length) {
            save(id, image);
            return;
        }
        Path tmp = tmp(id);
        Files.move(from, tmp, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try {
            writeChanged(chunked, changed, tmp);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
        Files.move(tmp, file(id), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Segments.forceDirectory(dir);
    }

    private static ChunkedImage chunked(StateImage image) {
        if (!(image instanceof ChunkedImage chunked)) {
            throw new IllegalArgumentException("cannot save an image of kind " + image.getClass().getName());
        }
        return chunked;
    }

    /** Streams {@code chunked} into {@code tmp} with its header and page checksums, and forces it. */
    private static void writeWhole(ChunkedImage chunked, Path tmp) throws IOException {
        long length = chunked.sizeBytes();
        ByteBuffer table = ByteBuffer.allocate(pages(length) * Integer.BYTES);
        long data = dataOffset(length);
        ByteBuffer scratch = scratch(length);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            long unforced = 0;
            for (long at = 0; at < length; at += ChunkedImage.CHUNK_BYTES) {
                unforced += writeRun(ch, chunked, at, (int) Math.min(ChunkedImage.CHUNK_BYTES, length - at), data,
                        table, scratch, true);
                if (unforced >= FORCE_EVERY_BYTES) {
                    // Never much unforced: a journal's force on the same file system waits for the
                    // dirty data of every file (ext4's ordered mode), so a whole region's worth of
                    // it would stall every group's acknowledgments for a quarter of a second.
                    ch.force(false);
                    unforced = 0;
                }
            }
            if (ch.size() < data + length) {
                // The last pages were zeros, left as a hole: one zero byte gives the file its length.
                writeFully(ch, ByteBuffer.allocate(1), data + length - 1);
            }
            writeTable(ch, length, table);
            ch.force(true);
        }
    }

    /** Rewrites the changed pages of the image file {@code tmp} (of an image of the same size) and forces it. */
    private static void writeChanged(ChunkedImage chunked, BitSet changed, Path tmp) throws IOException {
        long length = chunked.sizeBytes();
        int pages = pages(length);
        long data = dataOffset(length);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer table = ByteBuffer.allocate(pages * Integer.BYTES);
            readFully(ch, table, HEADER, tmp);
            ByteBuffer scratch = scratch(length);
            long written = 0;
            for (int p = changed.nextSetBit(0); p >= 0 && p < pages; p = changed.nextSetBit(p)) {
                int end = Math.min(pages, changed.nextClearBit(p));
                // Runs of changed pages, a chunk at most each.
                end = Math.min(end, p + ChunkedImage.CHUNK_BYTES / ChunkedImage.PAGE_BYTES);
                long at = (long) p * ChunkedImage.PAGE_BYTES;
                int n = (int) Math.min((long) (end - p) * ChunkedImage.PAGE_BYTES, length - at);
                written += writeRun(ch, chunked, at, n, data, table, scratch, false);
                if (written >= FORCE_EVERY_BYTES) {
                    ch.force(false);
                    written = 0;
                }
                p = end;
            }
            writeTable(ch, length, table.clear());
            ch.force(false);
        }
    }

    /**
     * Writes the image's {@code n} bytes at {@code at} (a page boundary) into the file's data area and
     * the checksum of each of their pages into {@code table}; returns the bytes written. The bytes are
     * copied into {@code scratch} first: a live image's slice shares memory with a region that writes
     * may change at any moment, and the checksums must be those of the bytes written. With
     * {@code skipZeros} (a new file, whose holes read as zeros) pages of zeros are not written: a
     * group's first images, of a region still mostly empty, cost little more than its data.
     */
    private static long writeRun(FileChannel ch, ChunkedImage image, long at, int n, long data, ByteBuffer table,
                                 ByteBuffer scratch, boolean skipZeros) throws IOException {
        ByteBuf run = readChunk(image, at, n);
        try {
            scratch.clear().limit(n);
            run.getBytes(run.readerIndex(), scratch);
            scratch.flip();
        } finally {
            run.release();
        }
        CRC32C crc = new CRC32C();
        long written = 0;
        int spanStart = -1;
        for (int off = 0; off < n; off += ChunkedImage.PAGE_BYTES) {
            int len = Math.min(ChunkedImage.PAGE_BYTES, n - off);
            ByteBuffer page = scratch.duplicate().position(off).limit(off + len);
            crc.reset();
            crc.update(page.duplicate());
            table.putInt((int) ((at + off) / ChunkedImage.PAGE_BYTES) * Integer.BYTES, (int) crc.getValue());
            boolean write = !skipZeros || page.mismatch(ZERO_PAGE.duplicate().limit(len)) >= 0;
            if (write && spanStart < 0) {
                spanStart = off;
            } else if (!write && spanStart >= 0) {
                written += writeFully(ch, scratch.duplicate().position(spanStart).limit(off), data + at + spanStart);
                spanStart = -1;
            }
        }
        if (spanStart >= 0) {
            written += writeFully(ch, scratch.duplicate().position(spanStart).limit(n), data + at + spanStart);
        }
        return written;
    }

    /** A buffer for one run of pages (a chunk at most). */
    private static ByteBuffer scratch(long length) {
        return ByteBuffer.allocateDirect((int) Math.max(1, Math.min(ChunkedImage.CHUNK_BYTES, length)));
    }

    /** Writes the header (magic, length, the table's checksum) and the page checksum table. */
    private static void writeTable(FileChannel ch, long length, ByteBuffer table) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(table.duplicate().clear());
        ByteBuffer header = ByteBuffer.allocate(HEADER).putInt(MAGIC).putLong(length).putInt((int) crc.getValue())
                .flip();
        writeFully(ch, header, 0);
        writeFully(ch, table.duplicate().clear(), HEADER);
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
            header.flip();
            int magic = header.getInt();
            long length = header.getLong();
            int tableCrc = header.getInt();
            if (magic != MAGIC) {
                throw new IOException("checkpoint image " + f + " is not an image of this version (magic "
                        + Integer.toHexString(magic) + ")");
            }
            if (length < 0 || length != fileSize - dataOffset(length)) {
                throw new IOException("checkpoint image " + f + " has " + fileSize + " bytes, its header says "
                        + length + " of image");
            }
            ByteBuffer table = ByteBuffer.allocate(pages(length) * Integer.BYTES);
            readFully(ch, table, HEADER, f);
            CRC32C crc = new CRC32C();
            crc.update(table.flip());
            if ((int) crc.getValue() != tableCrc) {
                throw new IOException("checkpoint image " + f + " is damaged: its page checksums do not match");
            }
            long data = dataOffset(length);
            ByteBuffer buf = ByteBuffer.allocateDirect((int) Math.min(ChunkedImage.CHUNK_BYTES, Math.max(1, length)));
            for (long at = 0; at < length; at += buf.capacity()) {
                buf.clear().limit((int) Math.min(buf.capacity(), length - at));
                readFully(ch, buf, data + at, f);
                buf.flip();
                for (int off = 0; off < buf.limit(); off += ChunkedImage.PAGE_BYTES) {
                    int page = (int) ((at + off) / ChunkedImage.PAGE_BYTES);
                    crc.reset();
                    int end = Math.min(buf.limit(), off + ChunkedImage.PAGE_BYTES);
                    crc.update(buf.duplicate().position(off).limit(end));
                    if ((int) crc.getValue() != table.getInt(page * Integer.BYTES)) {
                        throw new IOException("checkpoint image " + f + " is damaged: page " + page + " (bytes "
                                + (long) page * ChunkedImage.PAGE_BYTES + "..) does not match its checksum");
                    }
                }
            }
            return new FileImage(f, data, length);
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
        private final long data;

        FileImage(Path file, long data, long length) {
            super(length);
            this.file = file;
            this.data = data;
        }

        @Override
        ByteBuf read(long offset, int length) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                return readBuffer(ch, data + offset, length, file);
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
