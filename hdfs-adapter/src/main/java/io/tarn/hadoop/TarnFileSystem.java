package io.tarn.hadoop;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnInputStream;
import io.tarn.client.TarnOutputStream;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.Replication;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathFilter;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.impl.PathCapabilitiesSupport;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.Progressable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Function;

/**
 * Hadoop's {@link FileSystem} for {@code tarn://host:port/path}: lets MapReduce, Spark, Hive and
 * the {@code hadoop fs} shell read and write a Tarn cluster like HDFS.
 *
 * <p>Registered for the scheme {@code tarn} through {@code META-INF/services}, so {@code fs.tarn.impl}
 * is optional; {@link TarnFs} is the {@code FileContext} binding. Hadoop caches one instance per
 * scheme, authority and user; each holds one {@link TarnClient} (its connections and threads),
 * closed by {@link #close()} (those behind {@link TarnFs} share one, see {@link SharedClients}).
 * The authority names the namenode; {@code fs.tarn.*} options configure the client (see
 * {@link TarnHadoopConfig}).
 *
 * <p>Semantics follow Hadoop's FileSystem specification as HDFS implements it: {@code rename} returns
 * false when the source is missing, the destination exists, its parent is missing, or a directory
 * would move into itself; a non-recursive delete of a non-empty directory throws
 * {@code PathIsNotEmptyDirectoryException}; block locations name the datanode of every block.
 * Tarn failures become the exceptions the specification names (see {@link HadoopErrors}).
 * New entries belong to the caller (Hadoop's current user) with the umask applied to their mode;
 * a namenode that authenticates checks owner, group and mode as HDFS does, and its refusals are
 * {@code AccessControlException}s. The block size is the cluster's, whatever create asks. Replication is a
 * file's, as in HDFS, but Tarn keeps 1 copy or a group of 3: a Hadoop factor of 1 or less becomes
 * 1, 2 or 3 becomes 3, and one above 3 is a hint, 3 where the cluster can place it, else 1
 * ({@link HadoopReplication}).
 */
public class TarnFileSystem extends FileSystem {
    /** The URI scheme. */
    public static final String SCHEME = "tarn";

    private static final Logger LOG = LoggerFactory.getLogger(TarnFileSystem.class);

    private final Function<TarnConfig, TarnClient> clients;
    private final boolean ownsClient;
    private URI uri;
    private Path workingDir;
    private TarnConfig tarnConfig;
    private TarnClient client;
    private BlockLocator locator;
    private HadoopReplication replication;
    private String user;
    private volatile long knownBlockSize;
    private volatile boolean closed;

    /** A file system with a Tarn client of its own, closed by {@link #close()}; what Hadoop instantiates. */
    public TarnFileSystem() {
        this(TarnClient::connect, true);
    }

    /**
     * A file system taking its client from {@code clients}; {@link #close()} closes that client only
     * when {@code ownsClient}.
     */
    TarnFileSystem(Function<TarnConfig, TarnClient> clients, boolean ownsClient) {
        this.clients = clients;
        this.ownsClient = ownsClient;
    }

    @Override
    public void initialize(URI name, Configuration conf) throws IOException {
        super.initialize(name, conf);
        setConf(conf);
        this.user = UserGroupInformation.getCurrentUser().getShortUserName();
        TarnConfig configured = TarnHadoopConfig.of(name, conf);
        // Connections authenticate as the caller's Hadoop user (unless fs.tarn.client.user names one): a
        // client per user, as each one's connections carry its identity.
        this.tarnConfig = configured.isSet(TarnKeys.CLIENT_USER) ? configured
                : configured.toBuilder().set(TarnKeys.CLIENT_USER, user).build();
        this.uri = URI.create(SCHEME + "://" + name.getRawAuthority());
        this.client = clients.apply(tarnConfig);
        this.locator = new BlockLocator(client);
        this.replication = new HadoopReplication(uri.toString());
        this.workingDir = getHomeDirectory();
    }

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public URI getUri() {
        return uri;
    }

    @Override
    protected int getDefaultPort() {
        return TarnHadoopConfig.defaultPort();
    }

    /** Tarn issues no delegation tokens: there is nothing for a job to collect. */
    @Override
    public String getCanonicalServiceName() {
        return null;
    }

    @Override
    public Path getWorkingDirectory() {
        return workingDir;
    }

    @Override
    public void setWorkingDirectory(Path dir) {
        workingDir = makeQualified(dir);
    }

    // ------------------------------------------------------------------ files

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
        String path = pathOf(f);
        statistics.incrementReadOps(1);
        TarnInputStream in;
        try {
            in = client.open(path);
        } catch (IOException e) {
            throw HadoopErrors.codeOf(e) == ErrorCode.IS_A_DIRECTORY ? HadoopErrors.notAFile(e, path)
                    : HadoopErrors.translate(e, path);
        }
        return new FSDataInputStream(new TarnFSInputStream(in, path, statistics));
    }

    /**
     * Creates a file, with missing parents, owned by the caller, with {@code permission} under the
     * umask and {@code replication} as {@link HadoopReplication} maps it. The block size is the
     * cluster's: a size asked otherwise is ignored, as Tarn does not choose it per file.
     */
    @Override
    public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
                                     short replication, long blockSize, Progressable progress) throws IOException {
        return createFile(f, Modes.masked(permission, FsPermission.getFileDefault(), getConf()), overwrite, true,
                replication);
    }

    /** Creates a file whose parent must exist already; {@code FileNotFoundException} otherwise. */
    @Override
    public FSDataOutputStream createNonRecursive(Path f, FsPermission permission, EnumSet<CreateFlag> flags,
                                                 int bufferSize, short replication, long blockSize,
                                                 Progressable progress) throws IOException {
        if (flags.contains(CreateFlag.APPEND) && exists(f)) {
            return append(f, bufferSize, progress);
        }
        int mode = Modes.masked(permission, FsPermission.getFileDefault(), getConf());
        return createFile(f, mode, flags.contains(CreateFlag.OVERWRITE), false, replication);
    }

    /**
     * FileContext's create: the permission is absolute (FileContext applied its umask already).
     * Deprecated in FileSystem, yet what {@code DelegateToFileSystem} calls.
     */
    @Deprecated
    @Override
    protected FSDataOutputStream primitiveCreate(Path f, FsPermission absolutePermission, EnumSet<CreateFlag> flags,
                                                 int bufferSize, short replication, long blockSize,
                                                 Progressable progress, Options.ChecksumOpt checksumOpt)
            throws IOException {
        boolean exists = exists(f);
        CreateFlag.validate(f, exists, flags);
        if (exists && flags.contains(CreateFlag.APPEND)) {
            return append(f, bufferSize, progress);
        }
        int mode = absolutePermission != null ? Modes.absolute(absolutePermission)
                : Modes.masked(null, FsPermission.getFileDefault(), getConf());
        return createFile(f, mode, flags.contains(CreateFlag.OVERWRITE), true, replication);
    }

    private FSDataOutputStream createFile(Path f, int mode, boolean overwrite, boolean createParents,
                                          short factor) throws IOException {
        String path = pathOf(f);
        statistics.incrementWriteOps(1);
        TarnOutputStream out;
        try {
            out = replication.apply(factor, path, tarn -> client.create(path,
                    new CreateOptions(overwrite, createParents, -1, Modes.newEntry(user, mode), tarn)));
        } catch (IOException e) {
            throw HadoopErrors.codeOf(e) == ErrorCode.IS_A_DIRECTORY ? HadoopErrors.directoryExists(e, path)
                    : HadoopErrors.translate(e, path);
        }
        return new FSDataOutputStream(new TarnFSOutputStream(out, path), statistics);
    }

    /**
     * Reopens a closed file for writing at its end. {@code FileNotFoundException} when it does not
     * exist (or is a directory); an {@code IOException} carrying {@code LEASE_CONFLICT} while someone
     * is writing it.
     */
    @Override
    public FSDataOutputStream append(Path f, int bufferSize, Progressable progress) throws IOException {
        String path = pathOf(f);
        statistics.incrementWriteOps(1);
        TarnOutputStream out;
        try {
            out = client.append(path);
        } catch (IOException e) {
            throw HadoopErrors.codeOf(e) == ErrorCode.IS_A_DIRECTORY ? HadoopErrors.notAFile(e, path)
                    : HadoopErrors.translate(e, path);
        }
        return new FSDataOutputStream(new TarnFSOutputStream(out, path), statistics, out.position());
    }

    /** Tarn files are written once, by one writer: blocks cannot be moved between files. */
    @Override
    public void concat(Path target, Path[] sources) {
        throw new UnsupportedOperationException("Tarn does not support concat (" + target + ")");
    }

    /** Tarn files are written once, by one writer: they cannot be cut short. */
    @Override
    public boolean truncate(Path f, long newLength) {
        throw new UnsupportedOperationException("Tarn does not support truncate (" + f + ")");
    }

    // ------------------------------------------------------------------ namespace

    /**
     * Renames with HDFS's (boolean) semantics: into {@code dst} when it is a directory, else to
     * {@code dst}. False, with nothing changed, when the source is missing or is the root, the
     * target exists, the destination's parent is missing, or a directory would move into its own
     * subtree; {@code ParentNotDirectoryException} when the destination's parent is a file.
     */
    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        String from = pathOf(src);
        String to = pathOf(dst);
        statistics.incrementWriteOps(1);
        if (from.equals("/")) {
            return false;
        }
        try {
            client.rename(from, to);
            return true;
        } catch (IOException e) {
            ErrorCode code = HadoopErrors.codeOf(e);
            if (code == ErrorCode.FILE_NOT_FOUND || code == ErrorCode.PARENT_NOT_FOUND
                    || code == ErrorCode.FILE_EXISTS || code == ErrorCode.RENAME_INVALID) {
                LOG.debug("rename {} to {} refused: {}", from, to, e.getMessage());
                return false;
            }
            throw HadoopErrors.translate(e, from);
        }
    }

    /**
     * Deletes a file or directory; false when nothing was there. Deleting the root recursively
     * empties the file system and returns true; non-recursively, it succeeds only when it is empty.
     */
    @Override
    public boolean delete(Path f, boolean recursive) throws IOException {
        if (makeQualified(f).isRoot()) {
            // As HDFS: the root is never deleted (the namenode refuses it too): false, except that a
            // non-recursive delete of a root with entries fails as for any directory with entries.
            if (!recursive) {
                change(f, tarnPath -> client.delete(tarnPath, false));
            }
            LOG.warn("refused to delete the root directory of {}: delete the entries under it", uri);
            return false;
        }
        return change(f, tarnPath -> client.delete(tarnPath, recursive));
    }

    /**
     * Creates a directory and its missing parents, owned by the caller, with {@code permission}
     * under the umask (parents also get owner write and search, as in HDFS). An existing directory
     * is left as it is.
     */
    @Override
    public boolean mkdirs(Path f, FsPermission permission) throws IOException {
        return makeDirectories(f, Modes.masked(permission, FsPermission.getDirDefault(), getConf()));
    }

    /**
     * FileContext's mkdir: the permission is absolute; without createParent the parent must be a
     * directory. Deprecated in FileSystem, yet what {@code DelegateToFileSystem} calls.
     */
    @Deprecated
    @Override
    protected void primitiveMkdir(Path f, FsPermission absolutePermission, boolean createParent) throws IOException {
        if (createParent) {
            makeDirectories(f, Modes.absolute(absolutePermission));
            return;
        }
        change(f, tarnPath -> client.mkdir(tarnPath, Modes.newEntry(user, Modes.absolute(absolutePermission))));
    }

    /** As {@link #primitiveMkdir(Path, FsPermission, boolean)} with parents. */
    @Deprecated
    @Override
    protected boolean primitiveMkdir(Path f, FsPermission absolutePermission) throws IOException {
        return makeDirectories(f, Modes.absolute(absolutePermission));
    }

    private boolean makeDirectories(Path f, int mode) throws IOException {
        change(f, tarnPath -> client.mkdirs(tarnPath, Modes.newEntry(user, mode)));
        return true;
    }

    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
        Path qualified = makeQualified(f);
        String path = pathOf(qualified);
        statistics.incrementReadOps(1);
        return toHadoop(status(path), qualified);
    }

    /** The entries of a directory, or the file itself when {@code f} is a file. */
    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
        List<Listing.Entry> entries = list(f);
        FileStatus[] out = new FileStatus[entries.size()];
        for (int i = 0; i < out.length; i++) {
            Listing.Entry e = entries.get(i);
            out[i] = toHadoop(e.status(), e.path());
        }
        return out;
    }

    /** Lists like {@link #listStatus} and locates the blocks of every file, many files at a time. */
    @Override
    protected RemoteIterator<LocatedFileStatus> listLocatedStatus(Path f, PathFilter filter) throws IOException {
        List<Listing.Entry> accepted = new ArrayList<>();
        for (Listing.Entry e : list(f)) {
            if (filter.accept(e.path())) {
                accepted.add(e);
            }
        }
        return new LocatedListing(accepted, locator, this::toHadoop);
    }

    private List<Listing.Entry> list(Path f) throws IOException {
        Path dir = makeQualified(f);
        String path = pathOf(dir);
        statistics.incrementReadOps(1);
        try {
            return Listing.of(client, path, dir);
        } catch (IOException e) {
            throw HadoopErrors.translate(e, path);
        }
    }

    // ------------------------------------------------------------------ blocks

    /**
     * One location per Tarn block overlapping {@code [start, start + len)}, offsets and lengths
     * clipped to the file's size: the datanode holding it, or for a file of replication 3 every
     * member of the block's group, the one believed to lead first (host, host:port as its name,
     * {@code /default-rack/host:port} as its topology path).
     */
    @Override
    public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len) throws IOException {
        if (file == null) {
            return null;
        }
        if (start < 0 || len < 0) {
            throw new IllegalArgumentException("invalid start " + start + " or length " + len);
        }
        String path = pathOf(file.getPath());
        if (file.isDirectory() || file.getLen() <= start) {
            return new BlockLocation[0];
        }
        statistics.incrementReadOps(1);
        BlockLocator.Span span;
        if (file instanceof TarnFileStatus t) {
            span = new BlockLocator.Span(t.fileId(), t.getLen(), t.getBlockSize(), start, len);
        } else {
            var s = status(path);
            span = new BlockLocator.Span(s.fileId(), s.size(), s.blockSize(), start, len);
        }
        try {
            return locator.locate(span);
        } catch (IOException e) {
            throw HadoopErrors.translate(e, path);
        }
    }

    /** The cluster's block size: Tarn's is cluster-wide, the same for every path. */
    @Override
    public long getDefaultBlockSize(Path f) {
        return clusterBlockSize();
    }

    /** The cluster's block size, for callers of the old API. */
    @Deprecated
    @Override
    public long getDefaultBlockSize() {
        return clusterBlockSize();
    }

    /**
     * The replication a file created at {@code path} gets: the default of its nearest directory
     * that sets one, else the cluster's ({@code tarn.replication.default}); for an existing file,
     * its own. Asked of the namenode (one call); 1 when it cannot answer, as this method may not fail.
     */
    @Override
    public short getDefaultReplication(Path path) {
        try {
            return (short) client.getReplication(pathOf(path));
        } catch (IOException | RuntimeException e) {
            LOG.debug("No replication for {} from the namenode ({}): answering 1", path, e.toString());
            return Replication.ONE;
        }
    }

    /** The replication of files created at the root, for callers of the old API. */
    @Deprecated
    @Override
    public short getDefaultReplication() {
        return getDefaultReplication(new Path("/"));
    }

    /**
     * On a file that holds no data yet, its replication (mapped as {@link HadoopReplication} says);
     * on a directory, the default of the files created below it from now on (files already there
     * keep theirs). True when set; false when nothing exists at {@code src}, as FileSystem specifies.
     * A file that holds data keeps its replication: for a factor of 2 or 3 an {@code IOException}
     * (REPLICATION_FIXED) says so, as does one for too few live datanodes. A factor above 3 is a hint
     * and never fails for those reasons: see {@link #setReplicationHint}.
     */
    @Override
    public boolean setReplication(Path src, short factor) throws IOException {
        String path = pathOf(src);
        statistics.incrementWriteOps(1);
        try {
            if (HadoopReplication.isHint(factor)) {
                setReplicationHint(path, factor);
            } else {
                client.setReplication(path, HadoopReplication.factor(factor));
            }
            return true;
        } catch (FileNotFoundException e) {
            return false;
        } catch (IOException e) {
            throw HadoopErrors.translate(e, path);
        }
    }

    /**
     * A factor above 3 at {@code path}, as HDFS takes one it cannot fully honour (MapReduce asks 10
     * for the files of a job it submits): a file gets 3, or 1 when too few datanodes are alive, and
     * keeps the factor it has when it holds data already (Tarn cannot re-place written blocks); a
     * directory's default becomes 3 when three datanodes are alive, else 1, since the namenode checks
     * a default only when a file is created with it.
     */
    private void setReplicationHint(String path, short factor) throws IOException {
        if (client.getStatus(path).isDirectory()) {
            int alive = aliveDatanodes();
            if (alive < Replication.THREE) {
                replication.fellBack(factor, path, "directory default 1 instead of 3: " + alive
                        + (alive == 1 ? " datanode is" : " datanodes are") + " alive");
            }
            client.setReplication(path, alive < Replication.THREE ? Replication.ONE : Replication.THREE);
            return;
        }
        try {
            replication.apply(factor, path, tarn -> client.setReplication(path, tarn));
        } catch (IOException e) {
            if (HadoopErrors.codeOf(e) != ErrorCode.REPLICATION_FIXED) {
                throw e;
            }
            replication.fellBack(factor, path, "the file keeps its replication: " + e.getMessage());
        }
    }

    /** Datanodes the namenode counts alive. */
    private int aliveDatanodes() throws IOException {
        int alive = 0;
        for (DatanodeStatus d : client.clusterStatus().datanodes()) {
            if (d.alive()) {
                alive++;
            }
        }
        return alive;
    }

    /** Asked of the namenode once; the configured {@code tarn.blocksize} when it cannot answer. */
    private long clusterBlockSize() {
        long size = knownBlockSize;
        if (size > 0) {
            return size;
        }
        try {
            size = client.clusterStatus().blockSize();
            knownBlockSize = size;
            return size;
        } catch (IOException e) {
            long configured = tarnConfig.get(TarnKeys.BLOCK_SIZE);
            LOG.warn("cannot ask {} for its block size ({}); assuming {} = {}", uri, e.getMessage(),
                    TarnKeys.BLOCK_SIZE.name(), configured);
            return configured;
        }
    }

    /**
     * Capacity and free space of the live datanodes, added up over every namenode's share (see
     * {@link ClusterCapacity}).
     */
    @Override
    public FsStatus getStatus(Path p) throws IOException {
        if (p != null) {
            pathOf(p); // only checks that the path is on this file system: the status is the cluster's
        } else {
            checkOpen();
        }
        statistics.incrementReadOps(1);
        return ClusterCapacity.sum(client.clusterStatusOfEach());
    }

    // ------------------------------------------------------------------ attributes

    /** Sets the owner and/or the group (null leaves one as it is): a superuser's and the owner's to change. */
    @Override
    public void setOwner(Path p, String username, String groupname) throws IOException {
        if (username == null && groupname == null) {
            throw new IOException("setOwner of " + p + " needs a user name, a group name or both");
        }
        change(p, tarnPath -> client.setOwner(tarnPath, username, groupname));
    }

    /** Sets the permission bits (sticky bit included): the owner's or a superuser's to change. */
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
        change(p, tarnPath -> client.setPermission(tarnPath, Modes.absolute(permission)));
    }

    /** Sets modification and/or access time, milliseconds since the epoch; -1 leaves one as it is. */
    @Override
    public void setTimes(Path p, long mtime, long atime) throws IOException {
        change(p, tarnPath -> client.setTimes(tarnPath, mtime, atime));
    }

    // ------------------------------------------------------------------ capabilities, lifecycle

    @Override
    public boolean hasPathCapability(Path path, String capability) throws IOException {
        switch (PathCapabilitiesSupport.validatePathCapabilityArgs(makeQualified(path), capability)) {
            case CommonPathCapabilities.FS_APPEND:
            case CommonPathCapabilities.FS_PERMISSIONS:
                return true;
            default:
                return super.hasPathCapability(path, capability);
        }
    }

    /** Runs Hadoop's close (delete-on-exit paths, leaving the cache), then closes the Tarn client. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        try {
            super.close();
        } finally {
            closed = true;
            if (client != null && ownsClient) {
                client.close();
            }
        }
    }

    @Override
    public String toString() {
        return "TarnFileSystem{" + uri + ", user=" + user + (closed ? ", closed" : "") + "}";
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The Tarn path of a Hadoop path, resolved against the working directory; a path of another
     * file system fails with Hadoop's "Wrong FS" {@code IllegalArgumentException}.
     */
    private String pathOf(Path f) throws IOException {
        checkOpen();
        String p = makeQualified(f).toUri().getPath();
        return p.isEmpty() ? "/" : p;
    }

    /** One Tarn call that changes the namespace at {@code f}: counted as a write, its errors translated. */
    private <T> T change(Path f, TarnCall<T> call) throws IOException {
        String path = pathOf(f);
        statistics.incrementWriteOps(1);
        try {
            return call.apply(path);
        } catch (IOException e) {
            throw HadoopErrors.translate(e, path);
        }
    }

    /** A client call on a Tarn path. */
    @FunctionalInterface
    private interface TarnCall<T> {
        T apply(String tarnPath) throws IOException;
    }

    private io.tarn.common.fs.FileStatus status(String path) throws IOException { // qualified: name clash
        try {
            return client.getStatus(path);
        } catch (IOException e) {
            throw HadoopErrors.translate(e, path);
        }
    }

    private FileStatus toHadoop(io.tarn.common.fs.FileStatus s, Path qualified) { // qualified: name clash
        return new TarnFileStatus(s, qualified);
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException("file system " + uri + " is closed");
        }
    }
}
