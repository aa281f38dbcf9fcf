package io.tarn.tools.chaos;

import java.util.Locale;

/** What the fault scheduler does to a datanode, and how it undoes it. */
public enum Fault {
    /** kill -9; healed by starting it again on the same memory files. */
    KILL,
    /** SIGSTOP, the JVM frozen with its connections open; healed by SIGCONT. */
    PAUSE,
    /** Its veth's bridge end set down, a network partition; healed by setting it up. */
    ISOLATE,
    /** SIGTERM, a clean stop (memory files kept); healed by starting it again. */
    RESTART,
    /**
     * kill -9 and its memory files deleted; healed by starting it empty. Loses data by design,
     * without replication: proves the verdict sees a loss. Never in the default set.
     */
    WIPE;

    /** Lower-case name, as on the command line. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The fault named {@code label} (case-insensitive). */
    public static Fault parse(String label) {
        try {
            return valueOf(label.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown fault '" + label + "': expected kill, pause, isolate, restart "
                    + "or wipe");
        }
    }
}
