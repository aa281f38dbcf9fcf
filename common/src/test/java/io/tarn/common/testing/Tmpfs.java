package io.tarn.common.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A small tmpfs mounted for real, to fill a file system or make it read-only under the code under
 * test. Needs root (or CAP_SYS_ADMIN): elsewhere the test is skipped, saying why. Shared by the
 * modules' tests through this module's test jar.
 */
public final class Tmpfs implements AutoCloseable {
    private final Path path;

    private Tmpfs(Path path) {
        this.path = path;
    }

    /**
     * Mounts a tmpfs of {@code size} (as {@code mount -o size=} takes it: {@code 1m}, {@code 4m})
     * on {@code dir}, created if needed; skips the calling test when that is not possible here.
     */
    public static Tmpfs mount(Path dir, String size) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString()) != null,
                "skipped: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)");
        return new Tmpfs(dir);
    }

    /** The mount point. */
    public Path path() {
        return path;
    }

    /** Remounts the file system read-only; true when that worked. */
    public boolean remountReadOnly() throws IOException, InterruptedException {
        return run("mount", "-o", "remount,ro", path.toString()) != null;
    }

    /** Unmounts, lazily: files the code under test still holds open do not keep it mounted. */
    @Override
    public void close() throws IOException, InterruptedException {
        run("umount", "-l", path.toString());
    }

    /** Runs a command; returns its output, or null when it failed or took over 30 s. */
    public static String run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : null;
    }
}
