package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.tarn.common.fs.FileIds;

import java.util.ArrayList;
import java.util.List;

/**
 * Bodies of datanode registration, heartbeats, deregistration and cluster status (namenode side).
 *
 * <pre>
 * REGISTER_DATANODE   req:  storageIdHigh[i64] storageIdLow[i64] host[str] port[u16] storageClass[u8]
 *                           regionSize[i64] regionCount[i32] firstRegion[i32] regionStride[i32] intact[bool]
 *                     resp: datanodeId[i32] blockSize[i32] tokenKey0[i64] tokenKey1[i64] resetGenerations[bool]
 * HEARTBEAT           req:  datanodeId[i32] storageIdHigh[i64] storageIdLow[i64]
 *                     resp: (empty), or UNKNOWN_DATANODE: register again
 * DEREGISTER_DATANODE req:  datanodeId[i32, not negative] storageIdHigh[i64] storageIdLow[i64] dataKept[bool]
 *                     resp: (empty), or UNKNOWN_DATANODE: no such datanode id with this storage id
 * CLUSTER_STATUS      req:  (empty)
 *                     resp: uptimeMs[i64] files[i64] directories[i64] operations[i64] blockSize[i32]
 *                           n[i32] DatanodeStatus*n damagedFiles[i64]
 * FSCK                req:  max[i32, 0..MAX_FSCK_FILES]
 *                     resp: scannedAtMs[i64] damagedFiles[i64] lostBlocks[i64] unavailableBlocks[i64]
 *                           n[i32] DamagedFile*n    (the first n of the damaged files, n at most max)
 * DamagedFile:        path[str] fileId[i64] blocks[i32] lost[i32] unavailable[i32]
 * DatanodeStatus:     id[i32] host[str] port[u16] storageClass[u8] alive[bool] capacityBlocks[i64]
 *                     freeBlocks[i64] silenceMs[i64]
 * </pre>
 * A datanode serves every namenode and registers with each a share of its regions: the ones with
 * ids {@code firstRegion + i * regionStride} for {@code i} in {@code 0..regionCount-1} (with N
 * namenodes, partition p gets {@code firstRegion = p}, {@code regionStride = N}; one namenode gets
 * {@code 0, 1}). The namenode allocates only there and puts these real ids in its block references,
 * so the datanode never translates them. Every id must lie below {@link #MAX_REGIONS} and the stride
 * in {@code 1..}{@link #MAX_REGION_STRIDE}; anything else is malformed.
 * {@code intact} says the datanode still holds the regions (and their data) it registered before
 * under the same storage id; {@code resetGenerations} tells it to forget its stored generations
 * because the namenode does not know its old blocks. A datanode stopping cleanly sends
 * {@code DEREGISTER_DATANODE} so the namenode stops allocating on it at once instead of after the
 * liveness timeout; {@code dataKept} says whether its regions (and data) survive the stop, so that
 * blocks on it are reported as waiting for its return or as lost.
 *
 * <p>A block is lost when its datanode came back, or stopped, without its data; unavailable while
 * its datanode is dead or stopped keeping its data. Each namenode finds the files with such blocks
 * by a scan of its own files (on its maintenance thread, whenever a datanode's state changed and
 * then every few seconds while any is found); {@code damagedFiles} in CLUSTER_STATUS and the FSCK
 * answer report its last scan, as HDFS's fsck reports missing blocks.
 */
public final class AdminProtocol {
    /** A datanode's region ids lie below this, so a registration names at most this many regions. */
    public static final int MAX_REGIONS = 1 << 24;
    /** Largest region stride: the most namenodes a cluster can have (one per file id partition). */
    public static final int MAX_REGION_STRIDE = FileIds.MAX_PARTITIONS;

    private AdminProtocol() {
    }

    /**
     * REGISTER_DATANODE request: who the datanode is, where it serves, and which of its regions the
     * receiving namenode manages ({@code regionCount} regions from {@code firstRegion}, every
     * {@code regionStride}-th), and whether it offers short-circuit access to clients on its host
     * (reported in CLUSTER_STATUS for operators; clients learn it from the datanode itself).
     */
    public record RegisterRequest(long storageIdHigh, long storageIdLow, String host, int port, int storageClass,
                                  long regionSize, int regionCount, int firstRegion, int regionStride,
                                  boolean intact, boolean shortCircuit) {
        /** A registration of a datanode that offers no short-circuit access. */
        public RegisterRequest(long storageIdHigh, long storageIdLow, String host, int port, int storageClass,
                               long regionSize, int regionCount, int firstRegion, int regionStride, boolean intact) {
            this(storageIdHigh, storageIdLow, host, port, storageClass, regionSize, regionCount, firstRegion,
                    regionStride, intact, false);
        }

        public void encode(ByteBuf buf) {
            buf.writeLong(storageIdHigh);
            buf.writeLong(storageIdLow);
            Wire.writeString(buf, host);
            buf.writeShort(port);
            buf.writeByte(storageClass);
            buf.writeLong(regionSize);
            buf.writeInt(regionCount);
            buf.writeInt(firstRegion);
            buf.writeInt(regionStride);
            Wire.writeBoolean(buf, intact);
            Wire.writeBoolean(buf, shortCircuit);
        }

        public static RegisterRequest decode(ByteBuf buf) {
            RegisterRequest r = new RegisterRequest(Wire.readLong(buf), Wire.readLong(buf), Wire.readString(buf),
                    Wire.readUnsignedShort(buf), Wire.readUnsignedByte(buf), Wire.readLong(buf),
                    Wire.readInt(buf, 0, MAX_REGIONS, "regionCount"),
                    Wire.readInt(buf, 0, MAX_REGIONS - 1, "firstRegion"),
                    Wire.readInt(buf, 1, MAX_REGION_STRIDE, "regionStride"), Wire.readBoolean(buf),
                    Wire.readBoolean(buf));
            Wire.end(buf);
            if (r.regionSize <= 0) {
                throw new MalformedMessageException("regionSize " + r.regionSize);
            }
            if (r.regionCount > 0 && r.lastRegion() >= MAX_REGIONS) {
                throw new MalformedMessageException("last region " + r.firstRegion + " + " + (r.regionCount - 1)
                        + " * " + r.regionStride + " = " + r.lastRegion() + " outside 0.." + (MAX_REGIONS - 1));
            }
            return r;
        }

        /** The id of the {@code i}-th region registered ({@code 0 <= i < regionCount}; valid requests only). */
        public int regionId(int i) {
            return firstRegion + i * regionStride;
        }

        /** The id of the last region registered, in a long: an invalid request may overflow an int. */
        private long lastRegion() {
            return firstRegion + (long) (regionCount - 1) * regionStride;
        }
    }

    /** REGISTER_DATANODE response. */
    public record RegisterResponse(int datanodeId, int blockSize, long tokenKey0, long tokenKey1,
                                   boolean resetGenerations) {
        public void encode(ByteBuf buf) {
            buf.writeInt(datanodeId);
            buf.writeInt(blockSize);
            buf.writeLong(tokenKey0);
            buf.writeLong(tokenKey1);
            Wire.writeBoolean(buf, resetGenerations);
        }

        public static RegisterResponse decode(ByteBuf buf) {
            RegisterResponse r = new RegisterResponse(Wire.readInt(buf), Wire.readInt(buf), Wire.readLong(buf),
                    Wire.readLong(buf), Wire.readBoolean(buf));
            Wire.end(buf);
            return r;
        }
    }

    /** HEARTBEAT request. */
    public record HeartbeatRequest(int datanodeId, long storageIdHigh, long storageIdLow) {
        public void encode(ByteBuf buf) {
            buf.writeInt(datanodeId);
            buf.writeLong(storageIdHigh);
            buf.writeLong(storageIdLow);
        }

        public static HeartbeatRequest decode(ByteBuf buf) {
            HeartbeatRequest r = new HeartbeatRequest(Wire.readInt(buf), Wire.readLong(buf), Wire.readLong(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * DEREGISTER_DATANODE request: sent once by a datanode that stops cleanly, while it is registered.
     * The decoder rejects negative ids, which no namenode grants.
     */
    public record DeregisterRequest(int datanodeId, long storageIdHigh, long storageIdLow, boolean dataKept) {
        public void encode(ByteBuf buf) {
            buf.writeInt(datanodeId);
            buf.writeLong(storageIdHigh);
            buf.writeLong(storageIdLow);
            Wire.writeBoolean(buf, dataKept);
        }

        public static DeregisterRequest decode(ByteBuf buf) {
            DeregisterRequest r = new DeregisterRequest(Wire.readInt(buf, 0, Integer.MAX_VALUE, "datanodeId"),
                    Wire.readLong(buf), Wire.readLong(buf), Wire.readBoolean(buf));
            Wire.end(buf);
            return r;
        }
    }

    /**
     * One datanode as the namenode sees it. {@code state} is {@link #SILENT}, {@link #ALIVE},
     * {@link #STOPPED} or {@link #UNREACHABLE} (one byte; 0 and 1 keep the layout of the earlier alive flag);
     * {@code shortCircuit} is what the datanode said at its last registration.
     */
    public record DatanodeStatus(int id, String host, int port, int storageClass, int state, long capacityBlocks,
                                 long freeBlocks, long silenceMs, boolean shortCircuit) {
        /** A datanode that offers no short-circuit access. */
        public DatanodeStatus(int id, String host, int port, int storageClass, int state, long capacityBlocks,
                              long freeBlocks, long silenceMs) {
            this(id, host, port, storageClass, state, capacityBlocks, freeBlocks, silenceMs, false);
        }

        /** Dead: silent for longer than the datanode timeout. */
        public static final int SILENT = 0;
        /** Heartbeating; blocks are allocated on it. */
        public static final int ALIVE = 1;
        /** Dead: it deregistered when it shut down. */
        public static final int STOPPED = 2;
        /**
         * Heartbeating as far as the namenode knows, but a client could not reach it: left out of
         * allocation until it heartbeats again after the report (its blocks are still served).
         */
        public static final int UNREACHABLE = 3;

        public DatanodeStatus {
            if (state < SILENT || state > UNREACHABLE) {
                throw new IllegalArgumentException("unknown datanode state " + state);
            }
        }

        public boolean alive() {
            return state == ALIVE;
        }

        /** "alive", "silent", "stopped" or "unreachable". */
        public String stateName() {
            return switch (state) {
                case ALIVE -> "alive";
                case STOPPED -> "stopped";
                case UNREACHABLE -> "unreachable";
                default -> "silent";
            };
        }

        void encode(ByteBuf buf) {
            buf.writeInt(id);
            Wire.writeString(buf, host);
            buf.writeShort(port);
            buf.writeByte(storageClass);
            buf.writeByte(state);
            buf.writeLong(capacityBlocks);
            buf.writeLong(freeBlocks);
            buf.writeLong(silenceMs);
            Wire.writeBoolean(buf, shortCircuit);
        }

        static DatanodeStatus decode(ByteBuf buf) {
            int id = Wire.readInt(buf);
            String host = Wire.readString(buf);
            int port = Wire.readUnsignedShort(buf);
            int storageClass = Wire.readUnsignedByte(buf);
            int state = Wire.readUnsignedByte(buf);
            if (state > UNREACHABLE) {
                throw new MalformedMessageException("unknown datanode state " + state);
            }
            return new DatanodeStatus(id, host, port, storageClass, state, Wire.readLong(buf), Wire.readLong(buf),
                    Wire.readLong(buf), Wire.readBoolean(buf));
        }
    }

    /** CLUSTER_STATUS response; {@code damagedFiles}: files with a lost or unavailable block at the last scan. */
    public record ClusterStatus(long uptimeMs, long files, long directories, long operations, int blockSize,
                                List<DatanodeStatus> datanodes, long damagedFiles) {
        /** A status with no damaged file. */
        public ClusterStatus(long uptimeMs, long files, long directories, long operations, int blockSize,
                             List<DatanodeStatus> datanodes) {
            this(uptimeMs, files, directories, operations, blockSize, datanodes, 0);
        }

        public void encode(ByteBuf buf) {
            buf.writeLong(uptimeMs);
            buf.writeLong(files);
            buf.writeLong(directories);
            buf.writeLong(operations);
            buf.writeInt(blockSize);
            buf.writeInt(datanodes.size());
            for (DatanodeStatus d : datanodes) {
                d.encode(buf);
            }
            buf.writeLong(damagedFiles);
        }

        public static ClusterStatus decode(ByteBuf buf) {
            long up = Wire.readLong(buf);
            long files = Wire.readLong(buf);
            long dirs = Wire.readLong(buf);
            long ops = Wire.readLong(buf);
            int bs = Wire.readInt(buf);
            int n = Wire.readInt(buf, 0, buf.readableBytes(), "datanode count");
            List<DatanodeStatus> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(DatanodeStatus.decode(buf));
            }
            long damaged = Wire.readLong(buf);
            Wire.end(buf);
            return new ClusterStatus(up, files, dirs, ops, bs, list, damaged);
        }
    }

    /** Most damaged files one FSCK answer lists (a namenode keeps at most this many from its scan). */
    public static final int MAX_FSCK_FILES = 10_000;

    /** FSCK request: list at most {@code max} of the damaged files. */
    public record FsckRequest(int max) {
        public void encode(ByteBuf buf) {
            buf.writeInt(max);
        }

        public static FsckRequest decode(ByteBuf buf) {
            FsckRequest r = new FsckRequest(Wire.readInt(buf, 0, MAX_FSCK_FILES, "max files"));
            Wire.end(buf);
            return r;
        }
    }

    /** A file of which {@code lost} blocks are lost and {@code unavailable} are on a datanode that is down. */
    public record DamagedFile(String path, long fileId, int blocks, int lost, int unavailable) {
        void encode(ByteBuf buf) {
            Wire.writeString(buf, path);
            buf.writeLong(fileId);
            buf.writeInt(blocks);
            buf.writeInt(lost);
            buf.writeInt(unavailable);
        }

        static DamagedFile decode(ByteBuf buf) {
            return new DamagedFile(Wire.readString(buf), Wire.readLong(buf), Wire.readInt(buf, 0, Integer.MAX_VALUE,
                    "blocks"), Wire.readInt(buf, 0, Integer.MAX_VALUE, "lost"),
                    Wire.readInt(buf, 0, Integer.MAX_VALUE, "unavailable"));
        }
    }

    /**
     * FSCK response: the namenode's last scan (when, in its clock's ms; 0 before the first) with its
     * totals, and the first of its damaged files in file table order.
     */
    public record FsckResponse(long scannedAtMs, long damagedFiles, long lostBlocks, long unavailableBlocks,
                               List<DamagedFile> files) {
        /** No scan has found anything. */
        public static final FsckResponse HEALTHY = new FsckResponse(0, 0, 0, 0, List.of());

        /** True when every block of every file could be read at the last scan. */
        public boolean healthy() {
            return damagedFiles == 0;
        }

        public void encode(ByteBuf buf) {
            buf.writeLong(scannedAtMs);
            buf.writeLong(damagedFiles);
            buf.writeLong(lostBlocks);
            buf.writeLong(unavailableBlocks);
            buf.writeInt(files.size());
            for (DamagedFile f : files) {
                f.encode(buf);
            }
        }

        public static FsckResponse decode(ByteBuf buf) {
            long at = Wire.readLong(buf);
            long damaged = Wire.readLong(buf);
            long lost = Wire.readLong(buf);
            long unavailable = Wire.readLong(buf);
            int n = Wire.readInt(buf, 0, MAX_FSCK_FILES, "file count");
            // Sized by what the body can hold, not by the count it claims.
            List<DamagedFile> files = new ArrayList<>(Math.min(n, buf.readableBytes() / MIN_DAMAGED_FILE_BYTES));
            for (int i = 0; i < n; i++) {
                files.add(DamagedFile.decode(buf));
            }
            Wire.end(buf);
            return new FsckResponse(at, damaged, lost, unavailable, files);
        }

        /** Encoded size of a damaged file with an empty path. */
        private static final int MIN_DAMAGED_FILE_BYTES = 2 + 8 + 4 * 3;
    }
}
