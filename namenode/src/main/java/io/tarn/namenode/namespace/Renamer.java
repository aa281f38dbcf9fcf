package io.tarn.namenode.namespace;

import io.tarn.namenode.journal.EditLog;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.TarnPath;
import io.tarn.namenode.Clock;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Renames and moves files and directories with HDFS semantics. Rules, checked in this order:
 *
 * <table>
 *   <caption>rename(src, dst)</caption>
 *   <tr><th>case</th><th>outcome</th></tr>
 *   <tr><td>src is the root</td><td>RENAME_INVALID</td></tr>
 *   <tr><td>src does not exist</td><td>FILE_NOT_FOUND</td></tr>
 *   <tr><td>dst is an existing directory D</td><td>the target is D/(name of src)</td></tr>
 *   <tr><td>dst is src itself, a file</td><td>nothing changes</td></tr>
 *   <tr><td>dst is another existing file</td><td>FILE_EXISTS</td></tr>
 *   <tr><td>dst does not exist and its parent does not either</td><td>PARENT_NOT_FOUND</td></tr>
 *   <tr><td>dst does not exist and its parent is a file</td><td>NOT_A_DIRECTORY</td></tr>
 *   <tr><td>dst does not exist, its parent is a directory</td><td>the target is dst</td></tr>
 *   <tr><td>the target is where src already is</td><td>nothing changes</td></tr>
 *   <tr><td>the target is taken</td><td>FILE_EXISTS</td></tr>
 *   <tr><td>src is a directory and the target lies in it (or is it)</td><td>RENAME_INVALID</td></tr>
 *   <tr><td>otherwise</td><td>src moves to the target; both parents' modification times are set</td></tr>
 * </table>
 * Races with the lock-free operations end as: the target created meanwhile, FILE_EXISTS; src
 * deleted meanwhile, FILE_NOT_FOUND; the target directory deleted meanwhile, PARENT_NOT_FOUND.
 *
 * <p>Renames hold the structure lock (shared with recursive deletes), so the subtree check stays
 * true while the move happens. The entry is linked at the target first and unlinked at the source
 * after, so a lock-free reader always finds it under one of the two names.
 */
final class Renamer {
    private final Clock clock;
    private final PathWalker paths;
    private final ReentrantLock structureLock;
    private final EditLog log;

    Renamer(Clock clock, PathWalker paths, ReentrantLock structureLock, EditLog log) {
        this.log = log;
        this.clock = clock;
        this.paths = paths;
        this.structureLock = structureLock;
    }

    /** See {@link Namespace#rename}. */
    void rename(String src, String dst) throws TarnException {
        List<String> sc = TarnPath.components(src);
        List<String> dc = TarnPath.components(dst);
        String srcPath = TarnPath.normalize(src);
        String dstPath = TarnPath.normalize(dst);
        if (sc.isEmpty()) {
            throw new TarnException(ErrorCode.RENAME_INVALID, "cannot rename the root directory");
        }
        structureLock.lock();
        try {
            Inode source = paths.find(sc, sc.size());
            if (source == null) {
                throw new TarnException(ErrorCode.FILE_NOT_FOUND, "cannot rename '" + srcPath
                        + "': it does not exist");
            }
            DirectoryInode srcParent = source.parent();
            String srcName = source.name();
            Inode target = paths.find(dc, dc.size());
            DirectoryInode targetDir;
            String targetName;
            if (target instanceof DirectoryInode d) {
                targetDir = d;
                targetName = srcName;
            } else if (target != null) {
                if (target == source) {
                    return;
                }
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot rename '" + srcPath + "' to '" + dstPath
                        + "': the destination exists");
            } else {
                Inode p = paths.find(dc, dc.size() - 1);
                if (p == null) {
                    throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot rename '" + srcPath + "' to '"
                            + dstPath + "': parent directory '" + TarnPath.parent(dstPath) + "' does not exist");
                }
                if (p instanceof FileInode) {
                    throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "cannot rename '" + srcPath + "' to '"
                            + dstPath + "': '" + TarnPath.parent(dstPath) + "' is a file");
                }
                targetDir = (DirectoryInode) p;
                targetName = dc.get(dc.size() - 1);
            }
            Inode occupant = targetDir.children().get(targetName);
            if (occupant == source) {
                return;
            }
            String targetPath = TarnPath.child(targetDir.path(), targetName);
            if (occupant != null) {
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot rename '" + srcPath + "' to '" + targetPath
                        + "': the destination exists");
            }
            if (source instanceof DirectoryInode sd && isSelfOrAncestor(sd, targetDir)) {
                throw new TarnException(ErrorCode.RENAME_INVALID, "cannot move directory '" + srcPath
                        + "' into its own subtree '" + targetPath + "'");
            }
            long now = clock.millis();
            if (source instanceof FileInode f) {
                moveFile(f, srcParent, srcName, targetDir, targetName, srcPath, targetPath, now);
            } else {
                moveDirectory((DirectoryInode) source, srcParent, srcName, targetDir, targetName, srcPath,
                        targetPath, now);
            }
            srcParent.touch(now);
            targetDir.touch(now);
        } finally {
            structureLock.unlock();
        }
    }

    /**
     * Starts moving file {@code src} to {@code targetName} in {@code targetParent}, a name partition
     * {@code to} owns: checks under the structure lock that the source is a file and marks it
     * moving. The target is checked by the namenode that adopts the file.
     */
    FileMove beginMove(String src, String targetParent, String targetName, int to) throws TarnException {
        List<String> sc = TarnPath.components(src);
        String srcPath = TarnPath.normalize(src);
        String targetPath = TarnPath.child(targetParent, targetName);
        structureLock.lock();
        try {
            Inode source = paths.find(sc, sc.size());
            if (source == null) {
                throw new TarnException(ErrorCode.FILE_NOT_FOUND, "cannot rename '" + srcPath
                        + "': it does not exist");
            }
            if (!(source instanceof FileInode f)) {
                throw new TarnException(ErrorCode.RETRY, "cannot rename '" + srcPath + "' now: it just became a "
                        + "directory");
            }
            synchronized (f) {
                if (!f.beginMove()) {
                    throw f.retired()
                            ? new TarnException(ErrorCode.FILE_NOT_FOUND, "cannot rename '" + srcPath
                                    + "': it was deleted meanwhile")
                            : FileInode.movingRetry("rename", srcPath);
                }
            }
            return new FileMove(f, f.parent(), f.name(), srcPath, targetParent, targetName, to,
                    FileMove.newTicket());
        } finally {
            structureLock.unlock();
        }
    }

    private static boolean isSelfOrAncestor(DirectoryInode dir, DirectoryInode of) {
        for (DirectoryInode d = of; d != null; d = d.parent()) {
            if (d == dir) {
                return true;
            }
        }
        return false;
    }

    /**
     * Links the file at the target first and unlinks it at the source after, so a reader always finds
     * it under one of the names. Holding the file's monitor keeps deletes and overwrites out.
     */
    private void moveFile(FileInode f, DirectoryInode srcParent, String srcName, DirectoryInode targetDir,
                          String targetName, String srcPath, String targetPath, long now) throws TarnException {
        synchronized (f) {
            if (f.retired() || srcParent.children().get(srcName) != f) {
                throw new TarnException(ErrorCode.FILE_NOT_FOUND, "cannot rename '" + srcPath
                        + "': it was deleted meanwhile");
            }
            if (f.moving()) {
                throw FileInode.movingRetry("rename", srcPath);
            }
            link(f, targetDir, targetName, srcPath, targetPath);
            // Recorded once the new name is taken and before the old one is freed.
            NamespaceEdits.rename(log, f, srcParent, srcName, targetDir, targetName, now);
            f.moveTo(targetDir, targetName);
            srcParent.children().remove(srcName, f);
        }
    }

    /**
     * Pins the directory (its monitor, after its creation's record, then BUSY) so a concurrent rmdir
     * of it waits, then moves it like a file.
     */
    private void moveDirectory(DirectoryInode dir, DirectoryInode srcParent, String srcName,
                               DirectoryInode targetDir, String targetName, String srcPath,
                               String targetPath, long now) throws TarnException {
        synchronized (dir) {
            moveBusy(dir, srcParent, srcName, targetDir, targetName, srcPath, targetPath, now);
        }
    }

    private void moveBusy(DirectoryInode dir, DirectoryInode srcParent, String srcName, DirectoryInode targetDir,
                          String targetName, String srcPath, String targetPath, long now) throws TarnException {
        while (!dir.transition(DirectoryInode.ALIVE, DirectoryInode.BUSY)) {
            int state = dir.awaitStable();
            if (state == DirectoryInode.DELETED) {
                throw new TarnException(ErrorCode.FILE_NOT_FOUND, "cannot rename '" + srcPath
                        + "': it was deleted meanwhile");
            }
            if (state == DirectoryInode.SEALED) {
                throw new TarnException(ErrorCode.RETRY, "cannot rename '" + srcPath + "' now: it is being deleted");
            }
        }
        try {
            link(dir, targetDir, targetName, srcPath, targetPath);
            // Recorded once the new name is taken and before the old one is freed.
            NamespaceEdits.rename(log, dir, srcParent, srcName, targetDir, targetName, now);
            dir.moveTo(targetDir, targetName);
            srcParent.children().remove(srcName, dir);
        } finally {
            dir.setState(DirectoryInode.ALIVE);
        }
    }

    private static void link(Inode node, DirectoryInode targetDir, String targetName, String srcPath,
                             String targetPath) throws TarnException {
        if (targetDir.children().putIfAbsent(targetName, node) != null) {
            throw new TarnException(ErrorCode.FILE_EXISTS, "cannot rename '" + srcPath + "' to '" + targetPath
                    + "': the destination was created meanwhile");
        }
        int state = targetDir.commitInsert(targetName, node);
        if (state != DirectoryInode.ALIVE) {
            throw DirectoryInode.refused(state, "cannot rename '" + srcPath + "' to '" + targetPath + "'");
        }
    }
}
