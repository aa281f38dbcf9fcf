package io.tarn.namenode.journal;

/**
 * The namespace journal cannot take records: its disk failed (full, read-only, I/O error) or it was
 * closed. Mutations are refused from then on; lookups go on. The message says why and what to do.
 */
public final class JournalFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JournalFailedException(String message) {
        super(message);
    }
}
