package io.tarn.client.random;

import io.tarn.client.random.Rules.Outcome;
import io.tarn.common.error.ErrorCode;

import static io.tarn.client.random.Calls.OK;
import static io.tarn.client.random.Names.child;
import static io.tarn.client.random.Names.name;
import static io.tarn.client.random.Names.parent;
import static io.tarn.client.random.Names.within;

/**
 * HDFS's rules, as one Tarn namenode applies them (Creator, and the rule table of
 * {@code io.tarn.namenode.namespace.Renamer}).
 */
final class HdfsRules implements Rules {
    @Override
    public String create(Tree t, String path) {
        String blocked = t.firstNonDirectory(parent(path));
        if (blocked != null) {
            return t.get(blocked) == null ? OK : ErrorCode.NOT_A_DIRECTORY.name(); // missing parents are made
        }
        Tree.Node n = t.get(path);
        return n == null ? OK : n.isDirectory() ? ErrorCode.IS_A_DIRECTORY.name() : ErrorCode.FILE_EXISTS.name();
    }

    @Override
    public String mkdir(Tree t, String path) {
        String blocked = t.firstNonDirectory(parent(path));
        if (blocked != null) {
            return t.get(blocked) == null ? ErrorCode.PARENT_NOT_FOUND.name() : ErrorCode.NOT_A_DIRECTORY.name();
        }
        Tree.Node n = t.get(path);
        return n != null && !n.isDirectory() ? ErrorCode.FILE_EXISTS.name() : OK;
    }

    @Override
    public Outcome rename(Tree t, String src, String dst) {
        Tree.Node s = t.get(src);
        if (s == null) {
            return Outcome.failure(ErrorCode.FILE_NOT_FOUND);
        }
        Tree.Node d = t.get(dst);
        String target;
        if (d != null && d.isDirectory()) {
            target = child(dst, name(src));
        } else if (d != null) {
            return d == s ? Outcome.NOTHING : Outcome.failure(ErrorCode.FILE_EXISTS);
        } else {
            Tree.Node p = t.get(parent(dst));
            if (p == null) {
                return Outcome.failure(ErrorCode.PARENT_NOT_FOUND);
            }
            if (!p.isDirectory()) {
                return Outcome.failure(ErrorCode.NOT_A_DIRECTORY);
            }
            target = dst;
        }
        Tree.Node occupant = t.get(target);
        if (occupant == s) {
            return Outcome.NOTHING;
        }
        if (occupant != null) {
            return Outcome.failure(ErrorCode.FILE_EXISTS);
        }
        if (s.isDirectory() && within(parent(target), src)) {
            return Outcome.failure(ErrorCode.RENAME_INVALID);
        }
        return new Outcome(OK, target);
    }
}
