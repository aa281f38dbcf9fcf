package io.tarn.namenode.journal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.io.JournalFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * A checkpoint of a namespace: the state after journal record {@code seq}, written as the records
 * that rebuild it (the same record types the journal holds, replayed by the same replayer), so that
 * a restart loads the newest checkpoint and replays only the journal after it, and the segments it
 * covers can be deleted.
 *
 * <p>File {@code checkpoint-<seq, 20 digits>.image} in the journal's directory: a header {@code
 * magic[i32] = 0x544e434b ("TNCK") version[u8] = 1 namespaceId[16] seq[i64]}, then records framed
 * as the journal's ({@code length[i32] crc32c[i32] index[i64] type[u8] body}, indexes from 1), then
 * an end record (type 255, body {@code count[i64]}). It is written to a temporary file, forced and
 * renamed into place, so a checkpoint on disk is always whole; one that fails a check when loaded is
 * refused, naming the file and what failed.
 */
public final class JournalCheckpoint {
    private static final int MAGIC = 0x544e434b;
    private static final int VERSION = 1;
    private static final int HEADER = 4 + 1 + 16 + 8;
    private static final int END = 255;
    private static final String PREFIX = "checkpoint-";
    private static final String SUFFIX = ".image";
    private static final int FLUSH_AT = 1 << 20;

    private JournalCheckpoint() {
    }

    /** The checkpoint of record {@code seq} in {@code dir}. */
    static Path file(Path dir, long seq) {
        return JournalFiles.numbered(dir, PREFIX, seq, SUFFIX);
    }

    /** The records the checkpoints in {@code dir} cover, oldest first. */
    public static List<Long> list(Path dir) throws IOException {
        return JournalFiles.numbers(dir, PREFIX, SUFFIX);
    }

    /**
     * Writes the checkpoint of record {@code seq}: {@code content} appends its records to the log it
     * is given (on the calling thread). Returns the file, durable once this returns.
     */
    public static Path write(Path dir, UUID namespaceId, long seq, Consumer<EditLog> content) throws IOException {
        Path target = file(dir, seq);
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            Writer w = new Writer(ch);
            w.out.writeInt(MAGIC).writeByte(VERSION).writeLong(namespaceId.getMostSignificantBits())
                    .writeLong(namespaceId.getLeastSignificantBits()).writeLong(seq);
            try {
                content.accept(w);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
            ByteBuf end = Unpooled.buffer(8).writeLong(w.count);
            w.frame(END, end);
            w.flush();
            w.out.release();
            ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        JournalFiles.syncDirectory(dir);
        return target;
    }

    /**
     * Replays the newest checkpoint in {@code dir} to {@code replayer} and returns the journal
     * record it covers (0 when there is none).
     *
     * @throws JournalCorruptException when it is damaged, cut short, of another namespace or format
     */
    public static long load(Path dir, UUID namespaceId, JournalReplayer replayer) throws IOException {
        List<Long> all = list(dir);
        if (all.isEmpty()) {
            return 0;
        }
        long seq = all.get(all.size() - 1);
        Path file = file(dir, seq);
        byte[] bytes = Files.readAllBytes(file);
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        if (bytes.length < HEADER || buf.getInt(0) != MAGIC) {
            throw new JournalCorruptException("namespace checkpoint " + file + " is not a Tarn checkpoint");
        }
        int version = buf.getUnsignedByte(4);
        if (version != VERSION) {
            throw new JournalCorruptException("namespace checkpoint " + file + " was written in checkpoint format "
                    + "version " + version + "; this namenode reads version " + VERSION);
        }
        UUID id = new UUID(buf.getLong(5), buf.getLong(13));
        if (!id.equals(namespaceId) || buf.getLong(21) != seq) {
            throw new JournalCorruptException("namespace checkpoint " + file + " belongs to namespace " + id
                    + " at record " + buf.getLong(21) + ", not to this journal's " + namespaceId + " at " + seq);
        }
        List<Integer> records = frames(file, bytes, buf);
        long index = 0;
        for (int offset : records) {
            int length = buf.getInt(offset);
            int type = buf.getUnsignedByte(offset + JournalFormat.FRAME_HEAD + 8);
            index++;
            replayer.replay(index, type, buf.slice(offset + JournalFormat.FRAME_HEAD + JournalFormat.RECORD_HEAD,
                    length - JournalFormat.RECORD_HEAD));
        }
        return seq;
    }

    /**
     * Checks every frame of a checkpoint before any is replayed (a damaged one is never loaded in
     * part) and returns the offsets of its records, the end record left out.
     */
    private static List<Integer> frames(Path file, byte[] bytes, ByteBuf buf) throws JournalCorruptException {
        List<Integer> out = new ArrayList<>();
        int offset = HEADER;
        CRC32C crc = new CRC32C();
        while (true) {
            if (bytes.length - offset < JournalFormat.FRAME_HEAD + JournalFormat.RECORD_HEAD) {
                throw new JournalCorruptException("namespace checkpoint " + file + " is cut short at byte " + offset);
            }
            int length = buf.getInt(offset);
            if (length < JournalFormat.RECORD_HEAD || length > JournalFormat.RECORD_HEAD + JournalFormat.MAX_BODY
                    || bytes.length - offset - JournalFormat.FRAME_HEAD < length) {
                throw new JournalCorruptException("namespace checkpoint " + file + " has a record of length " + length
                        + " at byte " + offset);
            }
            crc.reset();
            crc.update(bytes, offset + JournalFormat.FRAME_HEAD, length);
            if ((int) crc.getValue() != buf.getInt(offset + 4)
                    || buf.getLong(offset + JournalFormat.FRAME_HEAD) != out.size() + 1) {
                throw new JournalCorruptException("namespace checkpoint " + file + " is damaged at byte " + offset);
            }
            int type = buf.getUnsignedByte(offset + JournalFormat.FRAME_HEAD + 8);
            if (type == END) {
                int next = offset + JournalFormat.FRAME_HEAD + length;
                if (length != JournalFormat.RECORD_HEAD + 8
                        || buf.getLong(offset + JournalFormat.FRAME_HEAD + JournalFormat.RECORD_HEAD) != out.size()
                        || next != bytes.length) {
                    throw new JournalCorruptException("namespace checkpoint " + file + " ends wrongly at byte "
                            + offset);
                }
                return out;
            }
            out.add(offset);
            offset += JournalFormat.FRAME_HEAD + length;
        }
    }

    /** Deletes the checkpoints older than the one of record {@code keep}, and temporary files left over. */
    public static int deleteOlder(Path dir, long keep) throws IOException {
        int deleted = 0;
        for (long seq : list(dir)) {
            if (seq < keep) {
                Files.deleteIfExists(file(dir, seq));
                deleted++;
            }
        }
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                String name = p.getFileName().toString();
                if (name.startsWith(PREFIX) && name.endsWith(SUFFIX + ".tmp")) {
                    Files.deleteIfExists(p);
                }
            }
        }
        JournalFiles.syncDirectory(dir);
        return deleted;
    }

    /** Frames records into the file, a megabyte at a time. */
    private static final class Writer implements EditLog {
        final FileChannel ch;
        final ByteBuf out = Unpooled.directBuffer(FLUSH_AT + 4096);
        final CRC32C crc = new CRC32C();
        long count;

        Writer(FileChannel ch) {
            this.ch = ch;
        }

        @Override
        public boolean enabled() {
            return true;
        }

        @Override
        public long append(int type, ByteBuf body) {
            if (type < 0 || type >= END) {
                body.release();
                throw new IllegalArgumentException("record type " + type);
            }
            count++;
            frame(type, body);
            return count;
        }

        void frame(int type, ByteBuf body) {
            try {
                int length = JournalFormat.RECORD_HEAD + body.readableBytes();
                int at = out.writerIndex();
                out.writeInt(length).writeInt(0).writeLong(type == END ? count + 1 : count).writeByte(type)
                        .writeBytes(body);
                crc.reset();
                crc.update(out.nioBuffer(at + JournalFormat.FRAME_HEAD, length));
                out.setInt(at + 4, (int) crc.getValue());
                if (out.readableBytes() >= FLUSH_AT) {
                    flush();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                body.release();
            }
        }

        void flush() throws IOException {
            while (out.isReadable()) {
                out.readBytes(ch, out.readableBytes());
            }
            out.clear();
        }
    }
}
