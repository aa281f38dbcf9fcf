package io.tarn.namenode;

import java.util.concurrent.CompletableFuture;

/**
 * When a journal record is on disk: what the directory coordinator and the file mover wait for
 * before they tell another namenode about a change.
 */
@FunctionalInterface
interface Durability {
    /** No journal: nothing to wait for. */
    Durability NONE = seq -> CompletableFuture.completedFuture(null);

    /**
     * Completes once record {@code seq} (0: none) is on disk, or exceptionally with a
     * {@link io.tarn.common.error.TarnException} (NAMESPACE_READ_ONLY) when the journal failed.
     */
    CompletableFuture<Void> after(long seq);
}
