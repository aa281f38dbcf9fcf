package io.tarn.client.random;

import io.tarn.common.error.ErrorCode;

import static io.tarn.client.random.Calls.FALSE;
import static io.tarn.client.random.Calls.OK;
import static io.tarn.client.random.Calls.TRUE;

/** The answers of the operations whose answers depend on the rules: one namenode's, or several's. */
interface Rules {
    /** A rename's outcome, and on success where the source ends up (null: nothing changes). */
    record Outcome(String code, String target) {
        static final Outcome NOTHING = new Outcome(OK, null);

        static Outcome failure(ErrorCode code) {
            return new Outcome(code.name(), null);
        }

        String key() {
            return target == null ? code : code + " -> " + target;
        }
    }

    String create(Tree t, String path);

    String mkdir(Tree t, String path);

    Outcome rename(Tree t, String src, String dst);

    /** mkdirs: FILE_EXISTS when any component is a file (the same with any number of namenodes). */
    static String mkdirs(Tree t, String path) {
        String blocked = t.firstNonDirectory(path);
        return blocked != null && t.get(blocked) != null ? ErrorCode.FILE_EXISTS.name() : OK;
    }

    /** delete: false when missing; DIRECTORY_NOT_EMPTY for a non-empty directory without recursive. */
    static String delete(Tree t, String path, boolean recursive) {
        Tree.Node n = t.get(path);
        if (n == null) {
            return FALSE;
        }
        return n.isDirectory() && !recursive && !n.children.isEmpty() ? ErrorCode.DIRECTORY_NOT_EMPTY.name() : TRUE;
    }
}
