package io.tarn.datanode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One datanode's exclusive claim on a storage directory: {@code <root>/<storage id>/}.
 *
 * <p>Several datanodes (processes, or instances in one test JVM) may share a root such as
 * {@code /dev/shm/tarn}. Each works in its own subdirectory, named by its storage id (a UUID; the
 * name is the persistent record of the id), and holds an OS lock on the {@code lock} file inside
 * it for as long as it runs. The lock dies with the process, so after a crash or {@code kill -9}
 * a restarted datanode {@linkplain #claim claims} the abandoned directory again and serves its
 * data under the same id. A directory is only ever visible under its final name once its lock is
 * held, so a concurrent scan never sees a half-made one.
 *
 * <p>Storage is the datanode's user's alone ({@link OwnerOnly}): a root another user owns or may
 * write (unless sticky) is refused, a directory is made mode 0700 and its lock file 0600, and an
 * abandoned directory is reused only when it and its files belong to the datanode's user and no
 * one else may write them (what others could read is taken back).
 */
public final class StorageDirectory {
    private static final Logger LOG = LoggerFactory.getLogger(StorageDirectory.class);

    /** File whose OS lock marks the directory as in use. */
    public static final String LOCK_FILE = "lock";
    private static final String CREATING_PREFIX = ".creating-";

    /** Decides whether an unclaimed directory holds storage the caller can serve as it is. */
    @FunctionalInterface
    public interface Inspector {
        /** Null when {@code dir} can be reused, otherwise why not (for the log). */
        String whyNotReusable(Path dir, UUID storageId) throws IOException;
    }

    private final Path path;
    private final UUID storageId;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final boolean reused;

    private StorageDirectory(Path path, UUID storageId, FileChannel lockChannel, FileLock lock, boolean reused) {
        this.path = path;
        this.storageId = storageId;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.reused = reused;
    }

    /**
     * Claims the first unlocked directory under {@code root} that {@code inspector} accepts, or
     * creates (and claims) a new one with a fresh storage id. Directories held by a live datanode
     * are skipped; unclaimed ones the inspector rejects are left alone and logged.
     */
    public static StorageDirectory claim(Path root, Inspector inspector) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(root, OwnerOnly.directory());
        }
        String unsafe = OwnerOnly.whyUnsafeRoot(root);
        if (unsafe != null) {
            throw new IOException("refusing storage root " + root + ": " + unsafe + "; use a directory the "
                    + "datanode's user owns (tarn.datanode.dram.path), or remove this one");
        }
        List<Path> candidates;
        try (Stream<Path> entries = Files.list(root)) {
            candidates = entries.filter(Files::isDirectory).sorted().collect(Collectors.toList());
        }
        for (Path dir : candidates) {
            UUID id = parseId(dir.getFileName().toString());
            if (id != null) {
                StorageDirectory claimed = tryClaim(dir, id, inspector);
                if (claimed != null) {
                    return claimed;
                }
            }
        }
        return create(root);
    }

    private static StorageDirectory tryClaim(Path dir, UUID id, Inspector inspector) throws IOException {
        FileChannel channel;
        try {
            channel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.WRITE);
        } catch (NoSuchFileException e) {
            // Being deleted by its stopping owner, or not a storage directory at all.
            LOG.debug("Skipping {}: no lock file", dir);
            return null;
        }
        boolean keep = false;
        try {
            FileLock lock = tryLock(channel);
            if (lock == null) {
                LOG.debug("Skipping {}: in use by a running datanode", dir);
                return null;
            }
            String why;
            try {
                why = OwnerOnly.whyNotOwn(dir);
                if (why == null) {
                    why = inspector.whyNotReusable(dir, id);
                }
            } catch (IOException | RuntimeException e) {
                why = e.getMessage() != null ? e.getMessage() : e.toString();
            }
            if (why != null) {
                LOG.warn("Not reusing storage directory {}: {}. Delete it to free the memory it holds.", dir, why);
                lock.release();
                return null;
            }
            keep = true;
            return new StorageDirectory(dir, id, channel, lock, true);
        } finally {
            if (!keep) {
                channel.close();
            }
        }
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            // Another datanode in this very JVM holds it (tests run several).
            return null;
        }
    }

    private static StorageDirectory create(Path root) throws IOException {
        UUID id = UUID.randomUUID();
        Path staging = root.resolve(CREATING_PREFIX + id);
        Path dir = root.resolve(id.toString());
        Files.createDirectory(staging, OwnerOnly.directory());
        FileChannel channel = null;
        try {
            channel = FileChannel.open(staging.resolve(LOCK_FILE), Set.of(StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE), OwnerOnly.file());
            FileLock lock = channel.lock();
            // The lock belongs to the open file, which keeps it across the rename.
            Files.move(staging, dir, StandardCopyOption.ATOMIC_MOVE);
            return new StorageDirectory(dir, id, channel, lock, false);
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            deleteTree(staging);
            throw e;
        }
    }

    private static UUID parseId(String name) {
        if (name.length() != 36) {
            return null;
        }
        try {
            UUID id = UUID.fromString(name);
            return id.toString().equals(name) ? id : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The directory holding this storage's files. */
    public Path path() {
        return path;
    }

    /** The storage id: the directory's name, stable across restarts that reuse it. */
    public UUID storageId() {
        return storageId;
    }

    /** True when this directory existed before (claimed after a restart) rather than created now. */
    public boolean reused() {
        return reused;
    }

    /** Releases the claim and keeps the files, for a later datanode to reuse. */
    public void release() throws IOException {
        if (lock.isValid()) {
            lock.release();
        }
        lockChannel.close();
    }

    /**
     * Deletes the directory and everything in it, then releases the claim. The lock file goes
     * last, so no other datanode can claim the directory while it is half deleted.
     */
    public void delete() throws IOException {
        try (Stream<Path> entries = Files.list(path)) {
            for (Path p : (Iterable<Path>) entries::iterator) {
                if (!p.getFileName().toString().equals(LOCK_FILE)) {
                    deleteTree(p);
                }
            }
        }
        Files.deleteIfExists(path.resolve(LOCK_FILE));
        Files.deleteIfExists(path);
        release();
    }

    private static void deleteTree(Path p) throws IOException {
        if (Files.isDirectory(p)) {
            try (Stream<Path> entries = Files.list(p)) {
                for (Path child : (Iterable<Path>) entries::iterator) {
                    deleteTree(child);
                }
            }
        }
        Files.deleteIfExists(p);
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
