package io.tarn.hadoop;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * A Hadoop {@link FileStatus} that remembers the Tarn file id it was made from, so that
 * {@link TarnFileSystem#getFileBlockLocations} asks the namenode for blocks without looking the path
 * up again. Equality stays Hadoop's (by path), so these mix freely with plain statuses.
 *
 * <p>Replication is the file's (1 or 3); a directory reports its default for new files, 0 when it
 * sets none (HDFS reports 0 for directories). The length of a file still being written is what its
 * writer last made durable (hflush, hsync or a block boundary), as the namenode knows it.
 */
public final class TarnFileStatus extends FileStatus {
    private static final long serialVersionUID = 1L;

    private final long fileId;

    TarnFileStatus(io.tarn.common.fs.FileStatus status, Path path) { // qualified: Hadoop's FileStatus is imported
        super(status.isDirectory() ? 0 : status.size(), status.isDirectory(), status.replication(),
                status.isDirectory() ? 0 : status.blockSize(), status.modificationTime(), status.accessTime(),
                Modes.toHadoop(status.permission()), status.owner(), status.group(), path);
        this.fileId = status.fileId();
    }

    /** The namenode's id of this file or directory. */
    public long fileId() {
        return fileId;
    }
}
