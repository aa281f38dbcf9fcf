package io.tarn.namenode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.namenode.PeerProtocol.AdoptRequest;
import io.tarn.namenode.PeerProtocol.AdoptionRequest;
import io.tarn.namenode.PeerProtocol.FreeBlocksRequest;
import io.tarn.namenode.PeerProtocol.MovedBlock;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.namenode.blocks.Block;
import io.tarn.namenode.journal.JournalFailedException;
import io.tarn.namenode.namespace.FileInode;
import io.tarn.namenode.namespace.FileMove;
import io.tarn.namenode.namespace.FileService;
import io.tarn.namenode.namespace.MoveIntent;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.rpc.NotSentException;
import io.tarn.rpc.RpcClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Moves files between namenodes (docs/partitioning.md, "File renames across partitions"): a file
 * renamed to a name another namenode owns is adopted there with its attributes, blocks and (if it
 * is being written) its writer's lease, then unlinked here; its old id answers MOVED for a while,
 * so that its writer and readers follow it. Also gives freed foreign blocks back to the namenode
 * that allocated them.
 *
 * <p>Nothing here blocks: each step runs when the previous answer arrives, on a transport thread.
 * The order makes a rename atomic to point lookups: the source answers RETRY from the moment it is
 * marked moving until it is unlinked, and the new name appears in between, so no client sees the
 * file under both names or under neither. A peer's refusal (the name is taken, the directory is
 * gone) leaves the file where it was.
 *
 * <p>The move survives a crash of either side. The begin is recorded here (MOVE_BEGIN) and on disk
 * before FILE_ADOPT goes out; the receiver records the adoption with the file's id here in its
 * ledger before it answers. When the answer does not come (a timeout, a lost connection, or this
 * namenode restarted in the middle), this namenode asks the receiver how it ended
 * (FILE_ADOPTION): adopted, and the move commits here; not adopted, and the receiver has recorded
 * that it never will be, so the move aborts. Until one of them answers, the file stays moving
 * (RETRY) and the question is asked again every second. Once the commit is on disk here, the
 * receiver is told to forget its ledger entry (FILE_ADOPTION_SETTLED).
 */
final class FileMover implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FileMover.class);
    /** Between two questions to a receiver that did not answer how a move ended. */
    private static final long ASK_AGAIN_MS = 1_000;

    private final Partitioning partitioning;
    private final Namespace namespace;
    private final FileService files;
    private final RpcClient[] peers;
    private final Durability durability;
    private final ScheduledExecutorService later;

    /** {@code peers}: a client per other namenode, by partition (closed by the caller). */
    FileMover(Partitioning partitioning, Namespace namespace, FileService files, RpcClient[] peers,
              Durability durability) {
        this.partitioning = partitioning;
        this.namespace = namespace;
        this.files = files;
        this.peers = peers;
        this.durability = durability;
        this.later = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tarn-file-mover");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Carries out a move that {@link Namespace#rename} started: recorded, adopted at
     * {@link FileMove#to()}, then committed here. Completes when the rename is done, or has failed
     * with the file left as it was (or, when the receiver cannot be asked, with the outcome to be
     * settled once it answers).
     */
    CompletableFuture<Void> move(FileMove move) {
        FileInode f = move.file();
        AdoptRequest request;
        long seq;
        try {
            request = move.adoptRequest(files.movedBlocks(f, partitioning.partition()));
            seq = namespace.recordMoveBegin(move);
        } catch (TarnException e) {
            namespace.abortMove(move);
            return CompletableFuture.failedFuture(e);
        } catch (JournalFailedException e) {
            namespace.abortMove(move);
            return CompletableFuture.failedFuture(new TarnException(e.code(), "cannot rename '"
                    + move.srcPath() + "': " + e.getMessage()));
        }
        CompletableFuture<Void> recorded = durability.after(seq);
        return recorded.handle((v, e) -> {
            if (e != null) {
                namespace.abortMove(move);
                return CompletableFuture.<Void>failedFuture(unwrap(e));
            }
            return adopt(move, request);
        }).thenCompose(x -> x);
    }

    private CompletableFuture<Void> adopt(FileMove move, AdoptRequest request) {
        int to = move.to();
        CompletableFuture<FileStatus> adopted;
        try {
            adopted = peers[to].call(Opcode.FILE_ADOPT, request::encode, NamenodeProtocol::decodeStatus);
        } catch (RuntimeException e) {
            adopted = CompletableFuture.failedFuture(e);
        }
        return adopted.handle((status, e) -> {
            if (e == null) {
                commit(move, status.fileId());
                return CompletableFuture.<Void>completedFuture(null);
            }
            Throwable cause = unwrap(e);
            if (cause instanceof TarnError t && t.code() != ErrorCode.CONNECTION_LOST
                    && t.code() != ErrorCode.TIMEOUT) {
                // Refused: nothing changed there.
                namespace.abortMove(move);
                return CompletableFuture.<Void>failedFuture(new TarnException(t.code(), "cannot rename '"
                        + move.srcPath() + "' to '" + move.targetPath() + "': " + cause.getMessage()));
            }
            if (cause instanceof NotSentException) {
                // It never left this process: the receiver cannot have adopted the file.
                namespace.abortMove(move);
                return CompletableFuture.<Void>failedFuture(new TarnException(ErrorCode.CONNECTION_LOST,
                        "cannot rename '" + move.srcPath() + "' to '" + move.targetPath() + "': its new name belongs "
                        + "to " + partitioning.describe(to) + ", which is unreachable (" + cause.getMessage()
                        + "); the file stays where it was"));
            }
            return askOutcome(move, cause);
        }).thenCompose(x -> x);
    }

    /** The adoption's answer was lost: ask the receiver how it ended, once now, then in the background. */
    private CompletableFuture<Void> askOutcome(FileMove move, Throwable lost) {
        return ask(move.to(), move.ticket()).handle((newId, e) -> {
            if (e == null) {
                if (end(move, newId)) {
                    return CompletableFuture.<Void>completedFuture(null);
                }
                ErrorCode code = lost instanceof TarnError t ? t.code() : ErrorCode.CONNECTION_LOST;
                return CompletableFuture.<Void>failedFuture(new TarnException(code, "cannot rename '"
                        + move.srcPath() + "' to '" + move.targetPath() + "': " + partitioning.describe(move.to())
                        + " did not answer (" + lost.getMessage() + "); the file stays where it was"));
            }
            askLater(move);
            ErrorCode code = lost instanceof TarnError t ? t.code() : ErrorCode.CONNECTION_LOST;
            return CompletableFuture.<Void>failedFuture(new TarnException(code, "renaming '" + move.srcPath()
                    + "' to '" + move.targetPath() + "': " + partitioning.describe(move.to()) + " did not answer ("
                    + lost.getMessage() + "), so whether the file moved is not known yet; it stays unavailable "
                    + "(RETRY) at '" + move.srcPath() + "' until that namenode answers, then it is at one of the "
                    + "two names"));
        }).thenCompose(x -> x);
    }

    /** Ends the move as the receiver said: committed ({@code newId}) or aborted; true when it moved. */
    private boolean end(FileMove move, long newId) {
        if (newId == AdoptionRequest.NOT_ADOPTED) {
            namespace.abortMove(move);
            return false;
        }
        commit(move, newId);
        return true;
    }

    private void commit(FileMove move, long newId) {
        files.forward(move.file().id(), newId, move.targetPath()); // before the old id disappears
        long seq = namespace.commitMove(move, newId);
        durability.after(seq).thenRun(() -> settle(move.to(), move.ticket()));
    }

    /** FILE_ADOPTION: the id the file of move {@code ticket} was adopted under at {@code to}, or NOT_ADOPTED. */
    private CompletableFuture<Long> ask(int to, long ticket) {
        try {
            return peers[to].call(Opcode.FILE_ADOPTION, new AdoptionRequest(ticket)::encode, Wire::readLong);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Asks again in a second, and so on until the receiver answers. */
    private void askLater(FileMove move) {
        try {
            later.schedule(() -> ask(move.to(), move.ticket()).whenComplete((newId, e) -> {
                if (e != null) {
                    LOG.debug("{} did not say yet whether it adopted '{}': {}", partitioning.describe(move.to()),
                            move.srcPath(), unwrap(e).getMessage());
                    askLater(move);
                    return;
                }
                boolean moved = end(move, newId);
                LOG.info("Rename of '{}' to '{}' settled after {} answered: {}", move.srcPath(), move.targetPath(),
                        partitioning.describe(move.to()), moved ? "the file moved" : "the file stayed");
            }), ASK_AGAIN_MS, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            LOG.debug("Not asking about '{}' again: the namenode is closing", move.srcPath());
        }
    }

    /**
     * After a restart: ends every move this namenode had begun and not ended, as each receiver
     * says (asking until it answers). Their files answer RETRY meanwhile.
     */
    void resume(List<MoveIntent> intents) {
        for (MoveIntent intent : intents) {
            if (intent.swept()) {
                resumeSwept(intent);
                continue;
            }
            FileMove move = namespace.resumeMove(intent);
            if (move == null) {
                LOG.warn("Move of file {} under way at the last stop has no file here any more", intent.fileId());
                continue;
            }
            LOG.info("Settling the rename of '{}' to '{}' that was under way when this namenode stopped",
                    move.srcPath(), move.targetPath());
            ask(move.to(), move.ticket()).whenComplete((newId, e) -> {
                if (e != null) {
                    askLater(move);
                } else {
                    end(move, newId);
                }
            });
        }
    }

    /** A resumed move whose file a recursive delete took here meanwhile. */
    private void resumeSwept(MoveIntent intent) {
        ask(intent.to(), intent.ticket()).whenComplete((newId, e) -> {
            if (e != null) {
                try {
                    later.schedule(() -> resumeSwept(intent), ASK_AGAIN_MS, TimeUnit.MILLISECONDS);
                } catch (RejectedExecutionException closing) {
                    LOG.debug("Not asking about file {} again: the namenode is closing", intent.fileId());
                }
                return;
            }
            boolean adopted = newId != AdoptionRequest.NOT_ADOPTED;
            namespace.endSweptMove(intent, newId, adopted);
            if (adopted) {
                settle(intent.to(), intent.ticket());
            }
        });
    }

    /** Tells the receiver the move's commit is on disk here, so it forgets its ledger entry (best effort). */
    private void settle(int to, long ticket) {
        try {
            peers[to].call(Opcode.FILE_ADOPTION_SETTLED, new AdoptionRequest(ticket)::encode, body -> null)
                    .whenComplete((v, e) -> {
                        if (e != null) {
                            LOG.debug("{} not told that the move of {} is settled: {}", partitioning.describe(to),
                                    Long.toHexString(ticket), unwrap(e).getMessage());
                        }
                    });
        } catch (RuntimeException e) {
            LOG.debug("{} not told that the move of {} is settled: {}", partitioning.describe(to),
                    Long.toHexString(ticket), e.toString());
        }
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    @Override
    public void close() {
        later.shutdownNow();
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
