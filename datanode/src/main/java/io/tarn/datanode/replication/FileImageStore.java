package io.tarn.datanode.replication;

import io.tarn.replication.StateImage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Keeps images ({@link ByteImage}s, or the bytes a live region image holds at the moment of the
 * save) as files {@code image-<id>.img} in a group's journal directory:
 * {@code length[i64] crc32c[i32] bytes[length]}. A save writes a temporary file, forces it, renames
 * it into place and forces the directory, so an image is either whole or absent; a load verifies
 * length and checksum.
 */
public final class FileImageStore implements ImageStore {

    private static final String PREFIX = "image-";
    private static final String SUFFIX = ".img";
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
        ByteImage b = ByteImage.of(image);
        Path tmp = dir.resolve(PREFIX + id + SUFFIX + ".tmp");
        ByteBuffer header = ByteBuffer.allocate(HEADER).putLong(b.sizeBytes()).putInt(b.crc32c()).flip();
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            writeFully(ch, header);
            writeFully(ch, b.asByteBuf().nioBuffer());
            ch.force(true);
        }
        Files.move(tmp, file(id), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        Segments.forceDirectory(dir);
    }

    private static void writeFully(FileChannel ch, ByteBuffer src) throws IOException {
        while (src.hasRemaining()) {
            ch.write(src);
        }
    }

    @Override
    public StateImage load(long id) throws IOException {
        Path f = file(id);
        byte[] all = Files.readAllBytes(f);
        if (all.length < HEADER) {
            throw new IOException("checkpoint image " + f + " is truncated (" + all.length + " bytes)");
        }
        ByteBuffer in = ByteBuffer.wrap(all);
        long length = in.getLong();
        int crc = in.getInt();
        if (length != all.length - HEADER) {
            throw new IOException("checkpoint image " + f + " holds " + (all.length - HEADER)
                    + " bytes, its header says " + length);
        }
        byte[] bytes = new byte[(int) length];
        in.get(bytes);
        int actual = CheckedBytes.crc32c(bytes);
        if (actual != crc) {
            throw new IOException("checkpoint image " + f + " is damaged: checksum " + Integer.toHexString(actual)
                    + " instead of " + Integer.toHexString(crc));
        }
        return ByteImage.adopt(bytes, crc);
    }

    @Override
    public void retainOnly(long id) throws IOException {
        String keep = file(id).getFileName().toString();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path f : files) {
                if (!f.getFileName().toString().equals(keep)) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }
}
