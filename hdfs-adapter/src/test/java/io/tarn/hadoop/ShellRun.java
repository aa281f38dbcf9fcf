package io.tarn.hadoop;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Exit code, standard output and standard error of one {@code tarn fs} command line run in process. */
record ShellRun(int code, String out, String err) {
    /** Runs {@link TarnFsShell#run} with standard output and error captured; one at a time. */
    static synchronized ShellRun of(String... args) throws Exception {
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = TarnFsShell.run(args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new ShellRun(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
