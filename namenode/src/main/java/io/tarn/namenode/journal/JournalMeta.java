package io.tarn.namenode.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Whose journal a directory holds: the namespace it belongs to and which namenode partition wrote
 * it, in the file {@code journal.meta}: {@code magic[i32] = 0x544e4e4a ("TNNJ") version[u8] = 1
 * namespaceId[16 bytes] partition[i32] partitions[i32] crc32c[i32]}. A namenode refuses a directory
 * another partition (or another cluster layout) wrote, instead of serving someone else's names.
 *
 * @param namespaceId random at the first start, kept for the life of the namespace
 * @param partition   the namenode's partition
 * @param partitions  how many partitions the namespace has
 */
public record JournalMeta(UUID namespaceId, int partition, int partitions) {
    static final String FILE = "journal.meta";
    private static final int MAGIC = 0x544e4e4a;
    private static final int VERSION = 1;
    private static final int SIZE = 4 + 1 + 16 + 4 + 4 + 4;

    /**
     * The meta of the journal in {@code dir}, which is created (with a new namespace id) when the
     * directory holds no journal yet.
     *
     * @throws IOException naming the file and what to do when it belongs to another partition or
     *                     layout, was written by another format version, or is damaged
     */
    static JournalMeta loadOrCreate(Path dir, int partition, int partitions) throws IOException {
        Path file = dir.resolve(FILE);
        JournalMeta found;
        try {
            found = read(file);
        } catch (NoSuchFileException e) {
            if (!JournalFormat.segments(dir).isEmpty()) {
                throw new IOException("namespace journal " + dir + " holds segments but no " + FILE
                        + ": it was not written by a Tarn namenode, or the file was deleted; refusing to start");
            }
            JournalMeta created = new JournalMeta(UUID.randomUUID(), partition, partitions);
            created.write(file);
            return created;
        }
        if (found.partition != partition || found.partitions != partitions) {
            throw new IOException("namespace journal " + dir + " belongs to namenode partition " + found.partition
                    + " of " + found.partitions + ", but this namenode is partition " + partition + " of "
                    + partitions + ": give each namenode its own tarn.namenode.journal.dir");
        }
        return found;
    }

    private static JournalMeta read(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (bytes.length < 5 || b.getInt() != MAGIC) {
            throw new IOException(file + " is not a Tarn namespace journal's meta file");
        }
        int version = b.get() & 0xff;
        if (version != VERSION) {
            throw new IOException(file + " was written in journal format version " + version
                    + "; this namenode reads version " + VERSION);
        }
        if (bytes.length != SIZE) {
            throw new IOException(file + " is damaged: " + bytes.length + " bytes instead of " + SIZE);
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, SIZE - 4);
        if ((int) crc.getValue() != b.getInt(SIZE - 4)) {
            throw new IOException(file + " fails its checksum");
        }
        UUID id = new UUID(b.getLong(), b.getLong());
        return new JournalMeta(id, b.getInt(), b.getInt());
    }

    private void write(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(SIZE);
        b.putInt(MAGIC).put((byte) VERSION).putLong(namespaceId.getMostSignificantBits())
                .putLong(namespaceId.getLeastSignificantBits()).putInt(partition).putInt(partitions);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, SIZE - 4);
        b.putInt((int) crc.getValue()).flip();
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        JournalFormat.syncDirectory(file.getParent());
    }
}
