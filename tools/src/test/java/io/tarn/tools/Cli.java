package io.tarn.tools;

import io.tarn.minicluster.MiniCluster;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Runs the tarn CLI in-process with captured output, as a user would from bin/tarn. */
final class Cli {
    private Cli() {
    }

    /** Exit code and captured streams of one invocation. */
    record Result(int exit, String out, String err, byte[] rawOut) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- out ---\n" + out + "--- err ---\n" + err;
        }
    }

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        int exit = TarnCli.commandLine(o, e).execute(args);
        o.flush();
        e.flush();
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8),
                out.toByteArray());
    }

    /** Runs a command against a MiniCluster: the arguments plus -D options pointing at it. */
    static Result against(MiniCluster cluster, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.add("-D");
        all.add("tarn.namenode.address=127.0.0.1:" + cluster.namenodeAddress().getPort());
        all.add("-Dtarn.transport=tcp");
        all.add("-Dtarn.rpc.io.threads=1");
        return run(all.toArray(new String[0]));
    }
}
