package io.tarn.namenode.namespace;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.namenode.security.Caller;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The permission checks of the client operations, as HDFS makes them: every directory a path passes
 * through must be searchable (EXECUTE); listing takes READ_EXECUTE on the directory; creating,
 * deleting and renaming take WRITE_EXECUTE on the parent (the deepest existing ancestor for
 * creations), and a sticky parent lets only the entry's owner, the parent's owner or a superuser
 * delete or rename the entry; a recursive delete takes ALL on every non-empty directory below;
 * reading a file's blocks takes READ, writing WRITE (or owning it); changing mode or group takes
 * ownership, changing the owner a superuser; setting times or replication takes WRITE.
 *
 * <p>Checks run before the operation and take no lock, so a mode changed concurrently may apply to
 * the operation or not, as with a chmod racing an open in POSIX. A check that finds the path (or
 * its parent) missing passes: the operation itself then answers with the error it always gave.
 * Denials are ACCESS_DENIED, worded like HDFS's ("Permission denied: user=..., access=...,
 * inode=...").
 */
public final class Permissions {
    private static final int ALL = Caller.READ | Caller.WRITE | Caller.EXECUTE;
    private static final int STICKY = 01000;

    private final PathWalker paths;
    private final FileTable files;

    Permissions(PathWalker paths, FileTable files) {
        this.paths = paths;
        this.files = files;
    }

    /**
     * GET_FILE's lookup in one walk: the entry at {@code path}, each directory on the way searched
     * only if the caller may. Errors of a failed walk as {@link PathWalker#lookup(String)}.
     */
    public Inode lookup(String path, Caller c) throws TarnException {
        return paths.lookup(path, c);
    }

    /** GET_FILE, GET_REPLICATION and the like: every directory above the entry searchable. */
    public void checkTraverse(String path, Caller c) throws TarnException {
        if (!c.superuser()) {
            List<String> comps = TarnPath.components(path);
            walk(path, comps, comps.size(), c);
        }
    }

    /** LIST: the path searchable, and a directory readable and searchable. */
    public void checkList(String path, Caller c) throws TarnException {
        if (c.superuser()) {
            return;
        }
        List<String> comps = TarnPath.components(path);
        Inode node = walk(path, comps, comps.size(), c);
        if (node instanceof DirectoryInode) {
            require(c, node, Caller.READ | Caller.EXECUTE, "list", path);
        }
    }

    /**
     * CREATE (a file, or a directory) and MKDIRS: WRITE_EXECUTE on the deepest directory that exists
     * on the way (the parent, or the first ancestor a creation of parents starts under); overwriting
     * a file also takes WRITE on it. An entry that exists is left to the operation (FILE_EXISTS, or
     * nothing to do for mkdirs).
     */
    public void checkCreate(String path, FileType type, boolean overwrite, Caller c) throws TarnException {
        if (c.superuser()) {
            return;
        }
        List<String> comps = TarnPath.components(path);
        Inode cur = paths.root();
        int depth = 0;
        while (depth < comps.size() && cur instanceof DirectoryInode dir) {
            require(c, dir, Caller.EXECUTE, "create", path);
            Inode next = dir.children().get(comps.get(depth));
            if (next == null) {
                break;
            }
            cur = next;
            depth++;
        }
        if (!(cur instanceof DirectoryInode)) {
            if (depth == comps.size() && overwrite && type == FileType.FILE) {
                require(c, cur, Caller.WRITE, "overwrite", path);
                require(c, cur.parent(), Caller.WRITE | Caller.EXECUTE, "overwrite", path);
            }
            return; // a file on the way: the operation says so
        }
        if (depth < comps.size()) {
            require(c, cur, Caller.WRITE | Caller.EXECUTE, "create", path);
        }
    }

    /**
     * DELETE: WRITE_EXECUTE on the parent, the sticky rule, and for a recursive delete of a directory
     * ALL on it and every non-empty directory below it (as HDFS, empty ones need nothing).
     */
    public void checkDelete(String path, boolean recursive, Caller c) throws TarnException {
        if (c.superuser()) {
            return;
        }
        List<String> comps = TarnPath.components(path);
        Inode node = walk(path, comps, comps.size(), c);
        if (node == null || node.parent() == null) {
            return; // missing, or the root: the operation answers
        }
        requireRemovable(c, node, "delete", path);
        if (recursive && node instanceof DirectoryInode top) {
            ArrayDeque<DirectoryInode> pending = new ArrayDeque<>();
            pending.add(top);
            while (!pending.isEmpty()) {
                DirectoryInode dir = pending.poll();
                if (dir.children().isEmpty()) {
                    continue;
                }
                require(c, dir, ALL, "delete", path);
                for (Inode child : dir.children().values()) {
                    if (child instanceof DirectoryInode d) {
                        pending.add(d);
                    }
                }
            }
        }
    }

    /**
     * RENAME: removing the source from its parent (WRITE_EXECUTE, sticky rule) and adding it to the
     * target's directory: the target itself when it is an existing directory, else its parent.
     */
    public void checkRename(String src, String dst, Caller c) throws TarnException {
        if (c.superuser()) {
            return;
        }
        List<String> s = TarnPath.components(src);
        Inode node = walk(src, s, s.size(), c);
        if (node == null || node.parent() == null) {
            return;
        }
        requireRemovable(c, node, "rename", src);
        List<String> d = TarnPath.components(dst);
        Inode target = walk(dst, d, d.size(), c);
        Inode into = target instanceof DirectoryInode ? target : d.isEmpty() ? null : walk(dst, d, d.size() - 1, c);
        if (into instanceof DirectoryInode) {
            require(c, into, Caller.WRITE | Caller.EXECUTE, "rename '" + TarnPath.normalize(src) + "' to", dst);
        }
    }

    /**
     * SET_ATTR: the mode takes ownership; the group takes ownership and membership of the new group;
     * the owner a superuser (an owner may name itself); the times WRITE.
     */
    public void checkSetAttributes(SetAttributesRequest r, Caller c) throws TarnException {
        if (c.superuser()) {
            return;
        }
        String path = r.path();
        List<String> comps = TarnPath.components(path);
        Inode node = walk(path, comps, comps.size(), c);
        if (node == null) {
            return;
        }
        Ownership o = node.ownership();
        boolean mode = r.sets(NamenodeProtocol.SET_PERMISSION);
        boolean owner = r.sets(NamenodeProtocol.SET_OWNER);
        boolean group = r.sets(NamenodeProtocol.SET_GROUP);
        if ((mode || owner || group) && !c.owns(o)) {
            throw denied(c, "change the " + (mode ? "permission" : owner ? "owner" : "group") + " of", path,
                    "only the owner (" + o.owner() + ") or a superuser can");
        }
        if (owner && !r.ownership().owner().equals(c.user())) {
            throw denied(c, "change the owner of", path, "only a superuser can give an entry to another user");
        }
        if (group && !c.inGroup(r.ownership().group())) {
            throw denied(c, "change the group of", path, "the user is not a member of group '"
                    + r.ownership().group() + "'");
        }
        if (r.sets(NamenodeProtocol.SET_MTIME) || r.sets(NamenodeProtocol.SET_ATIME)) {
            require(c, node, Caller.WRITE, "set the times of", path);
        }
    }

    /** APPEND, SET_REPLICATION: the path searchable and the entry writable. */
    public void checkWrite(String path, String action, Caller c) throws TarnException {
        if (c.superuser()) {
            return;
        }
        List<String> comps = TarnPath.components(path);
        Inode node = walk(path, comps, comps.size(), c);
        if (node != null) {
            require(c, node, Caller.WRITE, action, path);
        }
    }

    /**
     * Operations on a file by id: reading its blocks takes READ; writing (blocks, sync, close) takes
     * WRITE or ownership (its creator writes even a file it made read-only, as in HDFS). An unknown
     * id passes: the operation says so.
     */
    public void checkFile(long fileId, boolean write, Caller c) throws TarnException {
        if (c.superuser()) {
            return;
        }
        FileInode f = files.get(fileId);
        if (f == null) {
            return;
        }
        Ownership o = f.ownership();
        if (write ? !(c.owns(o) || c.may(o, Caller.WRITE)) : !c.may(o, Caller.READ)) {
            throw denied(c, write ? Caller.WRITE : Caller.READ, f, write ? "write" : "read", f.path());
        }
    }

    // ------------------------------------------------------------------ helpers

    /**
     * Walks the first {@code n} components, requiring EXECUTE on each directory searched; the entry
     * reached, or null when one is missing or a file is on the way.
     */
    private Inode walk(String path, List<String> comps, int n, Caller c) throws TarnException {
        Inode cur = paths.root();
        for (int i = 0; i < n; i++) {
            if (!(cur instanceof DirectoryInode dir)) {
                return null;
            }
            require(c, dir, Caller.EXECUTE, "access", path);
            cur = dir.children().get(comps.get(i));
            if (cur == null) {
                return null;
            }
        }
        return cur;
    }

    /** Removing {@code node} from its parent: WRITE_EXECUTE there, and the sticky rule. */
    private static void requireRemovable(Caller c, Inode node, String action, String path) throws TarnException {
        DirectoryInode parent = node.parent();
        require(c, parent, Caller.WRITE | Caller.EXECUTE, action, path);
        Ownership p = parent.ownership();
        if ((p.permission() & STICKY) != 0 && !c.user().equals(p.owner())
                && !c.user().equals(node.ownership().owner())) {
            throw denied(c, action, path, "'" + parent.path() + "' is sticky (" + Ownership.symbolic(p.permission())
                    + "): only the owner of the entry (" + node.ownership().owner() + ") or of the directory ("
                    + p.owner() + ") can");
        }
    }

    private static void require(Caller c, Inode node, int access, String action, String path) throws TarnException {
        if (!c.may(node.ownership(), access)) {
            throw denied(c, access, node, action, path);
        }
    }

    static TarnException denied(Caller c, int access, Inode node, String action, String path) {
        Ownership o = node.ownership();
        return new TarnException(ErrorCode.ACCESS_DENIED, "Permission denied: user=" + c.user() + ", access="
                + Caller.action(access) + ", inode=\"" + node.path() + "\":" + o.owner() + ":" + o.group() + ":"
                + (node instanceof DirectoryInode ? 'd' : '-') + Ownership.symbolic(o.permission()) + " (cannot "
                + action + " '" + normalized(path) + "')");
    }

    private static TarnException denied(Caller c, String action, String path, String why) {
        return new TarnException(ErrorCode.ACCESS_DENIED, "Permission denied: user=" + c.user() + " cannot " + action
                + " '" + normalized(path) + "': " + why);
    }

    private static String normalized(String path) {
        try {
            return TarnPath.normalize(path);
        } catch (TarnException e) {
            return path;
        }
    }
}
