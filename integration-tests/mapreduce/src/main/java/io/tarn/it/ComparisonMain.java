package io.tarn.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * What the side-by-side runners' {@code main} methods share: option values, the machine line, the
 * work directory, the exit.
 */
public final class ComparisonMain {
    private ComparisonMain() {
    }

    /** The machine and JVM a measurement comes from, printed with every table. */
    public static String machine(String options) {
        Runtime rt = Runtime.getRuntime();
        return String.format("Measured %s on %d cores, max heap %d MiB, Java %s (%s), %s %s%s; options: %s",
                LocalDate.now(), rt.availableProcessors(), rt.maxMemory() >> 20,
                System.getProperty("java.version"), System.getProperty("java.vm.name"),
                System.getProperty("os.name"), System.getProperty("os.version"),
                haltPolling(Path.of(HALT_POLL_NS)), options);
    }

    /** Where a Linux guest with the haltpoll cpuidle driver keeps how long an idle vCPU polls before halting. */
    static final String HALT_POLL_NS = "/sys/module/haltpoll/parameters/guest_halt_poll_ns";

    /**
     * ", guest halt polling off" or ", guest halt polling N µs" from {@code file} (see
     * {@link #HALT_POLL_NS}); empty when there is no such file (not a guest with that driver) or it
     * cannot be read. With polling off, waking a thread on an idle vCPU goes through the host: one
     * message in flight then costs tens of microseconds per round trip (docs/performance-history.md).
     */
    static String haltPolling(Path file) {
        try {
            long ns = Long.parseLong(Files.readString(file).trim());
            return ns == 0 ? ", guest halt polling off (slow wake-ups of idle vCPUs: see docs/performance.md)"
                    : ", guest halt polling " + (ns / 1000) + " µs";
        } catch (IOException | NumberFormatException | SecurityException e) {
            return "";
        }
    }

    /** The value following {@code option} on the command line; IllegalArgumentException when it is missing. */
    public static String required(String option, String value) {
        if (value == null) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return value;
    }

    /**
     * Runs {@code comparison} and prints the lines it returns on standard output, removes the work
     * directory when it was a temporary one, and exits: Hadoop's and Netty's non-daemon threads would
     * keep the JVM alive.
     */
    public static void printThenExit(Path workDir, boolean temporary, Callable<List<String>> comparison)
            throws Exception {
        try {
            for (String line : comparison.call()) {
                System.out.println(line);
            }
        } finally {
            if (temporary) {
                deleteTree(workDir);
            }
        }
        System.exit(0);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
