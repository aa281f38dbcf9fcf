package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.namenode.PeerProtocol.DirMkdirRequest;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetReplicationRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.Wire;
import io.tarn.namenode.journal.JournalFailedException;
import io.tarn.namenode.namespace.DirectoryInode;
import io.tarn.namenode.namespace.FileInode;
import io.tarn.namenode.namespace.Inode;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.rpc.RpcClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Partition 0's sequencer of directory changes (docs/partitioning.md): runs them one at a time on
 * its own thread, applies each on every namenode, and answers only when all have it, so a file
 * created right after a mkdirs finds its parent on whichever namenode owns the file.
 *
 * <p>For each directory it creates, the coordinator first asks the partition that owns the name
 * (the only one that can hold a file of that name, so the arbiter of the name) to link it, then
 * every other namenode. Directory ids and resolved ownership are the coordinator's, so every tree
 * is identical. A recursive delete marks the directory deleted and sweeps it on every namenode
 * (each its own files); creates racing it either land before and are swept, or find the parent
 * gone. A directory rename is decided here (HDFS's rules), applied first at the partition owning
 * the new name (which refuses it when a file holds that name), then everywhere; files below it do
 * not move. Attribute changes of a directory, and its replication default, are applied
 * everywhere. An rmdir seals the directory everywhere (inserts answer RETRY meanwhile), and
 * deletes it only when every namenode found it empty; otherwise it unseals it.
 *
 * <p>A namenode that does not answer fails the operation with an error naming it; the namenodes
 * that applied it keep it, and a namenode that was down takes the coordinator's tree when it starts
 * again ({@link Namespace#reconcile}).
 *
 * <p>With a journal, each change that goes to other namenodes is recorded here first and forced to
 * disk before anything is sent ({@link Namespace#beginDirectoryChange}), and its end after
 * ({@link Namespace#endDirectoryChange}). So no namenode ever holds a change the coordinator's
 * journal lacks, and a coordinator that restarts carries the one change it had under way through to
 * every namenode before it takes another ({@link #recover}): every step is idempotent, and a name's
 * arbiter, asked first again, either applies it or refuses it as it did before.
 */
public final class DirectoryCoordinator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryCoordinator.class);

    private final Partitioning partitioning;
    private final Namespace namespace;
    private final Clock clock;
    private final long timeoutMs;
    private final RpcClient[] peers;
    private final Durability durability;
    private final ExecutorService thread;

    // The kinds of change a DIR_INTENT record holds (first byte), each followed by its request.
    static final byte MKDIR = 1;
    static final byte RENAME = 2;
    static final byte DELETE_TREE = 3;
    static final byte RMDIR = 4;
    static final byte SET_ATTR = 5;
    static final byte SET_REPLICATION = 6;

    /** {@code peers}: a client per other namenode, by partition (closed by the caller). */
    DirectoryCoordinator(Partitioning partitioning, Namespace namespace, Clock clock, RpcClient[] peers,
                         long timeoutMs, Durability durability) {
        this.durability = durability;
        this.partitioning = partitioning;
        this.namespace = namespace;
        this.clock = clock;
        this.timeoutMs = timeoutMs;
        this.peers = peers;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "tarn-directory-coordinator");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Creates the directory at {@code path} on every namenode: with its missing parents when
     * {@code parents}, else only when its parent exists. An existing directory is answered as it is.
     */
    public CompletableFuture<FileStatus> mkdirs(String path, Ownership requested, boolean parents) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return mkdirsNow(path, requested, parents);
            } catch (TarnException e) {
                throw new CompletionException(e);
            }
        }, thread);
    }

    private FileStatus mkdirsNow(String path, Ownership requested, boolean parents) throws TarnException {
        List<String> comps = TarnPath.components(path);
        String parent = "/";
        for (int i = 0; i < comps.size(); i++) {
            String name = comps.get(i);
            String here = TarnPath.child(parent, name);
            Inode existing = namespace.find(here);
            boolean last = i == comps.size() - 1;
            if (existing instanceof FileInode) {
                throw fileInTheWay(TarnPath.normalize(path), here, last, parents);
            }
            if (existing == null) {
                if (!last && !parents) {
                    // A file of another namenode may hold the name: then it is in the way, as with one namenode.
                    if (isFileElsewhere(here, name)) {
                        throw fileInTheWay(TarnPath.normalize(path), here, false, false);
                    }
                    throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot create directory '"
                            + TarnPath.normalize(path) + "': parent directory '" + here + "' does not exist");
                }
                DirectoryInode parentDir = namespace.directory(parent);
                Ownership own = Namespace.directoryOwnership(requested, parentDir, last);
                DirMkdirRequest r = new DirMkdirRequest(parent, name, namespace.newDirectoryId(), own, clock.millis());
                begin(MKDIR, r::encode);
                try {
                    create(r);
                } finally {
                    end();
                }
            }
            parent = here;
        }
        return namespace.getFile(path);
    }

    /**
     * A file where a directory of the path should be: FILE_EXISTS for the directory itself or, with
     * parents (mkdirs), for one on the way; NOT_A_DIRECTORY for a parent of a single mkdir, as with one
     * namenode.
     */
    private static TarnException fileInTheWay(String path, String here, boolean last, boolean parents) {
        if (last || parents) {
            return new TarnException(ErrorCode.FILE_EXISTS, "cannot create directory '" + path + "': '" + here
                    + "' exists and is a file");
        }
        return new TarnException(ErrorCode.NOT_A_DIRECTORY, "cannot create directory '" + path + "': '" + here
                + "' is a file, not a directory");
    }

    /** True when the namenode owning {@code name} holds a file at {@code path} (only ever asked on an error path). */
    private boolean isFileElsewhere(String path, String name) throws TarnException {
        int owner = partitioning.ownerOf(name);
        if (owner == partitioning.partition()) {
            return false;
        }
        CompletableFuture<FileStatus> call = peers[owner].call(Opcode.GET_FILE, b -> Wire.writeString(b, path),
                NamenodeProtocol::decodeStatus);
        try {
            return call.get(timeoutMs, TimeUnit.MILLISECONDS).isFile();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TarnError t && t.code() == ErrorCode.FILE_NOT_FOUND) {
                return false;
            }
            await(owner, call); // its error, naming the namenode
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TarnException(ErrorCode.INTERNAL, "interrupted while asking " + partitioning.describe(owner));
        } catch (TimeoutException e) {
            throw new TarnException(ErrorCode.TIMEOUT, partitioning.describe(owner) + " did not answer within "
                    + timeoutMs + " ms");
        }
    }

    /**
     * Deletes the directory at {@code path} on every namenode: with everything below it when
     * {@code recursive} ("/" is emptied), else only when it is empty everywhere, checked under a seal
     * so that no create slips in between (DIRECTORY_NOT_EMPTY otherwise).
     */
    public CompletableFuture<Void> deleteTree(String path, boolean recursive) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                deleteTreeNow(path, recursive);
                return null;
            } catch (TarnException e) {
                throw new CompletionException(e);
            }
        }, thread);
    }

    private void deleteTreeNow(String path, boolean recursive) throws TarnException {
        namespace.directory(path); // FILE_NOT_FOUND or NOT_A_DIRECTORY before anything changes
        boolean root = TarnPath.components(path).isEmpty();
        begin(recursive ? DELETE_TREE : RMDIR, new PathRequest(path)::encode);
        try {
            if (!recursive) {
                sealEverywhere(path);
                if (root) {
                    unsealEverywhere(path); // "/" stays; it was empty everywhere
                    return;
                }
            }
            deleteEverywhere(path);
        } finally {
            end();
        }
    }

    /** Deletes the directory at {@code path} with everything below it on every namenode. */
    private void deleteEverywhere(String path) throws TarnException {
        List<Integer> others = new ArrayList<>();
        List<CompletableFuture<Object>> calls = new ArrayList<>();
        for (int p = 0; p < peers.length; p++) {
            if (p != partitioning.partition()) {
                others.add(p);
                calls.add(peers[p].call(Opcode.DIR_DELETE, b -> Wire.writeString(b, path), body -> null));
            }
        }
        namespace.applyDeleteTree(path);
        for (int i = 0; i < calls.size(); i++) {
            await(others.get(i), calls.get(i));
        }
    }

    private void unsealEverywhere(String path) throws TarnException {
        broadcast(Opcode.DIR_UNSEAL, path);
        namespace.unseal(path);
    }

    /**
     * rmdir's first phase: seals the directory on every namenode; when any holds entries in it (or
     * cannot be reached), unseals it everywhere and fails with that namenode's answer.
     */
    private void sealEverywhere(String path) throws TarnException {
        List<Integer> others = new ArrayList<>();
        List<CompletableFuture<Object>> calls = new ArrayList<>();
        for (int p = 0; p < peers.length; p++) {
            if (p != partitioning.partition()) {
                others.add(p);
                calls.add(peers[p].call(Opcode.DIR_SEAL, b -> Wire.writeString(b, path), body -> null));
            }
        }
        TarnException refusal = null;
        try {
            namespace.seal(path);
        } catch (TarnException e) {
            refusal = e;
        }
        for (int i = 0; i < calls.size(); i++) {
            try {
                await(others.get(i), calls.get(i));
            } catch (TarnException e) {
                if (refusal == null) {
                    refusal = e;
                }
            }
        }
        if (refusal != null) {
            unsealEverywhere(path);
            throw refusal;
        }
    }

    /** Sends a path-only operation to every other namenode and waits; failures are only logged. */
    private void broadcast(int opcode, String path) {
        List<CompletableFuture<Object>> calls = new ArrayList<>();
        for (int p = 0; p < peers.length; p++) {
            if (p != partitioning.partition()) {
                calls.add(peers[p].call(opcode, b -> Wire.writeString(b, path), body -> null));
            }
        }
        for (CompletableFuture<Object> c : calls) {
            try {
                c.get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | TimeoutException e) {
                LOG.warn("{} of '{}' not acknowledged: {}", Opcode.name(opcode), path, e.toString());
            }
        }
    }

    /** Changes a directory's attributes on every namenode, so any of them answers the same. */
    public CompletableFuture<FileStatus> setDirectoryAttributes(SetAttributesRequest r) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                namespace.directory(r.path());
                begin(SET_ATTR, r::encode);
                try {
                    return changeEverywhere(Opcode.DIR_SET_ATTR, r::encode, () -> namespace.applySetAttributes(r));
                } finally {
                    end();
                }
            } catch (TarnException e) {
                throw new CompletionException(e);
            }
        }, thread);
    }

    /**
     * Sets a directory's replication default on every namenode, so a file created below it gets
     * the same replication whichever namenode owns its name.
     */
    public CompletableFuture<FileStatus> setDirectoryReplication(SetReplicationRequest r) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                namespace.directory(r.path());
                begin(SET_REPLICATION, r::encode);
                try {
                    return changeEverywhere(Opcode.DIR_SET_REPLICATION, r::encode,
                            () -> namespace.applySetReplication(r.path(), r.replication()));
                } finally {
                    end();
                }
            } catch (TarnException e) {
                throw new CompletionException(e);
            }
        }, thread);
    }

    /** A change of one directory's own fields, in order with the other directory changes, on every namenode. */
    private FileStatus changeEverywhere(int opcode, RpcClient.BodyWriter encoder, LocalChange here)
            throws TarnException {
        List<Integer> others = new ArrayList<>();
        List<CompletableFuture<FileStatus>> calls = new ArrayList<>();
        for (int p = 0; p < peers.length; p++) {
            if (p != partitioning.partition()) {
                others.add(p);
                calls.add(peers[p].call(opcode, encoder, NamenodeProtocol::decodeStatus));
            }
        }
        FileStatus status = here.apply();
        for (int i = 0; i < calls.size(); i++) {
            await(others.get(i), calls.get(i));
        }
        return status;
    }

    /** The coordinator's own part of a directory change. */
    @FunctionalInterface
    private interface LocalChange {
        FileStatus apply() throws TarnException;
    }

    /** Renames directory {@code src} on every namenode, with HDFS's rules (see {@code Renamer}). */
    public CompletableFuture<Void> renameDirectory(String src, String dst) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                renameNow(src, dst);
                return null;
            } catch (TarnException e) {
                throw new CompletionException(e);
            }
        }, thread);
    }

    private void renameNow(String src, String dst) throws TarnException {
        namespace.directory(src);
        String target = namespace.renameTarget(src, dst);
        List<String> t = TarnPath.components(target);
        if (t.isEmpty()) {
            throw new TarnException(ErrorCode.RENAME_INVALID, "cannot rename '" + TarnPath.normalize(src)
                    + "' onto the root directory");
        }
        if (target.equals(TarnPath.normalize(src))) {
            return; // onto its own parent: nothing changes
        }
        // Every rule is checked here first (this tree holds every directory), so the arbiter can
        // refuse only for a file of that name, which only it knows. The target is final: every
        // namenode moves the directory to exactly there.
        checkLocally(src, target);
        begin(RENAME, new RenameRequest(src, target)::encode);
        try {
            renameEverywhere(src, target);
        } finally {
            end();
        }
    }

    /** Moves directory {@code src} to exactly {@code target}: at the new name's arbiter first, then everywhere. */
    private void renameEverywhere(String src, String target) throws TarnException {
        List<String> t = TarnPath.components(target);
        int arbiter = partitioning.ownerOf(t.get(t.size() - 1));
        if (arbiter == partitioning.partition()) {
            namespace.applyRename(src, target); // the arbiter first: here
        } else {
            await(arbiter, sendRename(arbiter, src, target));
        }
        List<Integer> others = new ArrayList<>();
        List<CompletableFuture<Object>> calls = new ArrayList<>();
        for (int p = 0; p < peers.length; p++) {
            if (p != arbiter && p != partitioning.partition()) {
                others.add(p);
                calls.add(sendRename(p, src, target));
            }
        }
        if (arbiter != partitioning.partition()) {
            namespace.applyRename(src, target);
        }
        for (int i = 0; i < calls.size(); i++) {
            await(others.get(i), calls.get(i));
        }
    }

    private CompletableFuture<Object> sendRename(int p, String src, String target) {
        return peers[p].call(Opcode.DIR_RENAME, b -> {
            Wire.writeString(b, src);
            Wire.writeString(b, target);
        }, body -> null);
    }

    /**
     * The rename's rules against this namenode's tree, without changing it, in the order a single
     * namenode checks them ({@link Namespace#rename}): the target's parent must be a directory (a
     * file of another namenode in the way makes NOT_A_DIRECTORY, as it would with one), the target
     * must be free, and a directory cannot move into itself.
     */
    private void checkLocally(String src, String target) throws TarnException {
        String s = TarnPath.normalize(src);
        String parentPath = TarnPath.parent(target);
        Inode parent = namespace.find(parentPath);
        if (parent == null) {
            String inTheWay = fileOnTheWay(parentPath);
            if (inTheWay != null) {
                throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "cannot rename '" + s + "' to '" + target
                        + "': '" + inTheWay + "' is a file");
            }
            throw new TarnException(ErrorCode.PARENT_NOT_FOUND, "cannot rename '" + s + "' to '" + target
                    + "': its parent does not exist");
        }
        if (!(parent instanceof DirectoryInode)) {
            throw new TarnException(ErrorCode.NOT_A_DIRECTORY, "cannot rename '" + s + "' to '" + target
                    + "': its parent is a file");
        }
        if (namespace.find(target) != null) {
            throw new TarnException(ErrorCode.FILE_EXISTS, "cannot rename '" + s + "' to '" + target + "': it exists");
        }
        if (target.startsWith(s.endsWith("/") ? s : s + "/")) {
            List<String> t = TarnPath.components(target);
            if (isFileElsewhere(target, t.get(t.size() - 1))) {
                throw new TarnException(ErrorCode.FILE_EXISTS, "cannot rename '" + s + "' to '" + target
                        + "': it exists");
            }
            throw new TarnException(ErrorCode.RENAME_INVALID, "cannot move directory '" + s + "' into itself ('"
                    + target + "')");
        }
    }

    /**
     * The first component of {@code path} that is missing here, if it is a file of another namenode
     * (which makes the path go through a file); null otherwise.
     */
    private String fileOnTheWay(String path) throws TarnException {
        List<String> comps = TarnPath.components(path);
        String here = "/";
        for (String name : comps) {
            here = TarnPath.child(here, name);
            Inode node = namespace.find(here);
            if (node == null) {
                return isFileElsewhere(here, name) ? here : null;
            }
            if (!(node instanceof DirectoryInode)) {
                return here;
            }
        }
        return null;
    }

    /** Links one directory: at the name's arbiter first, then everywhere else. */
    private void create(DirMkdirRequest r) throws TarnException {
        int arbiter = partitioning.ownerOf(r.name());
        apply(arbiter, r);
        List<Integer> others = new ArrayList<>();
        List<CompletableFuture<FileStatus>> calls = new ArrayList<>();
        for (int p = 0; p < peers.length; p++) {
            if (p != arbiter && p != partitioning.partition()) {
                others.add(p);
                calls.add(send(p, r));
            }
        }
        if (arbiter != partitioning.partition()) {
            namespace.applyMkdir(r.parent(), r.name(), r.dirId(), r.ownership(), r.time());
        }
        for (int i = 0; i < calls.size(); i++) {
            await(others.get(i), calls.get(i));
        }
    }

    private void apply(int p, DirMkdirRequest r) throws TarnException {
        if (p == partitioning.partition()) {
            namespace.applyMkdir(r.parent(), r.name(), r.dirId(), r.ownership(), r.time());
        } else {
            await(p, send(p, r));
        }
    }

    private CompletableFuture<FileStatus> send(int p, DirMkdirRequest r) {
        return peers[p].call(Opcode.DIR_MKDIR, r::encode, NamenodeProtocol::decodeStatus);
    }

    /**
     * Records the change about to go to the other namenodes ({@code kind} and its request) and
     * waits until it is on disk: no namenode may hold a change this journal could lose.
     */
    private void begin(byte kind, Consumer<ByteBuf> request) throws TarnException {
        byte[] change = change(kind, request);
        long seq;
        try {
            seq = namespace.beginDirectoryChange(change);
        } catch (JournalFailedException e) {
            throw new TarnException(e.code(), "directories cannot change: " + e.getMessage());
        }
        try {
            durability.after(seq).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof TarnException t ? t
                    : new TarnException(ErrorCode.INTERNAL, "journal: " + e.getCause());
        } catch (TimeoutException e) {
            throw new TarnException(ErrorCode.TIMEOUT, "the namenode's journal did not write a directory change "
                    + "within " + timeoutMs + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TarnException(ErrorCode.INTERNAL, "interrupted while waiting for the journal");
        }
    }

    /** A change as its DIR_INTENT record holds it: {@code kind}, then the request. */
    static byte[] change(byte kind, Consumer<ByteBuf> request) {
        ByteBuf b = Unpooled.buffer(64);
        try {
            b.writeByte(kind);
            request.accept(b);
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** Records that the change begun last has ended; a journal that failed meanwhile is only logged. */
    private void end() {
        try {
            namespace.endDirectoryChange();
        } catch (JournalFailedException e) {
            LOG.warn("The end of a directory change is not journaled: {}", e.getMessage());
        }
    }

    /**
     * Carries the change that was under way when this coordinator stopped (its journal's intent
     * without an end) through to every namenode, before any other directory change: runs first on
     * the coordinator's thread and tries again until every namenode answered (a namenode that is
     * down meanwhile holds up directory changes, as it does anyway) or the change was refused.
     */
    void recover() {
        byte[] change = namespace.unfinishedDirectoryChange();
        if (change == null) {
            return;
        }
        thread.execute(() -> {
            String what = describeChange(change);
            LOG.info("Completing the directory change that was under way when namenode 0 stopped: {}", what);
            for (int attempt = 1; !Thread.currentThread().isInterrupted(); attempt++) {
                try {
                    redo(change);
                    LOG.info("Directory change completed on every namenode: {}", what);
                    break;
                } catch (TarnException e) {
                    if (!retryable(e.code())) {
                        LOG.info("Directory change refused ({}): {}", e.getMessage(), what);
                        break;
                    }
                    if (attempt % 10 == 1) {
                        LOG.warn("Directory change not yet on every namenode (attempt {}; directory changes wait "
                                + "until it is): {}: {}", attempt, what, e.getMessage());
                    }
                    try {
                        Thread.sleep(Math.min(2_000, 100L * attempt));
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
            end();
        });
    }

    private static boolean retryable(ErrorCode code) {
        return code == ErrorCode.CONNECTION_LOST || code == ErrorCode.TIMEOUT || code == ErrorCode.RETRY
                || code == ErrorCode.NAMESPACE_READ_ONLY;
    }

    /** Applies a recorded change again on every namenode (every step is idempotent). */
    private void redo(byte[] change) throws TarnException {
        ByteBuf b = Unpooled.wrappedBuffer(change);
        byte kind = b.readByte();
        switch (kind) {
            case MKDIR -> {
                DirMkdirRequest r = DirMkdirRequest.decode(b);
                namespace.directoryIdsAbove(r.dirId());
                create(r);
            }
            case RENAME -> {
                RenameRequest r = RenameRequest.decode(b);
                renameEverywhere(r.src(), r.dst());
            }
            case DELETE_TREE -> deleteEverywhere(PathRequest.decode(b).path());
            case RMDIR -> {
                String path = PathRequest.decode(b).path();
                if (namespace.find(path) instanceof DirectoryInode) {
                    unsealEverywhere(path); // not deleted here: the rmdir gives up
                } else {
                    deleteEverywhere(path); // deleted here: everywhere too
                }
            }
            case SET_ATTR -> {
                SetAttributesRequest r = SetAttributesRequest.decode(b);
                if (namespace.find(r.path()) instanceof DirectoryInode) {
                    changeEverywhere(Opcode.DIR_SET_ATTR, r::encode, () -> namespace.applySetAttributes(r));
                }
            }
            case SET_REPLICATION -> {
                SetReplicationRequest r = SetReplicationRequest.decode(b);
                if (namespace.find(r.path()) instanceof DirectoryInode) {
                    changeEverywhere(Opcode.DIR_SET_REPLICATION, r::encode,
                            () -> namespace.applySetReplication(r.path(), r.replication()));
                }
            }
            default -> LOG.error("Unknown directory change of kind {} in the journal: skipped", kind);
        }
    }

    /** A recorded change as the log tells it. */
    static String describeChange(byte[] change) {
        ByteBuf b = Unpooled.wrappedBuffer(change);
        try {
            return switch (b.readByte()) {
                case MKDIR -> {
                    DirMkdirRequest r = DirMkdirRequest.decode(b);
                    yield "mkdir '" + TarnPath.child(TarnPath.normalize(r.parent()), r.name()) + "'";
                }
                case RENAME -> {
                    RenameRequest r = RenameRequest.decode(b);
                    yield "rename '" + r.src() + "' to '" + r.dst() + "'";
                }
                case DELETE_TREE -> "delete -r '" + PathRequest.decode(b).path() + "'";
                case RMDIR -> "rmdir '" + PathRequest.decode(b).path() + "'";
                case SET_ATTR -> "set attributes of '" + SetAttributesRequest.decode(b).path() + "'";
                case SET_REPLICATION -> "set replication of '" + SetReplicationRequest.decode(b).path() + "'";
                default -> "a change of unknown kind";
            };
        } catch (TarnException | RuntimeException e) {
            return "an unreadable change (" + e.getMessage() + ")";
        }
    }

    /** Waits for a peer's answer; its own error as it is, anything else naming the peer. */
    private void await(int p, CompletableFuture<?> call) throws TarnException {
        try {
            call.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TarnException(ErrorCode.INTERNAL, "interrupted while waiting for " + partitioning.describe(p));
        } catch (TimeoutException e) {
            throw new TarnException(ErrorCode.TIMEOUT, partitioning.describe(p) + " did not apply a directory change "
                    + "within " + timeoutMs + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof TarnError t && t.code() != ErrorCode.CONNECTION_LOST
                    && t.code() != ErrorCode.TIMEOUT) {
                throw new TarnException(t.code(), cause.getMessage());
            }
            throw new TarnException(ErrorCode.CONNECTION_LOST, partitioning.describe(p)
                    + " is unreachable, so directories cannot change: " + cause.getMessage());
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
