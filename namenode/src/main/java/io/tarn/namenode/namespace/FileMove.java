package io.tarn.namenode.namespace;

import io.tarn.common.fs.TarnPath;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.PeerProtocol.MovedBlock;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A rename of a closed file to a name another namenode owns, between its start here and its end:
 * the file is marked moving ({@link FileInode#moving()}) until {@link Namespace#commitMove} or
 * {@link Namespace#abortMove}. The namenode owning the new name adopts the file in between
 * (FILE_ADOPT, docs/partitioning.md).
 */
public final class FileMove {
    private final FileInode file;
    private final DirectoryInode srcParent;
    private final String srcName;
    private final String srcPath;
    private final String targetParent;
    private final String targetName;
    private final int to;
    private final long ticket;

    FileMove(FileInode file, DirectoryInode srcParent, String srcName, String srcPath, String targetParent,
             String targetName, int to, long ticket) {
        this.ticket = ticket;
        this.file = file;
        this.srcParent = srcParent;
        this.srcName = srcName;
        this.srcPath = srcPath;
        this.targetParent = targetParent;
        this.targetName = targetName;
        this.to = to;
    }

    public FileInode file() {
        return file;
    }

    DirectoryInode srcParent() {
        return srcParent;
    }

    String srcName() {
        return srcName;
    }

    public String srcPath() {
        return srcPath;
    }

    /** The directory the file moves into (normalized path). */
    public String targetParent() {
        return targetParent;
    }

    public String targetName() {
        return targetName;
    }

    public String targetPath() {
        return TarnPath.child(targetParent, targetName);
    }

    /** A random number naming this attempt to move the file (the receiver's ledger key). */
    public long ticket() {
        return ticket;
    }

    /** A fresh ticket for a new attempt. */
    static long newTicket() {
        return ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE);
    }

    /** The partition owning the new name. */
    public int to() {
        return to;
    }

    /** The FILE_ADOPT that hands the file, with {@code blocks} (as they travel), to {@link #to()}. */
    public AdoptRequest adoptRequest(List<MovedBlock> blocks) {
        return new AdoptRequest(targetParent, targetName, file.id(), file.writer(), file.size(), file.blockSize(),
                file.storageClass(), file.replication(), file.creationTime(), file.modificationTime(),
                file.accessTime(), file.ownership(), blocks, ticket);
    }
}
