package io.tarn.client;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.rpc.IoThreads;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import io.tarn.rpc.WaitingCaller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The Java API of Tarn: namespace operations and file streams against one cluster.
 *
 * <p>Every operation comes in a blocking form that throws typed {@link IOException}s
 * ({@link java.io.FileNotFoundException}, {@link io.tarn.common.error.FileExistsException}, ...
 * each carrying an {@link ErrorCode}) and, for metadata, an asynchronous form returning a
 * {@link CompletableFuture} so that many operations can be in flight at once. Futures complete on
 * transport threads: do not block inside their callbacks.
 *
 * <p>A client is thread-safe and meant to be shared; it holds one connection per server. While it
 * has files open for writing it renews their leases every {@code tarn.client.lease.renew.interval}.
 */
public final class TarnClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TarnClient.class);
    private static final int LIST_PAGE = 4096;

    private final TarnConfig config;
    private final Transport transport;
    private final boolean ownsTransport;
    private final Namenodes namenodes;
    private final DataClient data;
    private final long clientId;
    private final String clientHost;
    /** Owner of what this client creates when the caller names none. */
    private final String user = System.getProperty("user.name", "");
    private final Set<TarnOutputStream> writers = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService leaseRenewer;
    /** {@link TarnKeys#CLIENT_WAIT_SPIN} in nanoseconds. */
    private final long waitSpinNanos;
    /** Threads in {@link #awaitAnswer}: only a lone one polls. */
    private final AtomicInteger answerWaiters = new AtomicInteger();
    /** Waits in {@link #awaitAnswer} that polled (for tests and the curious). */
    private final LongAdder answerPolls = new LongAdder();
    private volatile boolean closed;

    private TarnClient(TarnConfig config, Transport transport, boolean ownsTransport) {
        this.config = config;
        this.transport = transport;
        this.ownsTransport = ownsTransport;
        this.namenodes = new Namenodes(transport, config.namenodes().get(0));
        this.data = new DataClient(transport, config.get(TarnKeys.CLIENT_SHORTCIRCUIT));
        long id;
        do {
            id = new SecureRandom().nextLong();
        } while (id == 0);
        this.clientId = id;
        this.clientHost = resolveHost(config);
        this.waitSpinNanos = TimeUnit.MICROSECONDS.toNanos(config.get(TarnKeys.CLIENT_WAIT_SPIN));
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

    /** Status of a file or directory; {@link java.io.FileNotFoundException} when absent. */
    public FileStatus getStatus(String path) throws IOException {
        return awaitAnswer(() -> getStatusAsync(path));
    }

    /** True when the path exists. */
    public boolean exists(String path) throws IOException {
        try {
            getStatus(path);
            return true;
        } catch (java.io.FileNotFoundException e) {
            return false;
        }
    }

    /** Creates a file for writing with {@link CreateOptions#DEFAULT}. */
    public TarnOutputStream create(String path) throws IOException {
        return create(path, CreateOptions.DEFAULT);
    }

    /** Creates a file and returns a stream that writes it; the file is visible once created, complete once closed. */
    public TarnOutputStream create(String path, CreateOptions options) throws IOException {
        return awaitAnswer(() -> createAsync(path, options));
    }

    /**
     * Reopens a closed file for writing at its end; the stream's {@link TarnOutputStream#position()}
     * starts at the file's size. {@link io.tarn.common.error.LeaseException} while another writer (or
     * this client) has the file open for writing.
     */
    public TarnOutputStream append(String path) throws IOException {
        return awaitAnswer(() -> appendAsync(path));
    }

    /** Opens a file for reading. */
    public TarnInputStream open(String path) throws IOException {
        return awaitAnswer(() -> openAsync(path));
    }

    /** Creates a directory and any missing parents; true when it exists afterwards. */
    public boolean mkdirs(String path) throws IOException {
        awaitAnswer(() -> mkdirsAsync(path));
        return true;
    }

    /**
     * Creates one directory whose parent must exist ({@link java.io.FileNotFoundException} when it
     * does not, {@link io.tarn.common.error.NotADirectoryException} when it is a file), with the
     * given ownership; an existing directory is returned as it is.
     */
    public FileStatus mkdir(String path, Ownership ownership) throws IOException {
        return awaitAnswer(() -> namenodes.coordinator(nn -> nn.create(path, FileType.DIRECTORY, 0, 0, clientId,
                clientHost, withUser(ownership))));
    }

    /**
     * Creates a directory and any missing parents with the given ownership (see {@link Ownership};
     * parents get owner write and search added). An existing directory is left as it is.
     */
    public FileStatus mkdirs(String path, Ownership ownership) throws IOException {
        return awaitAnswer(() -> namenodes.coordinator(nn -> nn.mkdirs(path, withUser(ownership))));
    }

    /** Sets owner and/or group; null leaves one unchanged. Stored, not enforced. */
    public FileStatus setOwner(String path, String owner, String group) throws IOException {
        int mask = (owner != null ? NamenodeProtocol.SET_OWNER : 0) | (group != null ? NamenodeProtocol.SET_GROUP : 0);
        Ownership o = new Ownership(owner != null ? owner : "", group != null ? group : "", Ownership.DEFAULT_PERMISSION);
        return awaitAnswer(() -> setAttributes(new SetAttributesRequest(path, mask, o, -1, -1)));
    }

    /** Sets the permission bits (0 to 07777 octal). Stored, not enforced. */
    public FileStatus setPermission(String path, int permission) throws IOException {
        return awaitAnswer(() -> setAttributes(new SetAttributesRequest(path,
                NamenodeProtocol.SET_PERMISSION, Ownership.UNSPECIFIED.withPermission(permission), -1, -1)));
    }

    /** Sets modification and/or access time in milliseconds since the epoch; -1 leaves one unchanged. */
    public FileStatus setTimes(String path, long modificationTime, long accessTime) throws IOException {
        int mask = (modificationTime != -1 ? NamenodeProtocol.SET_MTIME : 0)
                | (accessTime != -1 ? NamenodeProtocol.SET_ATIME : 0);
        return awaitAnswer(() -> setAttributes(new SetAttributesRequest(path, mask, Ownership.UNSPECIFIED,
                modificationTime, accessTime)));
    }

    /** Entries of a directory sorted by name (a file lists as itself). */
    public List<FileStatus> list(String path) throws IOException {
        return awaitAnswer(() -> listAsync(path));
    }

    /**
     * Deletes a file, or a directory (with its contents only when {@code recursive}).
     *
     * @return false when the path did not exist
     * @throws io.tarn.common.error.DirectoryNotEmptyException for a non-empty directory without recursive
     */
    public boolean delete(String path, boolean recursive) throws IOException {
        return awaitAnswer(() -> deleteAsync(path, recursive));
    }

    /** Renames with HDFS semantics: into {@code dst} when it is a directory, else to {@code dst}. */
    public void rename(String src, String dst) throws IOException {
        awaitAnswer(() -> renameAsync(src, dst));
    }

    /** Where block {@code index} of a file lives (for benchmarks and locality). */
    public BlockRef getBlock(long fileId, int index) throws IOException {
        return awaitAnswer(() -> getBlockAsync(fileId, index));
    }

    /**
     * Read locations of the blocks of a file from block {@code first} on, up to {@code count}
     * (fewer at the end of the file), in as few round trips as the namenode allows: what schedulers
     * need for locality and splits.
     */
    public List<BlockRef> getBlocks(long fileId, int first, int count) throws IOException {
        return awaitAnswer(() -> getBlocksAsync(fileId, first, count));
    }

    /** The namenode's view of the cluster: counts and datanodes. */
    public ClusterStatus clusterStatus() throws IOException {
        return awaitAnswer(() -> namenodes.coordinator(NamenodeClient::clusterStatus));
    }

    /**
     * Each namenode's own view, keyed by its address in partition order (docs/partitioning.md): the
     * files it owns, the directories (every namenode holds them all), the operations it served, its
     * uptime, and the datanodes with the share of their regions it manages. The future of a namenode
     * that does not answer fails with its error and leaves the others alone; the call itself fails
     * only when the configured namenode cannot tell the partition map.
     */
    public java.util.Map<String, CompletableFuture<ClusterStatus>> clusterStatusOfEach() throws IOException {
        java.util.Map<String, CompletableFuture<ClusterStatus>> each = new java.util.LinkedHashMap<>();
        for (NamenodeClient nn : awaitAnswer(namenodes::all)) {
            each.put(nn.remote(), nn.clusterStatus());
        }
        return each;
    }

    // ------------------------------------------------------------------ namespace, asynchronous

    public CompletableFuture<FileStatus> getStatusAsync(String path) {
        NamenodeClient[] nns = namenodes.known();
        if (nns != null && nns.length == 1) {
            return nns[0].getFile(path); // the hot path of a single namenode: nothing to compute or allocate
        }
        // A file being renamed to another namenode's name answers RETRY for a moment. A directory is
        // asked of every namenode, each of which records the changes it makes in it.
        return retrying(() -> namenodes.byPath(path, nn -> nn.getFile(path)))
                .thenCompose(s -> s.isDirectory() ? directoryEverywhere(path, s) : CompletableFuture.completedFuture(s));
    }

    /**
     * A directory's status with the latest modification time of every namenode's copy: {@code first}
     * (the answer of the namenode owning the name) merged with the others'.
     */
    private CompletableFuture<FileStatus> directoryEverywhere(String path, FileStatus first) {
        return namenodes.all().thenCompose(nns -> {
            int answered;
            try {
                answered = Namenodes.forPath(path, nns.length);
            } catch (TarnException e) {
                return CompletableFuture.failedFuture(e);
            }
            List<CompletableFuture<FileStatus>> each = new ArrayList<>(nns.length - 1);
            for (int p = 0; p < nns.length; p++) {
                if (p != answered) {
                    each.add(nns[p].getFile(path));
                }
            }
            return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0])).handle((v, e) -> {
                FileStatus merged = first;
                for (CompletableFuture<FileStatus> f : each) {
                    FileStatus s = f.isCompletedExceptionally() ? null : f.join();
                    if (s != null && s.isDirectory() && s.fileId() == first.fileId()) {
                        merged = merged.mergeTimes(s);
                    }
                }
                return merged; // a namenode that did not answer leaves its share out
            });
        });
    }

    private CompletableFuture<FileStatus> setAttributes(SetAttributesRequest r) {
        return retrying(() -> ownerOrCoordinator(r.path(), nn -> nn.setAttributes(r)));
    }

    public CompletableFuture<TarnOutputStream> createAsync(String path, CreateOptions options) {
        int flags = (options.overwrite() ? NamenodeProtocol.CREATE_OVERWRITE : 0)
                | (options.createParents() ? NamenodeProtocol.CREATE_PARENTS : 0);
        int storageClass = options.storageClass() >= 0 ? options.storageClass()
                : config.get(TarnKeys.CLIENT_STORAGE_CLASS);
        Ownership ownership = withUser(options.ownership());
        CompletableFuture<FileStatus> created = retrying(() -> namenodes.byPath(path, nn -> nn.create(path,
                FileType.FILE, flags, storageClass, clientId, clientHost, ownership)));
        // With several namenodes, the file's namenode neither creates directories nor sees files of
        // other namenodes on the way: on PARENT_NOT_FOUND, the parents are made through partition 0
        // (createParents) and the create is tried once more, or the client finds out whether a file
        // stands in the way, which makes it NOT_A_DIRECTORY as with one namenode.
        created = created.handle((status, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(status);
            }
            Throwable cause = unwrap(e);
            if (!parentMissingOnOneOfSeveral(cause)) {
                return CompletableFuture.<FileStatus>failedFuture(cause);
            }
            if (!options.createParents()) {
                return this.<FileStatus>fileInTheWay("cannot create '" + path + "'", path, cause);
            }
            String parent;
            try {
                parent = io.tarn.common.fs.TarnPath.parent(io.tarn.common.fs.TarnPath.normalize(path));
            } catch (TarnException bad) {
                return CompletableFuture.<FileStatus>failedFuture(bad);
            }
            Ownership dirs = new Ownership(ownership.owner(), ownership.group(), Ownership.DEFAULT_PERMISSION);
            return namenodes.coordinator(nn -> nn.mkdirs(parent, dirs)).handle((d, de) -> {
                if (de == null) {
                    return retrying(() -> namenodes.byPath(path, nn -> nn.create(path, FileType.FILE, flags,
                            storageClass, clientId, clientHost, ownership)));
                }
                Throwable why = unwrap(de);
                if (why instanceof TarnError w && w.code() == ErrorCode.FILE_EXISTS) {
                    // A file stands where a parent directory should be.
                    return CompletableFuture.<FileStatus>failedFuture(TarnException.of(ErrorCode.NOT_A_DIRECTORY,
                            "cannot create '" + path + "': " + why.getMessage()));
                }
                return CompletableFuture.<FileStatus>failedFuture(why);
            }).thenCompose(f -> f);
        }).thenCompose(f -> f);
        return created.thenApply(status -> new TarnOutputStream(this, path, status));
    }

    /** PARENT_NOT_FOUND from one of several namenodes, which does not see the other namenodes' files. */
    private boolean parentMissingOnOneOfSeveral(Throwable cause) {
        NamenodeClient[] nns = namenodes.known();
        return nns != null && nns.length > 1 && cause instanceof TarnError t
                && t.code() == ErrorCode.PARENT_NOT_FOUND;
    }

    /**
     * After a create or rename to {@code child} answered {@link #parentMissingOnOneOfSeveral}:
     * NOT_A_DIRECTORY ("{@code what}: ...") when one of its parents is a file, as with one namenode,
     * else {@code notFound} itself.
     */
    private <T> CompletableFuture<T> fileInTheWay(String what, String child, Throwable notFound) {
        List<String> parents;
        try {
            parents = io.tarn.common.fs.TarnPath.components(
                    io.tarn.common.fs.TarnPath.parent(io.tarn.common.fs.TarnPath.normalize(child)));
        } catch (TarnException bad) {
            return CompletableFuture.failedFuture(notFound);
        }
        return fileInTheWay(what, parents, 0, notFound);
    }

    /** {@link #fileInTheWay(String, String, Throwable)} from {@code parents}' {@code i}-th on, one lookup each. */
    private <T> CompletableFuture<T> fileInTheWay(String what, List<String> parents, int i, Throwable notFound) {
        if (i == parents.size()) {
            return CompletableFuture.failedFuture(notFound);
        }
        String prefix = "/" + String.join("/", parents.subList(0, i + 1));
        return getStatusAsync(prefix).handle((s, e) -> {
            if (e != null) {
                return CompletableFuture.<T>failedFuture(notFound);
            }
            if (!s.isDirectory()) {
                return CompletableFuture.<T>failedFuture(TarnException.of(ErrorCode.NOT_A_DIRECTORY,
                        what + ": '" + prefix + "' is a file, not a directory"));
            }
            return this.<T>fileInTheWay(what, parents, i + 1, notFound);
        }).thenCompose(f -> f);
    }

    public CompletableFuture<TarnOutputStream> appendAsync(String path) {
        return retrying(() -> namenodes.byPath(path, nn -> nn.append(path, clientId, clientHost)))
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
        return namenodes.coordinator(nn -> nn.mkdirs(path, ownership));
    }

    /**
     * Every entry of a directory, sorted by name. With several namenodes, each lists its own files
     * (partition 0 the subdirectories too) and the lists are merged; a file lists as itself, from the
     * one namenode that holds it.
     */
    public CompletableFuture<List<FileStatus>> listAsync(String path) {
        return namenodes.all().thenCompose(nns -> {
            if (nns.length == 1) {
                return listFrom(nns[0], path, "", new ArrayList<>());
            }
            List<CompletableFuture<List<FileStatus>>> parts = new ArrayList<>(nns.length);
            for (NamenodeClient nn : nns) {
                parts.add(listFrom(nn, path, "", new ArrayList<>()));
            }
            return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]))
                    .handle((v, e) -> merge(parts));
        });
    }

    /**
     * The union of the partitions' listings. A partition that does not know the path (it holds
     * neither the directory's files nor the file) answers FILE_NOT_FOUND; only when all do is the
     * path missing. Every partition lists the subdirectories: they appear once, with the latest
     * modification time any namenode recorded.
     */
    private static List<FileStatus> merge(List<CompletableFuture<List<FileStatus>>> parts) {
        List<FileStatus> all = new ArrayList<>();
        Throwable notFound = null;
        int answered = 0;
        for (CompletableFuture<List<FileStatus>> part : parts) {
            try {
                all.addAll(part.join());
                answered++;
            } catch (CompletionException e) {
                Throwable cause = unwrap(e);
                if (!(cause instanceof TarnError) || ((TarnError) cause).code() != ErrorCode.FILE_NOT_FOUND) {
                    throw new CompletionException(cause);
                }
                notFound = cause;
            }
        }
        if (answered == 0) {
            throw new CompletionException(notFound);
        }
        all.sort(java.util.Comparator.comparing(FileStatus::name));
        List<FileStatus> merged = new ArrayList<>(all.size());
        for (FileStatus s : all) {
            int last = merged.size() - 1;
            if (last >= 0 && merged.get(last).name().equals(s.name()) && s.isDirectory()
                    && merged.get(last).isDirectory()) {
                merged.set(last, merged.get(last).mergeTimes(s));
            } else {
                merged.add(s);
            }
        }
        return merged;
    }

    private CompletableFuture<List<FileStatus>> listFrom(NamenodeClient nn, String path, String startAfter,
                                                         List<FileStatus> acc) {
        return nn.list(path, startAfter, LIST_PAGE).thenCompose((ListResponse page) -> {
            acc.addAll(page.entries());
            if (!page.hasMore() || page.entries().isEmpty()) {
                return CompletableFuture.completedFuture(acc);
            }
            return listFrom(nn, path, page.entries().get(page.entries().size() - 1).name(), acc);
        });
    }

    public CompletableFuture<Boolean> deleteAsync(String path, boolean recursive) {
        return retrying(() -> ownerOrCoordinator(path, nn -> nn.delete(path, recursive))).handle((v, e) -> {
            if (e == null) {
                return true;
            }
            Throwable cause = unwrap(e);
            if (cause instanceof TarnError && ((TarnError) cause).code() == ErrorCode.FILE_NOT_FOUND) {
                return false;
            }
            throw new CompletionException(cause);
        });
    }

    /**
     * Runs {@code call} again, after pauses growing from 1 to 64 ms, while it answers RETRY (with
     * several namenodes: its directory is sealed by an rmdir that may yet give up, or the file is
     * being renamed to a name another namenode owns), until {@code tarn.rpc.timeout} has passed.
     */
    private <T> CompletableFuture<T> retrying(java.util.function.Supplier<CompletableFuture<T>> call) {
        return retrying(call, 1, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.get(TarnKeys.RPC_TIMEOUT)));
    }

    private <T> CompletableFuture<T> retrying(java.util.function.Supplier<CompletableFuture<T>> call, long pauseMs,
                                              long deadline) {
        return call.get().handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = unwrap(e);
            if (cause instanceof TarnError t && t.code() == ErrorCode.RETRY && System.nanoTime() < deadline) {
                java.util.concurrent.Executor later = CompletableFuture.delayedExecutor(pauseMs, TimeUnit.MILLISECONDS);
                return CompletableFuture.runAsync(() -> { }, later)
                        .thenCompose(x -> retrying(call, Math.min(64, pauseMs * 2), deadline));
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    /**
     * {@code call} at the namenode owning {@code path}; again at partition 0 when that namenode
     * answers that the path is a directory, whose changes partition 0 coordinates.
     */
    private <T> CompletableFuture<T> ownerOrCoordinator(String path,
                                                        Function<NamenodeClient, CompletableFuture<T>> call) {
        return namenodes.byPath(path, call).handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = unwrap(e);
            if (cause instanceof TarnError t && t.code() == ErrorCode.AT_COORDINATOR) {
                return namenodes.coordinator(call);
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(f -> f);
    }

    public CompletableFuture<Void> renameAsync(String src, String dst) {
        return retrying(() -> ownerOrCoordinator(src, nn -> nn.rename(src, dst))).handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            Throwable cause = unwrap(e);
            if (!parentMissingOnOneOfSeveral(cause)) {
                return CompletableFuture.<Void>failedFuture(cause);
            }
            return this.<Void>fileInTheWay("cannot rename '" + src + "' to '" + dst + "'", dst, cause);
        }).thenCompose(f -> f);
    }

    /** Asynchronous {@link #getBlocks}: as many round trips as pages of block references, one after another. */
    public CompletableFuture<List<BlockRef>> getBlocksAsync(long fileId, int first, int count) {
        return blocksFrom(new FileRef(fileId), first, count, new ArrayList<>());
    }

    /** Pages of block references; a file that moves to another namenode meanwhile is followed there. */
    private CompletableFuture<List<BlockRef>> blocksFrom(FileRef f, int first, int count, List<BlockRef> acc) {
        return following(f, (nn, id) -> nn.getBlocks(id, first + acc.size(), count - acc.size()))
                .thenCompose(page -> {
            acc.addAll(page);
            if (page.isEmpty() || acc.size() >= count) {
                return CompletableFuture.completedFuture(acc);
            }
            return blocksFrom(f, first, count, acc);
        });
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
        return readBlock(new FileRef(fileId), index);
    }

    // ------------------------------------------------------------------ for streams

    /** A call about a file by its id at the namenode that owns the id. */
    @FunctionalInterface
    private interface ByIdCall<T> {
        CompletableFuture<T> call(NamenodeClient nn, long fileId);
    }

    CompletableFuture<BlockRef> writeBlock(FileRef f, int index, long durableSize) {
        return following(f, (nn, id) -> nn.getBlock(id, index, true, clientId, clientHost, durableSize));
    }

    /**
     * Write locations of {@code count} blocks from {@code first} on, allocating those the file lacks:
     * at least one, fewer than {@code count} when storage ran out part-way.
     */
    CompletableFuture<List<BlockRef>> writeBlocks(FileRef f, int first, int count, long durableSize) {
        return following(f, (nn, id) -> nn.allocateBlocks(id, first, count, clientId, clientHost, durableSize));
    }

    CompletableFuture<BlockRef> readBlock(FileRef f, int index) {
        return following(f, (nn, id) -> nn.getBlock(id, index, false, clientId, clientHost, -1));
    }

    /** Read locations of up to {@code count} blocks from {@code first} on: one page, fewer at the file's end. */
    CompletableFuture<List<BlockRef>> readBlocks(FileRef f, int first, int count) {
        return following(f, (nn, id) -> nn.getBlocks(id, first, count));
    }

    CompletableFuture<FileStatus> syncFile(FileRef f, long durableSize) {
        return following(f, (nn, id) -> nn.sync(id, clientId, durableSize));
    }

    CompletableFuture<FileStatus> closeFile(FileRef f, long size) {
        return following(f, (nn, id) -> nn.close(id, clientId, size));
    }

    /**
     * {@code call} with the file's id at the namenode owning it. With several namenodes, a file
     * that is being renamed to another namenode's name answers RETRY for a moment (tried again), and
     * one that moved answers MOVED: its old namenode tells the new id (WHERE_MOVED), the stream's
     * reference takes it, and the call goes to the new namenode.
     */
    private <T> CompletableFuture<T> following(FileRef f, ByIdCall<T> call) {
        NamenodeClient[] nns = namenodes.known();
        if (nns != null && nns.length == 1) {
            return call.call(nns[0], f.id()); // one namenode: files never move
        }
        long[] used = new long[1]; // the id the last attempt used
        return retrying(() -> {
            long id = f.id();
            used[0] = id;
            return namenodes.byId(id, nn -> call.call(nn, id));
        }).handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = unwrap(e);
            if (cause instanceof TarnError t && t.code() == ErrorCode.MOVED) {
                long old = used[0];
                if (f.id() != old) {
                    return following(f, call); // another call of the stream followed the file already
                }
                return namenodes.byId(old, nn -> nn.whereMoved(old)).thenCompose(newId -> {
                    f.movedTo(old, newId);
                    return following(f, call);
                });
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(x -> x);
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
                        LOG.warn("lease renewal at {} failed: {}", nn.remote(), unwrap(e).getMessage());
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

    // ------------------------------------------------------------------ helpers

    /**
     * Waits for a future and rethrows its failure as the typed IOException it carries.
     *
     * <p>Refuses to wait on a transport I/O thread (inside a future's callback): the answer would
     * have to be read by a thread that is busy waiting, so the call would hang for good. An
     * interrupted wait leaves the future alone rather than cancelling it: the call stays in flight
     * either way, and a cancelled future would drop a block buffer its answer carries, which the
     * caller releases when the future completes.
     */
    static <T> T await(CompletableFuture<T> f) throws IOException {
        if (!f.isDone()) {
            refuseOnIoThread();
        }
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException io = new InterruptedIOException("interrupted while waiting for Tarn");
            io.initCause(e);
            throw io;
        } catch (ExecutionException e) {
            throw asIOException(e.getCause());
        }
    }

    /**
     * Makes a blocking namespace call: issues it through {@code call} and waits for its answer.
     * The call is issued marked as one whose caller waits ({@link WaitingCaller}), so the transport
     * may send it and read its answer on this thread ({@link TarnKeys#CLIENT_WAIT_DIRECT}); the
     * future is then complete when {@code call} returns. Otherwise, when no other thread of this
     * client is waiting for an answer, it polls the future first, up to
     * {@link TarnKeys#CLIENT_WAIT_SPIN}: a namespace call is one or two round trips of tens of
     * microseconds, and a thread that sleeps meanwhile must be woken by the I/O thread, which on a VM
     * whose idle vCPUs halt costs about as much again (docs/performance.md). One poller per client at
     * most, so many waiting threads (or a busy application) never have several cores spinning; the
     * others sleep at once, and the poller stops polling once another thread waits too.
     */
    <T> T awaitAnswer(Supplier<CompletableFuture<T>> call) throws IOException {
        refuseOnIoThread();
        boolean first = answerWaiters.incrementAndGet() == 1;
        try {
            long spin = first ? waitSpinNanos : 0;
            if (spin > 0) {
                answerPolls.increment();
            }
            CompletableFuture<T> f = WaitingCaller.during(spin, alone, call);
            if (spin > 0 && !f.isDone()) {
                long start = System.nanoTime();
                while (!f.isDone() && System.nanoTime() - start < spin && alone.getAsBoolean()) {
                    Thread.onSpinWait();
                }
            }
            return await(f);
        } finally {
            answerWaiters.decrementAndGet();
        }
    }

    /** While polling in {@link #awaitAnswer}: no other thread of this client waits for an answer. */
    private final BooleanSupplier alone = () -> answerWaiters.get() == 1;

    /** Threads now waiting in {@link #awaitAnswer}. */
    int answerWaiters() {
        return answerWaiters.get();
    }

    /** Waits in {@link #awaitAnswer} so far that were allowed to poll before sleeping. */
    long answerPolls() {
        return answerPolls.sum();
    }

    /** Throws when the calling thread is a transport I/O thread, where waiting for an answer hangs. */
    static void refuseOnIoThread() {
        if (IoThreads.onIoThread()) {
            throw new IllegalStateException("blocking Tarn call on transport I/O thread "
                    + Thread.currentThread().getName() + ": use the asynchronous API (or another executor) in callbacks");
        }
    }

    static Throwable unwrap(Throwable t) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    static IOException asIOException(Throwable t) {
        Throwable cause = unwrap(t);
        if (cause instanceof IOException) {
            return (IOException) cause;
        }
        if (cause instanceof RuntimeException || cause instanceof Error) {
            return new TarnException(ErrorCode.INTERNAL, cause.toString(), cause);
        }
        return new IOException(cause);
    }
}
