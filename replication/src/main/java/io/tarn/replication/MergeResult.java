package io.tarn.replication;

import java.util.List;

/**
 * The outcome of a new leader's merge stage: its log above {@code base} becomes {@code entries}
 * ({@code base+1..syncEnd}, every index present, all stamped with the new term).
 *
 * @param base    the candidate's final prefix, kept as it is
 * @param syncEnd last index of the merged log
 * @param entries the merged entries
 */
record MergeResult(long base, long syncEnd, List<LogEntry> entries) {
}
