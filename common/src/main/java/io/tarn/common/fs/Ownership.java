package io.tarn.common.fs;

/**
 * Owner, group and POSIX permission bits of a namespace entry, as Hadoop's FileSystem API stores
 * and returns them. A namenode that authenticates its callers enforces them as HDFS does
 * ({@code tarn.security.permissions}, docs/security.md).
 *
 * <p>In a request, an empty owner or group and {@link #DEFAULT_PERMISSION} mean "let the namenode
 * decide": the parent directory's owner and group (BSD rule, as in HDFS), and {@code 0644} for
 * files, {@code 0755} for directories. A namenode that checks permissions makes the authenticated
 * caller the owner of what it creates, whatever the request names.
 *
 * @param owner      user name; "" in a request: unspecified
 * @param group      group name; "" in a request: inherit the parent directory's
 * @param permission the 12 low bits of a POSIX mode (sticky, setuid, setgid and rwx for user, group,
 *                   other), or {@link #DEFAULT_PERMISSION}
 */
public record Ownership(String owner, String group, int permission) {
    /** "Use the namenode's default permission" in requests. */
    public static final int DEFAULT_PERMISSION = -1;
    /** The largest permission value: all 12 mode bits. */
    public static final int MAX_PERMISSION = 07777;
    /** Default permission of a file when the request leaves it to the namenode. */
    public static final int FILE_DEFAULT = 0644;
    /** Default permission of a directory when the request leaves it to the namenode. */
    public static final int DIRECTORY_DEFAULT = 0755;

    /** Nothing specified: the namenode decides everything. */
    public static final Ownership UNSPECIFIED = new Ownership("", "", DEFAULT_PERMISSION);

    public Ownership {
        if (owner == null || group == null) {
            throw new IllegalArgumentException("owner and group must not be null (use \"\" for unspecified)");
        }
        if (permission != DEFAULT_PERMISSION && (permission < 0 || permission > MAX_PERMISSION)) {
            throw new IllegalArgumentException("permission " + Integer.toOctalString(permission)
                    + " is not a 12-bit mode (0 to 7777 octal)");
        }
    }

    /** The same ownership with another permission. */
    public Ownership withPermission(int p) {
        return new Ownership(owner, group, p);
    }

    /** {@code rwxr-x---} style rendering of the 9 low bits (plus sticky as {@code t}). */
    public static String symbolic(int permission) {
        String rwx = "rwxrwxrwx";
        StringBuilder sb = new StringBuilder(9);
        for (int i = 0; i < 9; i++) {
            sb.append((permission & (1 << (8 - i))) != 0 ? rwx.charAt(i) : '-');
        }
        if ((permission & 01000) != 0) {
            sb.setCharAt(8, (permission & 1) != 0 ? 't' : 'T');
        }
        return sb.toString();
    }
}
