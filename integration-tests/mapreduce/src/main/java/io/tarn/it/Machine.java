package io.tarn.it;

import java.time.LocalDate;

/** The machine and JVM a measurement comes from, printed with every comparison table. */
public final class Machine {
    private Machine() {
    }

    /** "Measured DATE on N cores, max heap M MiB, Java V (VM), OS VERSION; options: OPTIONS". */
    public static String describe(String options) {
        Runtime rt = Runtime.getRuntime();
        return String.format("Measured %s on %d cores, max heap %d MiB, Java %s (%s), %s %s; options: %s",
                LocalDate.now(), rt.availableProcessors(), rt.maxMemory() >> 20,
                System.getProperty("java.version"), System.getProperty("java.vm.name"),
                System.getProperty("os.name"), System.getProperty("os.version"), options);
    }
}
