package io.tarn.client;

import io.netty.buffer.ByteBuf;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ReplicationException;
import io.tarn.common.error.DirectoryNotEmptyException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.FileExistsException;
import io.tarn.common.error.LeaseException;
import io.tarn.common.error.NotADirectoryException;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.AdminProtocol;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.FsckResponse;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The Java API of Tarn: namespace operations and file streams against one cluster.
 *
 * <p>Every operation comes in a blocking form that throws typed {@link IOException}s
 * ({@link FileNotFoundException}, {@link FileExistsException}, ... each carrying an
 * {@link ErrorCode}) and, for metadata, an asynchronous form returning a {@link CompletableFuture}
 * so that many operations can be in flight at once. Futures complete on transport threads: do not
 * block inside their callbacks.
 *
 * <p>A client is thread-safe and meant to be shared; it holds one connection per server. While it
 * has files open for writing it renews their leases every {@code tarn.client.lease.renew.interval}.
 *
 * <p>The class is a facade: blocking calls wait through its {@link AnswerWaiter}, requests find
 * their namenode through its {@link NamespaceRouter} (over the partition map of {@link Namenodes}),
 * operations that span namenodes are {@link PartitionedNamespace}'s, and block data goes through its
 * {@link DataClient}. The single-namenode fast paths of {@link #getStatusAsync} and
 * {@link #getBlockAsync} stay here, one array read away from the call.
 */
public final class TarnClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TarnClient.class);

    private final TarnConfig config;
    private final Transport transport;
    private final boolean ownsTransport;
    private final Namenodes namenodes;
    private final NamespaceRouter router;
    private final PartitionedNamespace partitioned;
    private final AnswerWaiter answers;
    private final DataClient data;
    private final long clientId;
    private final String clientHost;
    /** Owner of what this client creates when the caller names none. */
    private final String user = System.getProperty("user.name", "");
    private final Set<TarnOutputStream> writers = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService leaseRenewer;
    private volatile boolean closed;

    private TarnClient(TarnConfig config, Transport transport, boolean ownsTransport) {
        this.config = config;
        this.transport = transport;
        this.ownsTransport = ownsTransport;
        this.namenodes = new Namenodes(transport, config.seedNamenodes(), config.get(TarnKeys.RPC_TIMEOUT));
        long id;
        do {
            id = new SecureRandom().nextLong();
        } while (id == 0);
        this.clientId = id;
        this.data = new DataClient(transport, config.get(TarnKeys.CLIENT_SHORTCIRCUIT), clientId,
                config.get(TarnKeys.RPC_TIMEOUT));
        this.clientHost = resolveHost(config);
        this.answers = new AnswerWaiter(TimeUnit.MICROSECONDS.toNanos(config.get(TarnKeys.CLIENT_WAIT_SPIN)));
        this.router = new NamespaceRouter(namenodes, new Backoff(config.get(TarnKeys.RPC_TIMEOUT)), clientId,
                clientHost);
        this.partitioned = new PartitionedNamespace(router);
        this.leaseRenewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "tarn-lease-renewer");
            t.setDaemon(true);
            return t;
        });
        long renew = config.get(TarnKeys.CLIENT_LEASE_RENEW);
        leaseRenewer.scheduleWithFixedDelay(this::renewLeases, renew, renew, TimeUnit.MILLISECONDS);
    }

    /** A client with its own transport threads, for the cluster named by {@code tarn.namenode.address}. */
    public static TarnClient connect(TarnConfig config) {
        Transport transport = Transports.create(config);
        try {
            return new TarnClient(config, transport, true);
        } catch (RuntimeException | Error e) {
            transport.close(); // its threads would outlive a client that never came to be
            throw e;
        }
    }

    /** A client sharing a transport the caller owns (and closes after the client). */
    public static TarnClient connect(TarnConfig config, Transport transport) {
        return new TarnClient(config, transport, false);
    }

    private static String resolveHost(TarnConfig config) {
        String configured = config.get(TarnKeys.CLIENT_HOSTNAME);
        if (!configured.isEmpty()) {
            return configured;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    // ------------------------------------------------------------------ namespace, blocking

    /** Status of a file or directory; {@link FileNotFoundException} when absent. */
    public FileStatus getStatus(String path) throws IOException {
        return answers.awaitAnswer(() -> getStatusAsync(path));
    }

    /** True when the path exists. */
    public boolean exists(String path) throws IOException {
        try {
            getStatus(path);
            return true;
        } catch (FileNotFoundException e) {
            return false;
        }
    }

    /** Creates a file for writing with {@link CreateOptions#DEFAULT}. */
    public TarnOutputStream create(String path) throws IOException {
        return create(path, CreateOptions.DEFAULT);
    }

    /**
     * Creates a file and returns a stream that writes it; the file is visible once created, complete
     * once closed.
     */
    public TarnOutputStream create(String path, CreateOptions options) throws IOException {
        return answers.awaitAnswer(() -> createAsync(path, options));
    }

    /**
     * Reopens a closed file for writing at its end; the stream's {@link TarnOutputStream#position()}
     * starts at the file's size. {@link LeaseException} while another writer (or this client) has
     * the file open for writing.
     */
    public TarnOutputStream append(String path) throws IOException {
        return answers.awaitAnswer(() -> appendAsync(path));
    }

    /** Opens a file for reading. */
    public TarnInputStream open(String path) throws IOException {
        return answers.awaitAnswer(() -> openAsync(path));
    }

    /** Creates a directory and any missing parents; true when it exists afterwards. */
    public boolean mkdirs(String path) throws IOException {
        answers.awaitAnswer(() -> mkdirsAsync(path));
        return true;
    }

    /**
     * Creates one directory whose parent must exist ({@link FileNotFoundException} when it does not,
     * {@link NotADirectoryException} when it is a file), with the given ownership; an existing
     * directory is returned as it is.
     */
    public FileStatus mkdir(String path, Ownership ownership) throws IOException {
        return answers.awaitAnswer(() -> router.atCoordinator(nn -> nn.create(path, FileType.DIRECTORY, 0, 0,
                clientId, clientHost, withUser(ownership))));
    }

    /**
     * Creates a directory and any missing parents with the given ownership (see {@link Ownership};
     * parents get owner write and search added). An existing directory is left as it is.
     */
    public FileStatus mkdirs(String path, Ownership ownership) throws IOException {
        return answers.awaitAnswer(() -> router.atCoordinator(nn -> nn.mkdirs(path, withUser(ownership))));
    }

    /**
     * Sets owner and/or group; null leaves one unchanged. A namenode that checks permissions lets
     * only a superuser change the owner, and the owner the group (to one it belongs to).
     */
    public FileStatus setOwner(String path, String owner, String group) throws IOException {
        int mask = (owner != null ? NamenodeProtocol.SET_OWNER : 0) | (group != null ? NamenodeProtocol.SET_GROUP : 0);
        Ownership o = new Ownership(owner != null ? owner : "", group != null ? group : "",
                Ownership.DEFAULT_PERMISSION);
        return answers.awaitAnswer(() -> setAttributes(new SetAttributesRequest(path, mask, o, -1, -1)));
    }

    /** Sets the permission bits (0 to 07777 octal): the owner's or a superuser's to change. */
    public FileStatus setPermission(String path, int permission) throws IOException {
        return answers.awaitAnswer(() -> setAttributes(new SetAttributesRequest(path,
                NamenodeProtocol.SET_PERMISSION, Ownership.UNSPECIFIED.withPermission(permission), -1, -1)));
    }

    /** Sets modification and/or access time in milliseconds since the epoch; -1 leaves one unchanged. */
    public FileStatus setTimes(String path, long modificationTime, long accessTime) throws IOException {
        int mask = (modificationTime != -1 ? NamenodeProtocol.SET_MTIME : 0)
                | (accessTime != -1 ? NamenodeProtocol.SET_ATIME : 0);
        return answers.awaitAnswer(() -> setAttributes(new SetAttributesRequest(path, mask, Ownership.UNSPECIFIED,
                modificationTime, accessTime)));
    }

    /**
     * Sets the replication (1 or 3) of a file while it holds no data (REPLICATION_FIXED once it
     * does), or the default of a directory for the files created below it from now on (0 removes
     * it; files created there then inherit from further up). {@link ReplicationException} for a
     * number other than 1 or 3, or too few live datanodes for a file of 3.
     */
    public FileStatus setReplication(String path, int replication) throws IOException {
        return answers.awaitAnswer(() -> router.atOwnerOrCoordinator(path, nn -> nn.setReplication(path,
                replication)));
    }

    /**
     * The replication of the file at {@code path}; for a directory, or a path where nothing exists,
     * the replication a file created there would get (its nearest directory's default, else the
     * cluster's). A file's own factor is also in its {@link FileStatus#replication()}.
     */
    public int getReplication(String path) throws IOException {
        return answers.awaitAnswer(() -> router.atOwner(path, nn -> nn.getReplication(path)));
    }

    /** Entries of a directory sorted by name (a file lists as itself). */
    public List<FileStatus> list(String path) throws IOException {
        return answers.awaitAnswer(() -> listAsync(path));
    }

    /**
     * Deletes a file, or a directory (with its contents only when {@code recursive}).
     *
     * @return false when the path did not exist
     * @throws DirectoryNotEmptyException for a non-empty directory without recursive
     */
    public boolean delete(String path, boolean recursive) throws IOException {
        return answers.awaitAnswer(() -> deleteAsync(path, recursive));
    }

    /** Renames with HDFS semantics: into {@code dst} when it is a directory, else to {@code dst}. */
    public void rename(String src, String dst) throws IOException {
        answers.awaitAnswer(() -> renameAsync(src, dst));
    }

    /** Where block {@code index} of a file lives (for benchmarks and locality). */
    public BlockRef getBlock(long fileId, int index) throws IOException {
        return answers.awaitAnswer(() -> getBlockAsync(fileId, index));
    }

    /**
     * The bytes one member of a replicated block's group holds, read from that member directly
     * (not through the leader): for tools that compare replicas, such as {@code tarn chaos} at
     * quiescence. Fails with the member's error (for example BLOCK_NOT_WRITTEN from a member that
     * lost the block).
     *
     * @param ref      a read reference of a replicated block ({@link BlockRef#group()} not null)
     * @param memberId the member to read
     * @param length   bytes from the start of the block
     */
    public byte[] readReplica(BlockRef ref, int memberId, int length) throws IOException {
        if (!ref.replicated() || ref.group().member(memberId) == null) {
            throw new TarnException(ErrorCode.INVALID_ARGUMENT, "block " + ref.blockIndex() + " has no member "
                    + memberId + " of a replicated group");
        }
        ByteBuf data = answers.awaitAnswer(() -> this.data.readReplica(ref, ref.group().member(memberId), length));
        try {
            byte[] out = new byte[data.readableBytes()];
            data.getBytes(data.readerIndex(), out);
            return out;
        } finally {
            data.release();
        }
    }

    /**
     * Read locations of the blocks of a file from block {@code first} on, up to {@code count}
     * (fewer at the end of the file), in as few round trips as the namenode allows: what schedulers
     * need for locality and splits.
     */
    public List<BlockRef> getBlocks(long fileId, int first, int count) throws IOException {
        return answers.awaitAnswer(() -> getBlocksAsync(fileId, first, count));
    }

    /** The namenode's view of the cluster: counts and datanodes. */
    public ClusterStatus clusterStatus() throws IOException {
        return answers.awaitAnswer(() -> router.atCoordinator(NamenodeClient::clusterStatus));
    }

    /**
     * Each namenode's own view, keyed by its address in partition order (docs/partitioning.md): the
     * files it owns, the directories (every namenode holds them all), the operations it served, its
     * uptime, and the datanodes with the share of their regions it manages. The future of a namenode
     * that does not answer fails with its error and leaves the others alone; the call itself fails
     * only when the configured namenode cannot tell the partition map.
     */
    public Map<String, CompletableFuture<ClusterStatus>> clusterStatusOfEach() throws IOException {
        Map<String, CompletableFuture<ClusterStatus>> each = new LinkedHashMap<>();
        for (NamenodeClient nn : answers.awaitAnswer(namenodes::all)) {
            each.put(nn.remote(), nn.clusterStatus());
        }
        return each;
    }

    /**
     * Each namenode's files whose blocks cannot be read, as its last scan found them (what HDFS's
     * fsck reports as missing blocks): lost blocks, whose datanode came back or stopped without its
     * data, and unavailable ones, whose datanode is down. Keyed by address in partition order, at
     * most {@code maxFiles} files listed per namenode ({@link AdminProtocol#MAX_FSCK_FILES} at
     * most); a namenode that does not answer fails its own future only.
     */
    public Map<String, CompletableFuture<FsckResponse>> fsckOfEach(int maxFiles) throws IOException {
        if (maxFiles < 0 || maxFiles > AdminProtocol.MAX_FSCK_FILES) {
            throw new IllegalArgumentException("maxFiles must be between 0 and " + AdminProtocol.MAX_FSCK_FILES
                    + ", got " + maxFiles);
        }
        Map<String, CompletableFuture<FsckResponse>> each = new LinkedHashMap<>();
        for (NamenodeClient nn : answers.awaitAnswer(namenodes::all)) {
            each.put(nn.remote(), nn.fsck(maxFiles));
        }
        return each;
    }

    // ------------------------------------------------------------------ namespace, asynchronous

    public CompletableFuture<FileStatus> getStatusAsync(String path) {
        NamenodeClient[] nns = namenodes.known();
        if (nns != null && nns.length == 1) {
            return nns[0].getFile(path); // the hot path of a single namenode: nothing to compute or allocate
        }
        return partitioned.status(path);
    }

    private CompletableFuture<FileStatus> setAttributes(SetAttributesRequest r) {
        return router.atOwnerOrCoordinator(r.path(), nn -> nn.setAttributes(r));
    }

    public CompletableFuture<TarnOutputStream> createAsync(String path, CreateOptions options) {
        int flags = (options.overwrite() ? NamenodeProtocol.CREATE_OVERWRITE : 0)
                | (options.createParents() ? NamenodeProtocol.CREATE_PARENTS : 0);
        int storageClass = options.storageClass() >= 0 ? options.storageClass()
                : config.get(TarnKeys.CLIENT_STORAGE_CLASS);
        Ownership ownership = withUser(options.ownership());
        Function<NamenodeClient, CompletableFuture<FileStatus>> create = nn -> nn.create(path, FileType.FILE, flags,
                storageClass, options.replication(), clientId, clientHost, ownership);
        // At the namenode owning the name; what only one of several namenodes answers (the parents
        // are not there) is PartitionedNamespace's. The first attempt stays here, as shallow a call
        // chain as it always was, for the JIT's sake (see Backoff#retrying).
        return router.atOwner(path, create)
                .handle((status, e) -> e == null ? CompletableFuture.completedFuture(status)
                        : partitioned.afterFailedCreate(path, create, ownership, options.createParents(), e))
                .thenCompose(f -> f)
                .thenApply(status -> new TarnOutputStream(this, path, status));
    }

    public CompletableFuture<TarnOutputStream> appendAsync(String path) {
        return router.atOwner(path, nn -> nn.append(path, clientId, clientHost))
                .thenApply(status -> new TarnOutputStream(this, path, status));
    }

    /** The ownership with this JVM's user as owner when none is named. */
    private Ownership withUser(Ownership o) {
        return o.owner().isEmpty() ? new Ownership(user, o.group(), o.permission()) : o;
    }

    public CompletableFuture<TarnInputStream> openAsync(String path) {
        return getStatusAsync(path).thenApply(status -> {
            if (status.isDirectory()) {
                throw new CompletionException(new TarnException(ErrorCode.IS_A_DIRECTORY,
                        "cannot open directory " + path + " for reading"));
            }
            return new TarnInputStream(this, path, status);
        });
    }

    public CompletableFuture<FileStatus> mkdirsAsync(String path) {
        Ownership ownership = withUser(Ownership.UNSPECIFIED);
        return router.atCoordinator(nn -> nn.mkdirs(path, ownership));
    }

    /**
     * Every entry of a directory, sorted by name. With several namenodes, each lists its own files
     * (partition 0 the subdirectories too) and the lists are merged; a file lists as itself, from the
     * one namenode that holds it.
     */
    public CompletableFuture<List<FileStatus>> listAsync(String path) {
        return partitioned.list(path);
    }

    public CompletableFuture<Boolean> deleteAsync(String path, boolean recursive) {
        return router.atOwnerOrCoordinator(path, nn -> nn.delete(path, recursive)).handle((v, e) -> {
            if (e == null) {
                return true;
            }
            Throwable cause = Failures.unwrap(e);
            if (Failures.hasCode(cause, ErrorCode.FILE_NOT_FOUND)) {
                return false;
            }
            throw new CompletionException(cause);
        });
    }

    public CompletableFuture<Void> renameAsync(String src, String dst) {
        return partitioned.rename(src, dst);
    }

    /** Asynchronous {@link #getBlocks}: as many round trips as pages of block references, one after another. */
    public CompletableFuture<List<BlockRef>> getBlocksAsync(long fileId, int first, int count) {
        return router.readAllBlocks(new FileRef(fileId), first, count);
    }

    /**
     * Where block {@code index} of the file with this id lives, with a read token; a file renamed
     * to another namenode's name since its id was read is followed there.
     */
    public CompletableFuture<BlockRef> getBlockAsync(long fileId, int index) {
        NamenodeClient[] nns = namenodes.known();
        if (nns != null && nns.length == 1) {
            return nns[0].getBlock(fileId, index, false, clientId, clientHost, -1);
        }
        return router.readBlock(new FileRef(fileId), index);
    }

    // ------------------------------------------------------------------ for streams

    /** Where the streams' calls about their files go. */
    NamespaceRouter router() {
        return router;
    }

    /** How the streams wait for the namenode's answers (hsync, close). */
    AnswerWaiter answers() {
        return answers;
    }

    DataClient data() {
        return data;
    }

    /**
     * Block data bytes this client copied short-circuit, straight from or to the region files of a
     * DRAM datanode on its host (reads and writes together); 0 when it used TCP only.
     */
    public long shortCircuitBytes() {
        return data.shortCircuitBytes();
    }

    TarnConfig config() {
        return config;
    }

    void opened(TarnOutputStream out) {
        writers.add(out);
    }

    void closed(TarnOutputStream out) {
        writers.remove(out);
    }

    /**
     * Runs on the renewer thread. Never throws: an exception would cancel every later renewal.
     * Renews at every namenode (each holds the leases of the files it owns); they are few.
     */
    private void renewLeases() {
        NamenodeClient[] nns = namenodes.known();
        if (writers.isEmpty() || closed || nns == null) {
            return; // no writer, or none yet: a file can only be open once the map is known
        }
        for (NamenodeClient nn : nns) {
            try {
                nn.renewLease(clientId).whenComplete((v, e) -> {
                    if (e != null) {
                        LOG.warn("lease renewal at {} failed: {}", nn.remote(), Failures.unwrap(e).getMessage());
                    }
                });
            } catch (RuntimeException e) {
                LOG.warn("lease renewal at {} failed: {}", nn.remote(), e.toString());
            }
        }
    }

    /** This client's id, as the namenode knows its leases. */
    public long clientId() {
        return clientId;
    }

    /** The host name used for location affinity. */
    public String clientHost() {
        return clientHost;
    }

    /** Closes open writers' streams without publishing them, then the connections. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        leaseRenewer.shutdownNow();
        for (TarnOutputStream w : writers) {
            w.abandon();
        }
        data.close();
        namenodes.close(); // a shared transport would otherwise keep these connections until it closes
        if (ownsTransport) {
            transport.close();
        }
    }
}
