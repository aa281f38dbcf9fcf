package io.tarn.client.random;

import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;

import java.io.IOException;
import java.util.List;

/**
 * Running a client call and writing down its outcome as the checks compare it: "OK", "true"/"false", the
 * error code it failed with, or how a listing or status shows entries.
 */
final class Calls {
    static final String OK = "OK";
    static final String TRUE = "true";
    static final String FALSE = "false";
    /** Prefix of a create's outcome when the create succeeded but writing or closing the file failed. */
    static final String AT_CLOSE = "at close: ";

    /** An operation whose outcome is "OK", "true"/"false", or what it throws. */
    interface Call {
        Object run() throws IOException;
    }

    /** The outcome of a call: its value, or the error code it failed with (checked against its type). */
    static String outcome(Call call) {
        try {
            Object v = call.run();
            return v == null ? OK : v.toString();
        } catch (IOException e) {
            return codeOf(e);
        }
    }

    /**
     * The error code of a failure, plus the exception type when it is not the one
     * {@link TarnException#of} gives that code (so that a wrong type never matches an expectation).
     */
    static String codeOf(IOException e) {
        if (!(e instanceof TarnError t)) {
            return "not a Tarn error: " + e;
        }
        Class<?> expected = TarnException.of(t.code(), "").getClass();
        return e.getClass() == expected ? t.code().name() : t.code().name() + " as " + e.getClass().getName();
    }

    static boolean isFailure(String outcome) {
        return !outcome.equals(OK) && !outcome.equals(TRUE) && !outcome.equals(FALSE);
    }

    /** How a listing or status shows an entry: "name/" for a directory, "name:size" for a file. */
    static String entry(FileStatus s) {
        return s.isDirectory() ? s.name() + "/" : s.name() + ":" + s.size();
    }

    static String listing(List<FileStatus> entries) {
        StringBuilder sb = new StringBuilder();
        for (FileStatus s : entries) {
            sb.append(sb.length() == 0 ? "" : ",").append(entry(s));
        }
        return sb.toString();
    }

    private Calls() {
    }
}
