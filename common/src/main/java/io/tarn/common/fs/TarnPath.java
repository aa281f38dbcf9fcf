package io.tarn.common.fs;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;

import java.util.ArrayList;
import java.util.List;

/**
 * Validation and splitting of absolute Tarn paths.
 *
 * <p>A path is absolute, components are separated by '/', repeated and trailing slashes are
 * ignored, and the components "." and ".." are rejected rather than resolved (Hadoop resolves them
 * before they reach a file system). Components may not contain NUL.
 */
public final class TarnPath {
    /** Longest encoded path accepted, in UTF-8 bytes. */
    public static final int MAX_PATH_BYTES = 8192;
    /** Longest component accepted, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 255;

    private TarnPath() {
    }

    /**
     * The end (exclusive) of the component of {@code path} that starts at {@code start}, skipping
     * nothing: callers step over slashes themselves. For walking a path without splitting it into a
     * list; {@link #checkName} validates each component found.
     */
    public static int componentEnd(String path, int start) {
        int slash = path.indexOf('/', start);
        return slash < 0 ? path.length() : slash;
    }

    /** Splits an absolute path into its components; the root gives an empty list. */
    public static List<String> components(String path) throws TarnException {
        check(path);
        List<String> out = new ArrayList<>();
        int i = 1;
        int n = path.length();
        while (i < n) {
            int slash = path.indexOf('/', i);
            int end = slash < 0 ? n : slash;
            if (end > i) {
                String name = path.substring(i, end);
                checkName(name, path);
                out.add(name);
            }
            i = end + 1;
        }
        return out;
    }

    /**
     * INVALID_PATH when {@code path} is longer than {@link #MAX_PATH_BYTES} in UTF-8, the most a
     * namenode accepts: a client checks it before encoding a request, so that a path too long even
     * for a frame's string field fails the same way. Nothing is computed for a path short enough in
     * any encoding.
     */
    public static void checkLength(String path) throws TarnException {
        if (path != null && path.length() > MAX_PATH_BYTES / 3) {
            int bytes = utf8Length(path);
            if (bytes > MAX_PATH_BYTES) {
                throw new TarnException(ErrorCode.INVALID_PATH, "path of " + bytes + " bytes (UTF-8) is longer "
                        + "than the " + MAX_PATH_BYTES + " bytes a path may have: '" + path.substring(0, 40) + "...'");
            }
        }
    }

    /** The canonical form: a leading slash, single separators, no trailing slash (except the root). */
    public static String normalize(String path) throws TarnException {
        List<String> c = components(path);
        if (c.isEmpty()) {
            return "/";
        }
        StringBuilder sb = new StringBuilder(path.length());
        for (String s : c) {
            sb.append('/').append(s);
        }
        return sb.toString();
    }

    /** Joins a directory path and a child name. */
    public static String child(String dir, String name) {
        return dir.endsWith("/") ? dir + name : dir + "/" + name;
    }

    /** The parent of a normalized path; the root's parent is the root. */
    public static String parent(String normalized) {
        int slash = normalized.lastIndexOf('/');
        return slash <= 0 ? "/" : normalized.substring(0, slash);
    }

    /** The last component of a normalized path ("" for the root). */
    public static String name(String normalized) {
        return normalized.substring(normalized.lastIndexOf('/') + 1);
    }

    /** INVALID_PATH unless {@code path} is absolute and within the limits ({@link #components} checks the same). */
    public static void check(String path) throws TarnException {
        if (path == null || path.isEmpty()) {
            throw new TarnException(ErrorCode.INVALID_PATH, "empty path");
        }
        if (path.charAt(0) != '/') {
            throw new TarnException(ErrorCode.INVALID_PATH, "path must be absolute: '" + path + "'");
        }
        if (utf8Length(path) > MAX_PATH_BYTES) {
            throw new TarnException(ErrorCode.INVALID_PATH, "path longer than " + MAX_PATH_BYTES + " bytes (UTF-8)");
        }
    }

    /** INVALID_PATH unless {@code name}, a component of {@code path}, is a valid name. */
    public static void checkName(String name, String path) throws TarnException {
        checkName(name, 0, name.length(), path);
    }

    /**
     * As {@link #checkName(String, String)} for the name {@code s.substring(start, end)}, without
     * copying it out (the lookup path checks components where they stand in the path).
     */
    public static void checkName(String s, int start, int end, String path) throws TarnException {
        int length = end - start;
        if (length > 0 && length <= 2 && s.charAt(start) == '.' && (length == 1 || s.charAt(start + 1) == '.')) {
            throw new TarnException(ErrorCode.INVALID_PATH, "'.' and '..' are not allowed in '" + path + "'");
        }
        for (int i = start; i < end; i++) { // within the name only: a walk checks every component
            if (s.charAt(i) == '\0') {
                throw new TarnException(ErrorCode.INVALID_PATH, "NUL character in '" + path + "'");
            }
        }
        if (length > MAX_NAME_BYTES / 3 && utf8Length(s, start, end) > MAX_NAME_BYTES) {
            throw new TarnException(ErrorCode.INVALID_PATH, "component longer than " + MAX_NAME_BYTES
                    + " bytes (UTF-8) in '" + path + "'");
        }
    }

    /** Bytes of the string in UTF-8, without encoding it. */
    static int utf8Length(String s) {
        return utf8Length(s, 0, s.length());
    }

    /** Bytes of {@code s.substring(start, end)} in UTF-8, without encoding or copying it. */
    static int utf8Length(String s, int start, int end) {
        int bytes = 0;
        for (int i = start; i < end; i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }
}
