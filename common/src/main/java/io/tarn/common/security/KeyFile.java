package io.tarn.common.security;

import io.tarn.common.config.ConfigException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A key that authenticates connections ({@link SecretHandshake}), and the file that holds it.
 *
 * <p>Three kinds. The <b>cluster</b> secret: 32 random bytes that every daemon holds; whoever holds
 * it authenticates as a daemon under any user name. A <b>client</b> key, derived from it: authenticates
 * under any user name, never as a daemon (one key for all of a cluster's jobs, as Hadoop's simple
 * authentication trusts the user name a client gives). A <b>user</b> key, derived from it and a user
 * name: authenticates as that user only. A server holds the cluster secret and derives the others
 * when a peer names its kind and user; a derived key reveals nothing of the cluster secret.
 *
 * <p>The file, written by {@code tarn secret}: lines {@code kind cluster|client|user}, {@code user
 * NAME} (user keys), {@code key HEX}; {@code #} starts a comment. It must not be readable or writable
 * by anyone but its owner: a key file others can read is refused, as ssh refuses such a private key.
 */
public final class KeyFile {
    /** The kinds of key, by their number on the wire. */
    public enum Kind {
        CLUSTER, CLIENT, USER;

        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Kind of(int number) {
            return number >= 0 && number < values().length ? values()[number] : null;
        }
    }

    /** Bytes of a cluster secret and of every derived key. */
    public static final int KEY_BYTES = 32;
    /** Longest user name a key or handshake may carry, in UTF-8 bytes. */
    public static final int MAX_USER_BYTES = 255;

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private final Kind kind;
    private final String user;
    private final byte[] key;

    private KeyFile(Kind kind, String user, byte[] key) {
        this.kind = kind;
        this.user = user;
        this.key = key;
    }

    /** A fresh cluster secret from the system's strong random source. */
    public static KeyFile newClusterSecret() {
        byte[] k = new byte[KEY_BYTES];
        new SecureRandom().nextBytes(k);
        return new KeyFile(Kind.CLUSTER, "", k);
    }

    public Kind kind() {
        return kind;
    }

    /** The user of a user key; "" for the other kinds. */
    public String user() {
        return user;
    }

    /** The key bytes a handshake of a peer with this key uses (a copy). */
    byte[] secret() {
        return key.clone();
    }

    /** The client key of this cluster secret. */
    public KeyFile clientKey() {
        return new KeyFile(Kind.CLIENT, "", keyFor(Kind.CLIENT, ""));
    }

    /** The key of {@code name} under this cluster secret. */
    public KeyFile userKey(String name) {
        String problem = checkUser(name);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return new KeyFile(Kind.USER, name, keyFor(Kind.USER, name));
    }

    /**
     * The key a peer that names {@code peerKind} and {@code peerUser} must hold: derived from this
     * cluster secret. Only a cluster secret derives keys.
     */
    byte[] keyFor(Kind peerKind, String peerUser) {
        if (kind != Kind.CLUSTER) {
            throw new IllegalStateException("only the cluster secret derives keys; this is a " + kind.word() + " key");
        }
        return switch (peerKind) {
            case CLUSTER -> hmac(key, "tarn daemon key");
            case CLIENT -> hmac(key, "tarn client key");
            case USER -> hmac(key, "tarn user key\0" + peerUser);
        };
    }

    static byte[] hmac(byte[] key, String label) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(label.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
        }
    }

    /** Why {@code name} cannot be a user name, or null: empty, too long, or with control characters. */
    public static String checkUser(String name) {
        if (name == null || name.isEmpty()) {
            return "the user name is empty";
        }
        if (name.getBytes(StandardCharsets.UTF_8).length > MAX_USER_BYTES) {
            return "the user name is longer than " + MAX_USER_BYTES + " bytes";
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                return "the user name holds a control character";
            }
        }
        return null;
    }

    /** The file's text. */
    public String format() {
        StringBuilder b = new StringBuilder();
        b.append("# Tarn key file, written by 'tarn secret'. Keep it private: readable by its owner only.\n");
        b.append("kind ").append(kind.word()).append('\n');
        if (kind == Kind.USER) {
            b.append("user ").append(user).append('\n');
        }
        b.append("key ").append(HexFormat.of().formatHex(key)).append('\n');
        return b.toString();
    }

    /**
     * Writes the key to {@code file}, readable and writable by its owner only from the first byte on
     * (a temporary file made with those permissions, then moved over {@code file}).
     */
    public void write(Path file) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        if (Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class)) {
            Files.createFile(tmp, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } else {
            Files.createFile(tmp);
        }
        try {
            Files.writeString(tmp, format(), StandardCharsets.UTF_8);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /** Writes the key to {@code file}, which must not exist yet. */
    public void writeNew(Path file) throws IOException {
        if (Files.exists(file)) {
            throw new FileAlreadyExistsException(file.toString(), null, "a key file is there already");
        }
        write(file);
    }

    /**
     * Reads a key file, refusing one others may read or write, and reports every problem as a
     * {@link ConfigException} that names the file, the key {@code configKey} that pointed to it and
     * what to do.
     */
    public static KeyFile load(Path file, String configKey) {
        String where = "key file " + file + " (" + configKey + ")";
        List<String> lines;
        try {
            checkOwnerOnly(file, where, "make a new secret with 'tarn secret'");
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            throw new ConfigException("cannot read " + where + ": no such file. Make one with 'tarn secret', or set "
                    + "tarn.security.authentication = none", e);
        } catch (AccessDeniedException e) {
            throw new ConfigException("cannot read " + where + ": permission denied", e);
        } catch (IOException e) {
            throw new ConfigException("cannot read " + where + ": " + e.getMessage(), e);
        }
        return parse(lines, where);
    }

    /**
     * Refuses (ConfigException) a secret file others may read or change: it no longer proves
     * anything. {@code where} names it in the message, {@code renew} says how to replace it.
     */
    public static void checkOwnerOnly(Path file, String where, String renew) throws IOException {
        if (Files.getFileStore(file).supportsFileAttributeView(PosixFileAttributeView.class)) {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            Set<PosixFilePermission> extra = new HashSet<>(perms);
            extra.removeAll(OWNER_ONLY);
            extra.remove(PosixFilePermission.OWNER_EXECUTE);
            if (!extra.isEmpty()) {
                throw new ConfigException(where + " is " + PosixFilePermissions.toString(perms)
                        + ": others can read or change it, so it no longer proves anything. Run chmod 600 "
                        + file + " (and " + renew + " if others may have read it)");
            }
        }
    }

    static KeyFile parse(List<String> lines, String where) {
        Kind kind = null;
        String user = null;
        byte[] key = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int hash = line.indexOf('#');
            line = (hash >= 0 ? line.substring(0, hash) : line).strip();
            if (line.isEmpty()) {
                continue;
            }
            int sp = line.indexOf(' ');
            String name = sp < 0 ? line : line.substring(0, sp);
            String value = sp < 0 ? "" : line.substring(sp + 1).strip();
            String at = where + ", line " + (i + 1) + ": ";
            switch (name) {
                case "kind" -> {
                    kind = switch (value) {
                        case "cluster" -> Kind.CLUSTER;
                        case "client" -> Kind.CLIENT;
                        case "user" -> Kind.USER;
                        default -> throw new ConfigException(at + "kind must be cluster, client or user, not '"
                                + value + "'");
                    };
                }
                case "user" -> {
                    String problem = checkUser(value);
                    if (problem != null) {
                        throw new ConfigException(at + problem);
                    }
                    user = value;
                }
                case "key" -> {
                    try {
                        key = HexFormat.of().parseHex(value);
                    } catch (IllegalArgumentException e) {
                        throw new ConfigException(at + "the key is not hexadecimal");
                    }
                    if (key.length != KEY_BYTES) {
                        throw new ConfigException(at + "the key has " + key.length + " bytes, not " + KEY_BYTES);
                    }
                }
                default -> throw new ConfigException(at + "unknown line '" + name
                        + "': a key file holds kind, user and key lines (write one with 'tarn secret')");
            }
        }
        if (kind == null || key == null) {
            throw new ConfigException(where + " lacks its " + (kind == null ? "kind" : "key")
                    + " line: is it a Tarn key file? Write one with 'tarn secret'");
        }
        if ((kind == Kind.USER) != (user != null)) {
            throw new ConfigException(where + (user == null ? ": a user key names its user (a user line)"
                    : ": only a user key names a user"));
        }
        return new KeyFile(kind, user == null ? "" : user, key);
    }

    @Override
    public String toString() {
        return kind.word() + " key" + (kind == Kind.USER ? " of " + user : ""); // never the key itself
    }
}
