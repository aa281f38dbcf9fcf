package io.tarn.tools.chaos.check;

/**
 * A sequential specification of one key's object: the states it can be in and the effect of each
 * operation. States must implement equals and hashCode by value: the checker memoises them.
 *
 * @param <S> the state type
 */
public interface Model<S> {
    /** The state before any operation. */
    S initial();

    /**
     * The state after {@code op} runs in {@code state}, or null when {@code op} cannot run there
     * (a read that returns something else than the state holds).
     */
    S step(S state, Operation op);
}
