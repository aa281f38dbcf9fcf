package io.tarn.client.random;

import io.tarn.client.random.Rules.Outcome;
import io.tarn.common.error.ErrorCode;

import static io.tarn.client.random.Calls.OK;
import static io.tarn.client.random.Names.child;
import static io.tarn.client.random.Names.name;
import static io.tarn.client.random.Names.owner;
import static io.tarn.client.random.Names.parent;
import static io.tarn.client.random.Names.within;

/**
 * The rules as several namenodes apply them today, where they differ from one namenode's:
 * a namenode holds every directory but only the files whose names it owns, so a check that
 * meets a file owned elsewhere sees nothing there; and partition 0 applies a directory rename
 * with HDFS's rules once more to the target it already resolved. Each divergence below names
 * the code that causes it (reported with issue 4).
 */
final class PartitionedRules implements Rules {
    private final Rules hdfs = new HdfsRules();

    /**
     * Below a file owned by another namenode than the new file's, the file's namenode finds the
     * parent missing, the client makes the parents through the coordinator, whose arbiter of the
     * file's name refuses with FILE_EXISTS (TarnClient.createAsync, DirectoryCoordinator.mkdirsNow).
     */
    @Override
    public String create(Tree t, String path) {
        String answer = hdfs.create(t, path);
        if (answer.equals(ErrorCode.NOT_A_DIRECTORY.name())
                && owner(name(t.firstNonDirectory(parent(path)))) != owner(name(path))) {
            return ErrorCode.FILE_EXISTS.name();
        }
        return answer;
    }

    /**
     * Below a file, the coordinator (DirectoryCoordinator.mkdirsNow without parents) sees a file it
     * owns (FILE_EXISTS) or nothing (PARENT_NOT_FOUND), where one namenode answers NOT_A_DIRECTORY.
     */
    @Override
    public String mkdir(Tree t, String path) {
        String answer = hdfs.mkdir(t, path);
        if (answer.equals(ErrorCode.NOT_A_DIRECTORY.name())) {
            return owner(name(t.firstNonDirectory(parent(path)))) == 0 ? ErrorCode.FILE_EXISTS.name()
                    : ErrorCode.PARENT_NOT_FOUND.name();
        }
        return answer;
    }

    @Override
    public Outcome rename(Tree t, String src, String dst) {
        Tree.Node s = t.get(src);
        if (s != null && s.isDirectory()) {
            return renameDirectory(t, s, src, dst);
        }
        Outcome answer = hdfs.rename(t, src, dst);
        // A file renamed below a file that another namenode owns: the source's namenode
        // (Namespace.planMove or Renamer) does not see the parent at all.
        if (answer.code().equals(ErrorCode.NOT_A_DIRECTORY.name())
                && owner(name(parent(dst))) != owner(name(src))) {
            return Outcome.failure(ErrorCode.PARENT_NOT_FOUND);
        }
        return answer;
    }

    /** DirectoryCoordinator.renameNow: the target resolved at partition 0, then checked by its arbiter. */
    private static Outcome renameDirectory(Tree t, Tree.Node s, String src, String dst) {
        Tree.Node d = t.get(dst);
        String target = d != null && d.isDirectory() ? child(dst, name(src)) : dst;
        int arbiter = owner(name(target));
        if (arbiter == 0) {
            return renameAtCoordinator(t, s, src, target);
        }
        // checkLocally, then the arbiter's Renamer (which can only find a file of that name).
        if (t.view(0, target) != null) {
            return Outcome.failure(ErrorCode.FILE_EXISTS); // also when target is src: HDFS changes nothing
        }
        if (within(target, src)) {
            return Outcome.failure(ErrorCode.RENAME_INVALID); // before the parent checks HDFS makes first
        }
        Tree.Node p = t.view(0, parent(target));
        if (p == null) {
            return Outcome.failure(ErrorCode.PARENT_NOT_FOUND);
        }
        if (!p.isDirectory()) {
            return Outcome.failure(ErrorCode.NOT_A_DIRECTORY);
        }
        return t.view(arbiter, target) != null ? Outcome.failure(ErrorCode.FILE_EXISTS) : new Outcome(OK, target);
    }

    /**
     * Namespace.applyRename(src, target) at partition 0, i.e. Renamer's rules applied to the
     * resolved target: an existing directory there is entered once more, so the source lands in
     * target/name instead of FILE_EXISTS, and a directory renamed onto its own parent is moved
     * into itself (RENAME_INVALID) instead of staying.
     */
    private static Outcome renameAtCoordinator(Tree t, Tree.Node s, String src, String target) {
        Tree.Node at = t.view(0, target);
        String targetDir;
        String targetName;
        if (at != null && at.isDirectory()) {
            targetDir = target;
            targetName = name(src);
        } else if (at != null) {
            return Outcome.failure(ErrorCode.FILE_EXISTS);
        } else {
            Tree.Node p = t.view(0, parent(target));
            if (p == null) {
                return Outcome.failure(ErrorCode.PARENT_NOT_FOUND);
            }
            if (!p.isDirectory()) {
                return Outcome.failure(ErrorCode.NOT_A_DIRECTORY);
            }
            targetDir = parent(target);
            targetName = name(target);
        }
        String finalPath = child(targetDir, targetName);
        Tree.Node occupant = t.view(0, finalPath);
        if (occupant == s) {
            return Outcome.NOTHING;
        }
        if (occupant != null) {
            return Outcome.failure(ErrorCode.FILE_EXISTS);
        }
        if (within(targetDir, src)) {
            return Outcome.failure(ErrorCode.RENAME_INVALID);
        }
        return new Outcome(OK, finalPath);
    }
}
