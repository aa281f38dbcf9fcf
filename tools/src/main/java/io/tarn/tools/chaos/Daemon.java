package io.tarn.tools.chaos;

import io.tarn.tools.chaos.net.Host;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One Tarn daemon of a {@link ProcessCluster}: a JVM started inside its host's namespace (so the
 * process's pid is the JVM's), which the harness kills, pauses, resumes and starts again. Its
 * standard output and error go to one log file, appended to across restarts.
 */
final class Daemon {
    private final String name;
    private final Host host;
    private final int port;
    private final List<String> command;
    private final Path log;
    private final Path storage;
    private Process process;
    private boolean paused;

    Daemon(String name, Host host, int port, List<String> command, Path log, Path storage) {
        this.name = name;
        this.host = host;
        this.port = port;
        this.command = host.command(command);
        this.log = log;
        this.storage = storage;
    }

    String name() {
        return name;
    }

    Host host() {
        return host;
    }

    /** The port it serves on, at its host's address. */
    int port() {
        return port;
    }

    /** Its storage directory (memory files of a DRAM datanode), or null for the namenode. */
    Path storage() {
        return storage;
    }

    Path log() {
        return log;
    }

    synchronized boolean running() {
        return process != null && process.isAlive();
    }

    synchronized boolean paused() {
        return paused;
    }

    synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    synchronized void start() throws IOException {
        if (running()) {
            throw new IllegalStateException(name + " is already running (pid " + process.pid() + ")");
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().put("TARN_LOG_TARGET", "System.out");
        pb.environment().put("TARN_LOG_LEVEL", "INFO");
        process = pb.start();
        process.getOutputStream().close();
        paused = false;
    }

    /** SIGKILL, and waits for the process to be gone. */
    synchronized void kill() throws IOException {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        await(process);
        paused = false;
    }

    /** SIGTERM (a clean stop), waiting up to 20 s, then SIGKILL. */
    synchronized void stop() throws IOException {
        if (process == null || !process.isAlive()) {
            return;
        }
        if (paused) {
            resume();
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        await(process);
    }

    /** SIGSTOP: the JVM stops on the spot, its sockets open, as a long GC pause or a hung host. */
    synchronized void pause() throws IOException {
        signal("STOP");
        paused = true;
    }

    /** SIGCONT. */
    synchronized void resume() throws IOException {
        signal("CONT");
        paused = false;
    }

    private void signal(String signal) throws IOException {
        if (!running()) {
            throw new IllegalStateException(name + " is not running: cannot send SIG" + signal);
        }
        // bash's kill builtin: slim images have no kill binary (procps), and bin/tarn needs bash anyway.
        Process kill = new ProcessBuilder("bash", "-c", "kill -" + signal + " " + process.pid())
                .redirectErrorStream(true).start();
        try {
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IOException("kill -" + signal + " " + process.pid() + " (" + name + ") failed: "
                        + new String(kill.getInputStream().readAllBytes()).strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted sending SIG" + signal + " to " + name, e);
        }
    }

    private void await(Process p) throws IOException {
        try {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                throw new IOException(name + " (pid " + p.pid() + ") did not exit within 20 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for " + name + " to exit", e);
        }
    }

    @Override
    public String toString() {
        return name + "@" + host.address() + ":" + port;
    }
}
