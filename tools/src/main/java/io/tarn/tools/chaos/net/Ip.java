package io.tarn.tools.chaos.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs iproute2's {@code ip} and reports a failure with its own message. */
final class Ip {
    private static final long SECONDS = 30;

    private Ip() {
    }

    /** Output of a command that succeeded. */
    static String run(String... args) throws IOException {
        Result r = tryRun(args);
        if (r.exit() != 0) {
            throw new IOException("ip " + String.join(" ", args) + " failed (exit " + r.exit() + "): "
                    + r.output().strip());
        }
        return r.output();
    }

    /** Exit code and combined output of {@code ip args}. */
    record Result(int exit, String output) {
    }

    static Result tryRun(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add("ip");
        command.addAll(Arrays.asList(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("ip " + String.join(" ", args) + " did not finish within " + SECONDS + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new IOException("interrupted running ip " + String.join(" ", args), e);
        }
        return new Result(p.exitValue(), out);
    }
}
