package io.tarn.namenode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.PeerProtocol.AdoptUndoRequest;
import io.tarn.namenode.PeerProtocol.FreeBlocksRequest;
import io.tarn.namenode.PeerProtocol.MovedBlock;
import io.tarn.common.protocol.Opcode;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.namespace.FileInode;
import io.tarn.namenode.namespace.FileMove;
import io.tarn.namenode.namespace.FileService;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.rpc.RpcClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Moves files between namenodes (docs/partitioning.md, "File renames across partitions"): a file
 * renamed to a name another namenode owns is adopted there with its attributes, blocks and (if it
 * is being written) its writer's lease, then unlinked here; its old id answers MOVED for a while,
 * so that its writer and readers follow it. Also gives freed foreign blocks back to the namenode that allocated them.
 *
 * <p>Nothing here blocks: each step runs when the previous answer arrives, on a transport thread.
 * The order makes a rename atomic to point lookups: the source answers RETRY from the moment it is
 * marked moving until it is unlinked, and the new name appears in between, so no client sees the
 * file under both names or under neither. A peer's refusal (the name is taken, the directory is
 * gone) leaves the file where it was. When the peer does not answer, the adoption is taken back
 * (FILE_ADOPT_UNDO) before the file is released here, so a lost answer does not leave the file
 * under two names either, unless the peer stays unreachable for the undo too (then logged).
 */
final class FileMover {
    private static final Logger LOG = LoggerFactory.getLogger(FileMover.class);

    private final Partitioning partitioning;
    private final Namespace namespace;
    private final FileService files;
    private final RpcClient[] peers;

    /** {@code peers}: a client per other namenode, by partition (closed by the caller). */
    FileMover(Partitioning partitioning, Namespace namespace, FileService files, RpcClient[] peers) {
        this.partitioning = partitioning;
        this.namespace = namespace;
        this.files = files;
        this.peers = peers;
    }

    /**
     * Carries out a move that {@link Namespace#rename} started: adopted at {@link FileMove#to()}, then
     * committed here. Completes when the rename is done or has failed with the file left as it was.
     */
    CompletableFuture<Void> move(FileMove move) {
        FileInode f = move.file();
        AdoptRequest request;
        try {
            request = move.adoptRequest(files.movedBlocks(f, partitioning.partition()));
        } catch (TarnException e) {
            namespace.abortMove(move);
            return CompletableFuture.failedFuture(e);
        }
        int to = move.to();
        CompletableFuture<FileStatus> adopted;
        try {
            adopted = peers[to].call(Opcode.FILE_ADOPT, request::encode, NamenodeProtocol::decodeStatus);
        } catch (RuntimeException e) {
            adopted = CompletableFuture.failedFuture(e);
        }
        return adopted.handle((status, e) -> {
            if (e == null) {
                files.forward(f.id(), status.fileId(), move.targetPath()); // before the old id disappears
                namespace.commitMove(move);
                return CompletableFuture.<Void>completedFuture(null);
            }
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof TarnError t && t.code() != ErrorCode.CONNECTION_LOST
                    && t.code() != ErrorCode.TIMEOUT) {
                // Refused: nothing changed there.
                namespace.abortMove(move);
                return CompletableFuture.<Void>failedFuture(new TarnException(t.code(), "cannot rename '"
                        + move.srcPath() + "' to '" + move.targetPath() + "': " + cause.getMessage()));
            }
            return undo(move, request, cause);
        }).thenCompose(x -> x);
    }

    /** The peer did not answer the adoption: take it back there, then keep the file here. */
    private CompletableFuture<Void> undo(FileMove move, AdoptRequest request, Throwable cause) {
        AdoptUndoRequest undo = new AdoptUndoRequest(request.parent(), request.name(), request.fromId());
        CompletableFuture<Object> undone;
        try {
            undone = peers[move.to()].call(Opcode.FILE_ADOPT_UNDO, undo::encode, body -> null);
        } catch (RuntimeException e) {
            undone = CompletableFuture.failedFuture(e);
        }
        return undone.handle((v, e) -> {
            if (e != null) {
                LOG.error("Renaming '{}' to '{}': {} did not answer the adoption ({}) nor its undo ({}); the file "
                                + "stays at '{}' and may also be listed as '{}' until one of them is deleted",
                        move.srcPath(), move.targetPath(), partitioning.describe(move.to()), cause.getMessage(),
                        e.getMessage(), move.srcPath(), move.targetPath());
            }
            namespace.abortMove(move);
            ErrorCode code = cause instanceof TarnError t ? t.code() : ErrorCode.CONNECTION_LOST;
            throw new CompletionException(new TarnException(code, "cannot rename '" + move.srcPath() + "' to '"
                    + move.targetPath() + "': its new name belongs to " + partitioning.describe(move.to())
                    + ", which is unreachable (" + cause.getMessage() + "); the file stays where it was"));
        });
    }

    /** Gives freed foreign blocks back to their home namenode; a failure only leaks them there (logged). */
    void returnHome(int home, List<Block> blocks) {
        if (home == partitioning.partition() || home >= peers.length) {
            LOG.error("{} foreign block(s) claim home namenode {}; this is namenode {} of {}", blocks.size(), home,
                    partitioning.partition(), peers.length);
            return;
        }
        List<MovedBlock> moved = new ArrayList<>(blocks.size());
        for (Block b : blocks) {
            moved.add(FileService.returned(b));
        }
        FreeBlocksRequest request = new FreeBlocksRequest(moved);
        try {
            peers[home].call(Opcode.FREE_BLOCKS, request::encode, body -> null).whenComplete((v, e) -> {
                if (e != null) {
                    LOG.warn("Could not give {} freed block(s) back to {}: {}; they stay allocated there until it "
                            + "restarts", blocks.size(), partitioning.describe(home), e.getMessage());
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("Could not give {} freed block(s) back to {}: {}", blocks.size(), partitioning.describe(home),
                    e.toString());
        }
    }
}
