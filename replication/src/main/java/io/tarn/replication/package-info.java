/**
 * ParallelRaft (the corrected ParallelRaft-CE variant) for one block group, as a pure protocol
 * core.
 *
 * <p>Public API: {@link io.tarn.replication.Replica} (the single-threaded state machine),
 * {@link io.tarn.replication.ReplicationConfig}, the wire-ready value types
 * ({@link io.tarn.replication.Message}, {@link io.tarn.replication.LogEntry},
 * {@link io.tarn.replication.BlockRange}, ...) and the I/O boundary
 * ({@link io.tarn.replication.Effect}, {@link io.tarn.replication.DiskOp},
 * {@link io.tarn.replication.PersistentState}). Roles, the log, the merge stage, the read tracker
 * and the session table are package-private. See {@code docs/replication.md}.
 */
package io.tarn.replication;
