package io.tarn.tools.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How to start a Tarn daemon as a JVM of its own: the java binary and the class path holding
 * {@code io.tarn.tools.TarnCli} and its libraries (a distribution's {@code lib/}, or the class path
 * of the JVM running the harness, which under {@code bin/tarn} is that same {@code lib/}).
 *
 * @param java      the java executable
 * @param classPath the class path, as {@code -cp} takes it (a {@code dir/*} wildcard is fine)
 */
public record Launcher(String java, String classPath) {
    private static final String MAIN = "io.tarn.tools.TarnCli";

    /** This JVM's java and class path. */
    public static Launcher current() {
        return new Launcher(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                System.getProperty("java.class.path"));
    }

    /** The jars of the distribution at {@code home} ({@code home/lib/*}), run by this JVM's java. */
    public static Launcher distribution(Path home) {
        Path lib = home.resolve("lib");
        if (!Files.isDirectory(lib)) {
            throw new IllegalArgumentException(home + " is not a Tarn distribution: it has no lib/");
        }
        return new Launcher(current().java(), lib + "/*");
    }

    /**
     * Starts {@code tarn <role> -Dkey=value...} as a process of its own, its output (INFO and above)
     * appended to {@code log}.
     */
    public Process start(String role, Map<String, String> keys, Path log) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command(role, keys)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().put("TARN_LOG_TARGET", "System.out");
        pb.environment().put("TARN_LOG_LEVEL", "INFO");
        Process p = pb.start();
        p.getOutputStream().close();
        return p;
    }

    /** The command running {@code tarn <role> -Dkey=value...}: a small heap, quick start-up, Netty's flags. */
    List<String> command(String role, Map<String, String> keys) {
        // Direct memory beyond the small heap: a leader may encode a checkpoint image of a whole region.
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx192m", "-XX:MaxDirectMemorySize=512m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
                "-Dio.netty.tryReflectionSetAccessible=true", "-cp", classPath, MAIN, role));
        keys.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        return cmd;
    }
}
