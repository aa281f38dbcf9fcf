package io.tarn.tools.chaos.check;

/** The answer of a linearizability check. */
public enum Verdict {
    /** A linearization exists for every key. */
    LINEARIZABLE,
    /** Some key has none: the history proves a violation. */
    NOT_LINEARIZABLE,
    /** The search of some key exceeded its state budget before finding either. */
    INCONCLUSIVE
}
