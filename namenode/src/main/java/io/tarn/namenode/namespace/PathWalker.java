package io.tarn.namenode.namespace;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.TarnPath;
import io.tarn.namenode.security.Caller;

import java.util.List;

/**
 * Resolves path components to inodes by walking down from the root, and words the errors of a
 * failed walk. Takes no lock: each step reads one directory's concurrent children map, so a walk
 * racing a rename or delete sees every step as it was when read.
 */
final class PathWalker {
    private final DirectoryInode root;

    PathWalker(DirectoryInode root) {
        this.root = root;
    }

    DirectoryInode root() {
        return root;
    }

    /**
     * The inode at {@code path}, walked component by component without splitting the path into a
     * list or copying its components out of it ({@link PathComponent}: the getFile hot path);
     * errors as {@link #lookup(String, List)}.
     */
    Inode lookup(String path) throws TarnException {
        return lookup(path, Caller.UNCHECKED);
    }

    /**
     * {@link #lookup(String)}, each directory searched on the way only when {@code caller} may
     * (ACCESS_DENIED otherwise), in the same single walk.
     */
    Inode lookup(String path, Caller caller) throws TarnException {
        TarnPath.check(path);
        Inode cur = root;
        PathComponent name = new PathComponent(path);
        int n = path.length();
        int i = 1;
        while (i < n) {
            int end = TarnPath.componentEnd(path, i);
            if (end > i) {
                TarnPath.checkName(path, i, end, path);
                if (!(cur instanceof DirectoryInode dir)) {
                    throw notFound(path, "'" + TarnPath.normalize(path.substring(0, i - 1)) + "' is a file");
                }
                if (!caller.may(dir.ownership(), Caller.EXECUTE)) {
                    throw Permissions.denied(caller, Caller.EXECUTE, dir, "access", path);
                }
                cur = dir.children().get(name.span(i, end));
                if (cur == null) {
                    throw notFound(path, null);
                }
            }
            i = end + 1;
        }
        return cur;
    }

    /** The inode at {@code comps}; FILE_NOT_FOUND (naming {@code path}) when missing or below a file. */
    Inode lookup(String path, List<String> comps) throws TarnException {
        Inode cur = root;
        for (int i = 0; i < comps.size(); i++) {
            if (!(cur instanceof DirectoryInode dir)) {
                throw notFound(path, "'" + prefix(comps, i) + "' is a file");
            }
            cur = dir.children().get(comps.get(i));
            if (cur == null) {
                throw notFound(path, null);
            }
        }
        return cur;
    }

    /** The inode at the first {@code length} components, or null when missing or below a file. */
    Inode find(List<String> comps, int length) {
        Inode cur = root;
        for (int i = 0; i < length; i++) {
            if (!(cur instanceof DirectoryInode dir)) {
                return null;
            }
            cur = dir.children().get(comps.get(i));
            if (cur == null) {
                return null;
            }
        }
        return cur;
    }

    /** FILE_NOT_FOUND for {@code path} (normalized when it can be), with an optional reason. */
    static TarnException notFound(String path, String why) {
        String p;
        try {
            p = TarnPath.normalize(path);
        } catch (TarnException e) {
            p = path;
        }
        return new TarnException(ErrorCode.FILE_NOT_FOUND, "no such file or directory: '" + p + "'"
                + (why != null ? " (" + why + ")" : ""));
    }

    /** The absolute path of the first {@code n} components ("/" for none), for messages. */
    static String prefix(List<String> comps, int n) {
        if (n == 0) {
            return "/";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append('/').append(comps.get(i));
        }
        return sb.toString();
    }
}
