package io.tarn.datanode;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What keeps a datanode's storage its own: files and directories it makes are readable and
 * writable by its user only, and it refuses storage another local user could change.
 *
 * <p>A storage root (such as {@code /dev/shm/tarn}) must be owned by the datanode's user or by
 * root, and not be writable by others unless it is sticky (as {@code /tmp}), where others cannot
 * rename or delete what is not theirs. A storage directory is reused only when it and everything
 * in it belong to the datanode's user and nobody else may write them (another user could have
 * changed, swapped or replaced its files); read permission others were given by an earlier version
 * is taken back. Symbolic links are never followed. On a file system
 * without POSIX permissions nothing is checked (said once).
 */
public final class OwnerOnly {
    private static final Logger LOG = LoggerFactory.getLogger(OwnerOnly.class);
    private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> OTHERS_WRITE = EnumSet.of(PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.OTHERS_WRITE);
    private static final boolean POSIX = FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    private static volatile UserPrincipal self;

    private OwnerOnly() {
    }

    /** Attributes that create a file readable and writable by its owner only. */
    public static FileAttribute<?>[] file() {
        return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE)} : new FileAttribute<?>[0];
    }

    /** Attributes that create a directory its owner alone may list, enter and change. */
    public static FileAttribute<?>[] directory() {
        return POSIX ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(DIRECTORY)}
                : new FileAttribute<?>[0];
    }

    /**
     * Null when {@code root} is a safe place for storage directories, else why not: another user
     * owns it, or others may write it without the sticky bit, or it is not a directory.
     */
    public static String whyUnsafeRoot(Path root) throws IOException {
        if (!POSIX) {
            return null;
        }
        PosixFileAttributes a = Files.readAttributes(root, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) {
            return root + " is not a directory" + (a.isSymbolicLink() ? " (a symbolic link)" : "");
        }
        String owner = a.owner().getName();
        if (!a.owner().equals(self()) && !owner.equals("root")) {
            return root + " belongs to user " + owner + ", not to " + self().getName()
                    + " (the datanode's user): that user could replace the datanode's storage";
        }
        if (!Collections.disjoint(a.permissions(), OTHERS_WRITE) && !sticky(root)) {
            return root + " (mode " + PosixFilePermissions.toString(a.permissions()) + ") may be written by other "
                    + "users and is not sticky: they could replace the datanode's storage";
        }
        return null;
    }

    /**
     * Null when {@code dir} and everything directly in it belong to the datanode's user and only
     * that user may write them, else why not; takes back group and other permissions of what it
     * owns (files an earlier version made readable by all).
     */
    public static String whyNotOwn(Path dir) throws IOException {
        if (!POSIX) {
            return null;
        }
        String why = check(dir, DIRECTORY);
        if (why != null) {
            return why;
        }
        List<Path> entries;
        try (Stream<Path> s = Files.list(dir)) {
            entries = s.toList();
        }
        for (Path p : entries) {
            PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            why = check(p, a.isDirectory() ? DIRECTORY : FILE);
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    private static String check(Path p, Set<PosixFilePermission> wanted) throws IOException {
        PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink()) {
            return p + " is a symbolic link";
        }
        if (!a.owner().equals(self())) {
            return p + " belongs to user " + a.owner().getName() + ", not to " + self().getName()
                    + " (the datanode's user)";
        }
        Set<PosixFilePermission> perms = a.permissions();
        if (!Collections.disjoint(perms, OTHERS_WRITE)) {
            return p + " (mode " + PosixFilePermissions.toString(perms) + ") may be written by other users, so "
                    + "what it holds cannot be trusted";
        }
        if (!wanted.containsAll(perms)) {
            LOG.info("Taking back the permissions others had on {} (mode {}): now {}", p,
                    PosixFilePermissions.toString(perms), PosixFilePermissions.toString(wanted));
            Files.setPosixFilePermissions(p, wanted);
        }
        return null;
    }

    /** The user this process runs as: the owner of a file it creates. */
    public static UserPrincipal self() {
        UserPrincipal s = self;
        if (s == null) {
            try {
                Path probe = Files.createTempFile("tarn-owner-", ".probe");
                try {
                    s = Files.getOwner(probe);
                } finally {
                    Files.deleteIfExists(probe);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot tell which user this process runs as", e);
            }
            self = s;
        }
        return s;
    }

    private static boolean sticky(Path dir) throws IOException {
        // The sticky bit is not among Java's POSIX permissions: read the whole mode.
        Object mode = Files.getAttribute(dir, "unix:mode", LinkOption.NOFOLLOW_LINKS);
        return mode instanceof Integer m && (m & 01000) != 0;
    }
}
