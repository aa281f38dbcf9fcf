package io.tarn.namenode;

import io.tarn.common.config.HostPort;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.AdminProtocol.RegisterRequest;
import io.tarn.common.protocol.AdminProtocol.RegisterResponse;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.security.BlockTokens;

/** A namenode service without a transport, on a manual clock, with helpers for tests. */
public final class Fixture {
    public static final int BLOCK = 4096;
    public static final long LEASE_TIMEOUT = 60_000;
    public static final long DATANODE_TIMEOUT = 10_000;

    public final ManualClock clock = new ManualClock();
    public final NamenodeService nn;

    /** A namenode whose files have replication 1 unless asked otherwise. */
    public Fixture() {
        this(1);
    }

    /** A namenode with {@code tarn.replication.default} = {@code defaultReplication}. */
    public Fixture(int defaultReplication) {
        nn = new NamenodeService(clock, BLOCK, LEASE_TIMEOUT, DATANODE_TIMEOUT, BlockTokens.random(),
                Partitioning.single(new HostPort("127.0.0.1", 0)), defaultReplication);
    }

    /** Registers a datanode with {@code regions} regions of {@code blocksPerRegion} blocks. */
    public RegisterResponse datanode(long storageId, String host, int port, int storageClass, int regions,
                                     int blocksPerRegion, boolean intact) throws TarnException {
        return nn.register(new RegisterRequest(0, storageId, host, port, storageClass,
                (long) blocksPerRegion * BLOCK, regions, 0, 1, intact));
    }

    public FileStatus create(String path, long client) throws TarnException {
        return nn.create(new CreateRequest(path, FileType.FILE, NamenodeProtocol.CREATE_PARENTS, 0, client, "",
                Ownership.UNSPECIFIED));
    }

    /** A file of {@code replication} (0: inherited), with its missing parents. */
    public FileStatus createReplicated(String path, long client, int replication) throws TarnException {
        return nn.create(new CreateRequest(path, FileType.FILE, NamenodeProtocol.CREATE_PARENTS, 0, client, "",
                Ownership.UNSPECIFIED, replication));
    }

    public FileStatus create(String path, long client, int flags, int storageClass) throws TarnException {
        return nn.create(new CreateRequest(path, FileType.FILE, flags, storageClass, client, "",
                Ownership.UNSPECIFIED));
    }

    public BlockRef write(long fileId, int index, long client) throws TarnException {
        return nn.files().getBlock(fileId, index, true, client, "");
    }

    public BlockRef write(long fileId, int index, long client, String host) throws TarnException {
        return nn.files().getBlock(fileId, index, true, client, host);
    }

    public BlockRef read(long fileId, int index) throws TarnException {
        return nn.files().getBlock(fileId, index, false, 0, "");
    }
}
