package io.tarn.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        return String.format("Measured %s on %d cores, max heap %d MiB, Java %s (%s), %s %s; options: %s",
                java.time.LocalDate.now(), rt.availableProcessors(), rt.maxMemory() >> 20,
                System.getProperty("java.version"), System.getProperty("java.vm.name"),
                System.getProperty("os.name"), System.getProperty("os.version"), options);
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
