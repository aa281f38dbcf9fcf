package io.tarn.namenode.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Set;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * Whose journal a directory holds and the values that must outlive a namenode restart, in the file
 * {@code journal.meta}: {@code magic[i32] = 0x544e4e4a ("TNNJ") version[u8] = 2 namespaceId[16 bytes]
 * partition[i32] partitions[i32] tokenKey0[i64] tokenKey1[i64] crc32c[i32]}. A namenode refuses a
 * directory another partition (or another cluster layout) wrote, instead of serving someone else's
 * names.
 *
 * <p>The block token key is made at the first start and kept: the journal's blocks are named by
 * datanode ids inside tokens that clients and datanodes still hold across a restart, so a
 * restarted namenode must issue (and datanodes check) tokens with the same key. The file is
 * readable by its owner only.
 *
 * @param namespaceId random at the first start, kept for the life of the namespace
 * @param partition   the namenode's partition
 * @param partitions  how many partitions the namespace has
 * @param tokenKey0   first half of the block token key
 * @param tokenKey1   second half of the block token key
 */
public record JournalMeta(UUID namespaceId, int partition, int partitions, long tokenKey0, long tokenKey1) {
    static final String FILE = "journal.meta";
    private static final int MAGIC = 0x544e4e4a;
    private static final int VERSION = 2;
    private static final int SIZE = 4 + 1 + 16 + 4 + 4 + 16 + 4;

    /**
     * The meta of the journal in {@code dir}, which is created (with a new namespace id) when the
     * directory holds no journal yet.
     *
     * @throws IOException naming the file and what to do when it belongs to another partition or
     *                     layout, was written by another format version, or is damaged
     */
    public static JournalMeta loadOrCreate(Path dir, int partition, int partitions) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE);
        JournalMeta found;
        try {
            found = read(file);
        } catch (NoSuchFileException e) {
            if (!JournalFormat.segments(dir).isEmpty()) {
                throw new IOException("namespace journal " + dir + " holds segments but no " + FILE
                        + ": it was not written by a Tarn namenode, or the file was deleted; refusing to start");
            }
            SecureRandom random = new SecureRandom();
            JournalMeta created = new JournalMeta(UUID.randomUUID(), partition, partitions, random.nextLong(),
                    random.nextLong());
            created.write(file);
            return created;
        }
        if (found.partition != partition || found.partitions != partitions) {
            throw new IOException("namespace journal " + dir + " belongs to namenode partition " + found.partition
                    + " of " + found.partitions + ", but this namenode is partition " + partition + " of "
                    + partitions + ": give each namenode its own tarn.namenode.journal.dir, or delete this "
                    + "directory to start a new, empty namespace (the files it names are then lost)");
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
        return new JournalMeta(id, b.getInt(), b.getInt(), b.getLong(), b.getLong());
    }

    private void write(Path file) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(SIZE);
        b.putInt(MAGIC).put((byte) VERSION).putLong(namespaceId.getMostSignificantBits())
                .putLong(namespaceId.getLeastSignificantBits()).putInt(partition).putInt(partitions).putLong(tokenKey0)
                .putLong(tokenKey1);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, SIZE - 4);
        b.putInt((int) crc.getValue()).flip();
        Path tmp = file.resolveSibling(FILE + ".tmp");
        Files.deleteIfExists(tmp);
        try (FileChannel ch = FileChannel.open(tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                ownerOnly(tmp))) {
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        JournalFormat.syncDirectory(file.getParent());
    }

    /** Owner read and write only where the file system has POSIX permissions (the file holds the token key). */
    private static FileAttribute<?>[] ownerOnly(Path file) {
        if (!file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            return new FileAttribute<?>[0];
        }
        return new FileAttribute<?>[] {
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))};
    }
}
