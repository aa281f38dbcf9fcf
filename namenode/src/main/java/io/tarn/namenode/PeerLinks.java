package io.tarn.namenode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.namenode.PeerProtocol.DirectorySnapshot;
import io.tarn.namenode.PeerProtocol.UnreachableRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.namenode.blocks.BlockAllocator;
import io.tarn.namenode.namespace.FileMove;
import io.tarn.namenode.namespace.FileService;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * This namenode's links to the other namenodes of a cluster of several: a client per peer, the
 * directory coordinator (partition 0 only) and the mover of files renamed to a name another
 * namenode owns (which also gives freed foreign blocks back to their home).
 *
 * <p>Lifecycle only, no dispatch: {@link Namenode} starts the links once the server is bound
 * ({@link #start}), has a starting namenode copy the tree over them ({@link #copyDirectoryTree})
 * and stops them on close ({@link #stop}). {@link ClientHandler} reads {@link #coordinator()} and
 * {@link #move} to carry out directory changes and file moves. With one namenode, or before
 * {@link #start}, there are no links: no coordinator, and a move fails with NOT_SUPPORTED.
 */
final class PeerLinks {
    private static final Logger LOG = LoggerFactory.getLogger(PeerLinks.class);

    private final Partitioning partitioning;
    private final Namespace namespace;
    private final FileService files;
    private final BlockAllocator allocator;
    private final Clock clock;
    /** A client per other namenode (null at this one's index), set by {@link #start}. */
    private volatile RpcClient[] peers;
    private volatile DirectoryCoordinator coordinator;
    private volatile FileMover mover;
    private volatile boolean stopped;

    PeerLinks(Partitioning partitioning, Namespace namespace, FileService files, BlockAllocator allocator,
              Clock clock) {
        this.partitioning = partitioning;
        this.namespace = namespace;
        this.files = files;
        this.allocator = allocator;
        this.clock = clock;
    }

    /**
     * With several namenodes, connects to the others over {@code transport} (one client per peer,
     * shared by everything below) and starts partition 0's directory coordinator, and on every
     * namenode the file mover.
     */
    synchronized void start(Transport transport, long timeoutMs, Durability durability) {
        if (stopped) {
            return; // a group member that stopped leading before its links came up
        }
        if (partitioning.count() > 1) {
            peers = partitioning.connectOthers(transport, timeoutMs);
            mover = new FileMover(partitioning, namespace, files, peers, durability);
            allocator.returnForeignBlocksTo(mover::returnHome);
            mover.resume(namespace.openMoves());
            if (partitioning.isCoordinator()) {
                coordinator = new DirectoryCoordinator(partitioning, namespace, clock, peers, timeoutMs, durability);
            }
        }
    }

    /** Stops the coordinator and closes the clients to the other namenodes. */
    synchronized void stop() {
        stopped = true;
        if (coordinator != null) {
            coordinator.close();
        }
        if (mover != null) {
            mover.close();
        }
        RpcClient[] clients = peers;
        if (clients != null) {
            for (RpcClient peer : clients) {
                if (peer != null) {
                    peer.close();
                }
            }
        }
    }

    /** Partition 0's directory coordinator once started; null on any other namenode, or with one. */
    DirectoryCoordinator coordinator() {
        return coordinator;
    }

    /** Carries out a file rename that moves the file to another namenode (see {@link FileMover#move}). */
    CompletableFuture<Void> move(FileMove move) {
        FileMover m = mover;
        if (m == null) {
            namespace.abortMove(move);
            return CompletableFuture.failedFuture(new TarnException(ErrorCode.NOT_SUPPORTED, "cannot rename '"
                    + move.srcPath() + "' to '" + move.targetPath() + "': this namenode was started without a "
                    + "transport to the other namenodes"));
        }
        return m.move(move);
    }

    /**
     * Tells the other namenodes that a client could not reach datanode {@code host}:{@code port}
     * (DATANODE_UNREACHABLE), so they stop allocating there too. Sent once per new report, without
     * waiting: a namenode that misses it learns the same from its own clients or the timeout.
     */
    void reportUnreachable(String host, int port) {
        RpcClient[] clients = peers;
        if (clients == null) {
            return;
        }
        UnreachableRequest r = new UnreachableRequest(host, port);
        for (int p = 0; p < clients.length; p++) {
            if (clients[p] != null) {
                int to = p;
                clients[p].call(Opcode.DATANODE_UNREACHABLE, r::encode, body -> null).whenComplete((v, e) -> {
                    if (e != null) {
                        LOG.debug("{} not told that {}:{} is unreachable: {}", partitioning.describe(to), host, port,
                                e.toString());
                    }
                });
            }
        }
    }

    /**
     * Copies the directory tree from a running namenode (the coordinator first) into this starting
     * one, so that it knows every directory before it serves; with none running (the whole cluster
     * is starting) the tree stays empty, as everyone's is. Without a journal, files this namenode
     * owned before a restart are gone.
     */
    void copyDirectoryTree(long timeoutMs) {
        RpcClient[] clients = peers;
        boolean copied = false;
        for (int p = 0; clients != null && p < clients.length && !copied; p++) {
            if (clients[p] == null) {
                continue; // this namenode
            }
            try {
                DirectorySnapshot snapshot = clients[p].call(Opcode.DIR_SNAPSHOT, b -> { },
                        DirectorySnapshot::decode).get(timeoutMs, TimeUnit.MILLISECONDS);
                namespace.reconcile(snapshot);
                LOG.info("Copied {} directories from {}", snapshot.directories().size(), partitioning.describe(p));
                copied = true;
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                LOG.debug("No directory tree from {}: {}", partitioning.describe(p), cause.toString());
            } catch (TarnException e) {
                LOG.error("Could not install the directory tree of {}: {}", partitioning.describe(p),
                        e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (!copied) {
            LOG.info("No other namenode serves a directory tree yet: starting with an empty one");
        }
    }

    /**
     * A journaled namenode other than the coordinator, after its own journal was replayed: takes
     * the coordinator's directory tree ({@link Namespace#reconcile}), which holds every directory
     * change any namenode may hold, waiting up to {@code waitMs} for the coordinator to serve it
     * (it answers RETRY while it starts itself). Directory changes this namenode missed while it
     * was down are applied, and directories the coordinator no longer has are deleted here with
     * the files below them (a recursive delete it missed).
     *
     * @throws IOException when the coordinator did not hand its tree in time, or it cannot be taken
     */
    void takeCoordinatorTree(long timeoutMs, long waitMs) throws IOException {
        RpcClient[] clients = peers;
        if (stopped || clients == null) {
            throw new IOException("the links to the other namenodes are stopped");
        }
        RpcClient coordinatorClient = clients[0];
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMs);
        String last = "no answer";
        for (int attempt = 1; System.nanoTime() < deadline; attempt++) {
            if (stopped) {
                throw new IOException("stopped while waiting for the directory tree of " + partitioning.describe(0));
            }
            try {
                DirectorySnapshot snapshot = coordinatorClient.call(Opcode.DIR_SNAPSHOT, b -> { },
                        DirectorySnapshot::decode).get(timeoutMs, TimeUnit.MILLISECONDS);
                Namespace.Reconciled r = namespace.reconcile(snapshot);
                LOG.info("Took the directory tree of {} ({} directories): {}", partitioning.describe(0),
                        snapshot.directories().size(), r);
                return;
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                last = cause.getMessage() == null ? cause.toString() : cause.getMessage();
                if (attempt % 25 == 1) {
                    LOG.info("Waiting for {} to hand its directory tree: {}", partitioning.describe(0), last);
                }
            } catch (TarnException e) {
                throw new IOException("cannot take the directory tree of " + partitioning.describe(0) + ": "
                        + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the directory tree of "
                        + partitioning.describe(0), e);
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the directory tree of "
                        + partitioning.describe(0), e);
            }
        }
        throw new IOException(partitioning.describe(0) + " did not hand its directory tree within " + waitMs
                + " ms (" + last + "); a namenode with a journal takes its directories from namenode 0, so start "
                + "namenode 0 too");
    }
}
