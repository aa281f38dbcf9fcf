package io.tarn.namenode.journal;

import java.io.IOException;

/** A namespace journal that cannot be replayed as it is: the message names the file and what is wrong. */
public final class JournalCorruptException extends IOException {
    private static final long serialVersionUID = 1L;

    public JournalCorruptException(String message) {
        super(message);
    }
}
