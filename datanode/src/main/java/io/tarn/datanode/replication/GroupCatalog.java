package io.tarn.datanode.replication;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.fs.BlockGroup;
import io.tarn.common.protocol.MalformedMessageException;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.Wire;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The block groups a datanode hosts, as files next to their journals: each group's directory
 * ({@link GroupJournal#directory}) holds a {@code members} file with the group as the namenode
 * placed it and which member this datanode is, written before the group's journal starts, so that
 * a restarted datanode can host again every group whose journal it finds.
 *
 * <p>Layout of {@code members}: {@code magic[i32] = 0x54475250 ("TGRP") version[u8] = 1 self[i32]
 * BlockGroup crc32c[i32]} (the BlockGroup as in {@code NamenodeProtocol}, the CRC over everything
 * before it). Written to a temporary file, forced, and renamed into place.
 */
public final class GroupCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCatalog.class);
    private static final int MAGIC = 0x54475250;
    private static final int VERSION = 1;
    static final String MEMBERS = "members";

    /** One group found in the catalog: the group as placed, and the member this datanode is. */
    public record Entry(BlockGroup group, int self) {
    }

    private final Path root;

    /** A catalog under {@code root} (created when the first group is saved). */
    public GroupCatalog(Path root) {
        this.root = root;
    }

    public Path root() {
        return root;
    }

    /** The directory of group {@code groupId}: its members file and journal. */
    public Path directory(long groupId) {
        return GroupJournal.directory(root, groupId);
    }

    /** Records that this datanode hosts {@code group} as member {@code self}, durably. */
    public void save(BlockGroup group, int self) throws IOException {
        Path dir = directory(group.groupId());
        Files.createDirectories(dir);
        ByteBuf buf = Unpooled.buffer();
        try {
            buf.writeInt(MAGIC);
            buf.writeByte(VERSION);
            buf.writeInt(self);
            NamenodeProtocol.writeGroup(buf, group);
            CRC32C crc = new CRC32C();
            crc.update(buf.nioBuffer());
            buf.writeInt((int) crc.getValue());
            Path tmp = dir.resolve(MEMBERS + ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer bytes = buf.nioBuffer();
                while (bytes.hasRemaining()) {
                    ch.write(bytes);
                }
                ch.force(true);
            }
            Files.move(tmp, dir.resolve(MEMBERS), StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } finally {
            buf.release();
        }
    }

    /** Reads one group's members file; IOException naming the file when it is damaged. */
    public Entry read(Path membersFile) throws IOException {
        byte[] bytes = Files.readAllBytes(membersFile);
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        try {
            if (bytes.length < 4 + 1 + 4 + 4 || buf.readInt() != MAGIC || buf.readUnsignedByte() != VERSION) {
                throw new IOException(membersFile + " is not a group members file of version " + VERSION);
            }
            CRC32C crc = new CRC32C();
            crc.update(bytes, 0, bytes.length - 4);
            if ((int) crc.getValue() != buf.getInt(bytes.length - 4)) {
                throw new IOException(membersFile + " fails its checksum");
            }
            int self = buf.readInt();
            ByteBuf body = buf.slice(buf.readerIndex(), buf.readableBytes() - 4);
            BlockGroup group = NamenodeProtocol.readGroup(body);
            Wire.end(body);
            if (group.member(self) == null) {
                throw new IOException(membersFile + " names member " + self + ", which is not in its group");
            }
            return new Entry(group, self);
        } catch (MalformedMessageException e) {
            throw new IOException(membersFile + " is damaged: " + e.getMessage(), e);
        } finally {
            buf.release();
        }
    }

    /**
     * Every group with a readable members file under the root, by id; damaged files are logged and
     * skipped (their journals are left for an operator).
     */
    public List<Entry> list() {
        List<Entry> out = new ArrayList<>();
        if (!Files.isDirectory(root)) {
            return out;
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, "group-*")) {
            for (Path dir : dirs) {
                Path members = dir.resolve(MEMBERS);
                if (!Files.exists(members)) {
                    continue;
                }
                try {
                    out.add(read(members));
                } catch (IOException e) {
                    LOG.error("Cannot host the block group of {} again: {}", dir, e.getMessage());
                }
            }
        } catch (IOException e) {
            LOG.error("Cannot list the block groups under {}: {}", root, e.toString());
        }
        out.sort(Comparator.comparingLong(e -> e.group().groupId()));
        return out;
    }

    /** Deletes group {@code groupId}'s directory (members file and journal); absent is fine. */
    public void delete(long groupId) throws IOException {
        Path dir = directory(groupId);
        try (Stream<Path> paths = Files.walk(dir)) {
            List<Path> all = paths.sorted(Comparator.reverseOrder()).toList();
            for (Path p : all) {
                Files.deleteIfExists(p);
            }
        } catch (NoSuchFileException e) {
            // already gone
        }
    }
}
