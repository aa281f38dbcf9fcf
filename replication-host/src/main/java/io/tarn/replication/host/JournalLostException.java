package io.tarn.replication.host;

import java.io.IOException;

/**
 * A journal whose files were read but whose durable state cannot be rebuilt from them (the latest
 * checkpoint's image is damaged or gone): the replica must start again as a wiped one, which does
 * not vote until its group has brought it up to date.
 */
public final class JournalLostException extends IOException {
    private static final long serialVersionUID = 1L;

    JournalLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
