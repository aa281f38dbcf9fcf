package io.tarn.client;

/**
 * The id of a file a stream has open. With several namenodes a rename can move the file to another
 * namenode, where it has a new id; the client then follows it ({@link NamespaceRouter#following})
 * and updates this.
 */
final class FileRef {
    private volatile long id;

    FileRef(long id) {
        this.id = id;
    }

    long id() {
        return id;
    }

    /** The file that had {@code oldId} now has {@code newId} (nothing happens if it moved on already). */
    synchronized void movedTo(long oldId, long newId) {
        if (id == oldId) {
            id = newId;
        }
    }
}
