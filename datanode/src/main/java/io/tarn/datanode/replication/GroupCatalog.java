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
import io.tarn.replication.host.GroupJournal;

/**
 * The block groups a datanode hosts, as files next to their journals: each group's directory
 * ({@link GroupJournal#directory}) holds a {@code members} file with the group as the namenode
 * placed it and which member this datanode is, written before the group's journal starts, so that
 * a restarted datanode can host again every group whose journal it finds.
 *
 * <p>The file also keeps the addresses of members the group as placed no longer lists but the
 * replica may still have to answer: while the namenode replaces a member, the group it sends names
 * the new members only, yet the member being removed stays in the replicas' configuration until
 * the change commits, and may lead meanwhile. A replica restarted then must still reach it, or its
 * answers to that leader are dropped and the change can never complete.
 *
 * <p>Layout of {@code members}: {@code magic[i32] = 0x54475250 ("TGRP") version[u8] = 2 self[i32]
 * BlockGroup others[u8] (memberId[i32] host[string] port[u16])* crc32c[i32]} (the BlockGroup and
 * strings as in {@code NamenodeProtocol}, the CRC over everything before it). Version 1 files,
 * without the others, are still read. Written to a temporary file, forced, and renamed into place.
 */
public final class GroupCatalog {
    private static final Logger LOG = LoggerFactory.getLogger(GroupCatalog.class);
    private static final int MAGIC = 0x54475250;
    private static final int VERSION = 2;
    /** The first version, without the addresses of other members. */
    private static final int VERSION_1 = 1;
    /** At most this many other members are kept: the most recent ones (highest ids). */
    static final int MAX_OTHERS = 16;
    static final String MEMBERS = "members";

    /**
     * A member the group as placed no longer lists, with where its datanode serves.
     *
     * @param memberId its id in the group
     * @param host     host name of its datanode's data port
     * @param port     the data port
     */
    public record Peer(int memberId, String host, int port) {
    }

    /**
     * One group found in the catalog: the group as placed, the member this datanode is, and the
     * other members it knew the address of (see the class comment), ascending by id.
     */
    public record Entry(BlockGroup group, int self, List<Peer> others) {
        /** Freezes the list. */
        public Entry {
            others = List.copyOf(others);
        }

        /** An entry without other members. */
        public Entry(BlockGroup group, int self) {
            this(group, self, List.of());
        }
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
        save(group, self, List.of());
    }

    /**
     * Records that this datanode hosts {@code group} as member {@code self} and knows where the
     * members in {@code others} serve (those the group lists are left out; of the rest, the
     * {@value #MAX_OTHERS} highest ids are kept), durably.
     */
    public void save(BlockGroup group, int self, List<Peer> others) throws IOException {
        List<Peer> kept = others.stream().filter(p -> group.member(p.memberId()) == null)
                .sorted(Comparator.comparingInt(Peer::memberId).reversed()).limit(MAX_OTHERS)
                .sorted(Comparator.comparingInt(Peer::memberId)).toList();
        Path dir = directory(group.groupId());
        Files.createDirectories(dir);
        ByteBuf buf = Unpooled.buffer();
        try {
            buf.writeInt(MAGIC);
            buf.writeByte(VERSION);
            buf.writeInt(self);
            NamenodeProtocol.writeGroup(buf, group);
            buf.writeByte(kept.size());
            for (Peer p : kept) {
                buf.writeInt(p.memberId());
                Wire.writeString(buf, p.host());
                buf.writeShort(p.port());
            }
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
            int version = bytes.length < 4 + 1 + 4 + 4 || buf.readInt() != MAGIC ? -1 : buf.readUnsignedByte();
            if (version != VERSION && version != VERSION_1) {
                throw new IOException(membersFile + " is not a group members file of version " + VERSION_1
                        + " or " + VERSION);
            }
            CRC32C crc = new CRC32C();
            crc.update(bytes, 0, bytes.length - 4);
            if ((int) crc.getValue() != buf.getInt(bytes.length - 4)) {
                throw new IOException(membersFile + " fails its checksum");
            }
            int self = buf.readInt();
            ByteBuf body = buf.slice(buf.readerIndex(), buf.readableBytes() - 4);
            BlockGroup group = NamenodeProtocol.readGroup(body);
            List<Peer> others = new ArrayList<>();
            if (version == VERSION) {
                int n = Wire.readUnsignedByte(body);
                for (int i = 0; i < n; i++) {
                    others.add(new Peer(Wire.readInt(body, 0, Integer.MAX_VALUE, "memberId"), Wire.readString(body),
                            Wire.readUnsignedShort(body)));
                }
            }
            Wire.end(body);
            if (group.member(self) == null) {
                throw new IOException(membersFile + " names member " + self + ", which is not in its group");
            }
            return new Entry(group, self, others);
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
