package io.tarn.datanode;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Audience;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.Opcode;
import io.tarn.common.protocol.ShortCircuitProtocol;
import io.tarn.common.security.BlockTokens;
import io.tarn.rpc.PayloadPlacement;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.function.IntPredicate;
import java.util.UUID;

/**
 * Serves WRITE_BLOCK, READ_BLOCK, SC_READ, SC_WRITE and PING on a datanode's RPC server, over any
 * {@link RegionStore}, and hands the {@code REPLICA} audience to the replication service when one is
 * set ({@link #serveReplicas}).
 *
 * <p>The datanode serves every namenode of the cluster: region {@code r} is managed by namenode
 * {@code r mod N} ({@link RegionShare}), which registered it and issues the tokens for its blocks.
 * A request for region {@code r} is therefore checked against that namenode's {@link Registration}
 * (its datanode id, token key and block size), so a token from one namenode never opens another's
 * region, and the regions of a namenode that is down or not registered yet stay closed while the
 * others' are served.
 *
 * <p>Every request is validated before memory is touched, in this order: the region exists
 * ({@code OUT_OF_RANGE}); the namenode managing it has registered this datanode
 * ({@code UNKNOWN_DATANODE}, naming that namenode); block, offset and length lie inside the block
 * ({@code OUT_OF_RANGE}); the body carries exactly the announced bytes ({@code MALFORMED_REQUEST});
 * the token grants the access ({@code INVALID_TOKEN}); the generation is current
 * ({@code STALE_GENERATION}, or {@code BLOCK_NOT_WRITTEN} for a read of a newer generation than the
 * block holds). Errors are answered with a message naming the block; a body too short for its
 * fixed part throws {@link io.tarn.common.protocol.MalformedMessageException}, which the transport
 * answers before closing that connection.
 *
 * <p>Runs on the transport's I/O threads: no locks, no blocking; the only per-request allocations
 * are the response and, for reads, the wrapper that hands region memory to the transport without
 * copying (choosing the registration is an array load). A write of at least
 * {@link PayloadPlacement#MIN_PAYLOAD} bytes is received straight into its block
 * ({@link #place}): once its access part has arrived and passed every check, the generation is
 * advanced and the socket is read into the region itself, so the data is never copied in this
 * process. A smaller write, or one whose data had all arrived by then, is copied once from the
 * request buffer into the region.
 *
 * <p>A placed write lands while it arrives, not all at once when complete. A block freed and given
 * to a newer writer meanwhile stops the placement before the next read (the rest is dropped and the
 * write refused with {@code STALE_GENERATION}); at most the read under way lands after the newer
 * generation, the same window as two writers copying at once. A write whose connection dies
 * mid-data leaves part of its bytes in the block under its own, already advanced, generation:
 * bytes past what its writer has published, which readers never see.
 *
 * <p>Zero-copy reads have one consequence worth knowing: the bytes leave the region when the
 * transport flushes them, so a block freed and rewritten with a newer generation while the
 * response still waits in the socket's queue sends the newer bytes. Writers only reuse a block
 * after the namenode freed it, so a reader racing that is already reading a deleted file.
 *
 * <p>Short-circuit requests ({@link ShortCircuitProtocol}) pass the same checks, in the same order,
 * and count in the same metrics as the TCP requests they stand for; a short-circuit write advances
 * the block's generation exactly as a TCP write does. Only the bytes do not travel: the answer is a
 * grant naming the storage directory whose files the co-located client maps. A datanode without
 * such files (direct memory) or with short-circuit switched off answers every such request with a
 * refusal, before any check, and the client uses TCP.
 */
public final class BlockService implements RpcHandler, PayloadPlacement {
    private static final Logger LOG = LoggerFactory.getLogger(BlockService.class);

    private final RegionStore store;
    private final DatanodeMetrics metrics;
    private final FastThreadLocal<DatanodeProtocol.Access> access = new FastThreadLocal<>() {
        @Override
        protected DatanodeProtocol.Access initialValue() {
            return new DatanodeProtocol.Access();
        }
    };
    /** "namenode p (host:port)" for each partition, for error messages. */
    private final String[] namenodes;
    /** The current registration of each partition (null until its first); replaced whole, never written into. */
    private volatile Registration[] registrations;
    /**
     * Per namenode, its registration before its block token key last changed (it restarted without
     * its journal), to tell a client why a token of that time is refused; null entries when none.
     */
    private volatile Registration[] formerKeys;
    /** The storage co-located clients may map, or null when short-circuit access is not offered. */
    private final LocalFiles localFiles;
    /** Why short-circuit access is not offered (when {@link #localFiles} is null). */
    private final String noShortCircuit;
    /** The handler of the {@code REPLICA} audience (other datanodes' replication messages), or null. */
    private volatile RpcHandler replicas;
    /** Which regions hold a replica of a block group: written only through the group (GROUP_WRITE). */
    private volatile IntPredicate replicated = region -> false;
    private volatile Runnable regionFault = () -> { };

    /**
     * The files of a datanode's storage that co-located clients may map for short-circuit access.
     *
     * @param storageId the storage's id, as written in its generation table's header
     * @param directory the directory holding the region files and the generation table
     */
    public record LocalFiles(UUID storageId, String directory) {
    }

    /**
     * @param namenodes the namenodes' addresses in partition order ({@code tarn.namenode.address});
     *                  the store must have at least one region per namenode
     */
    public BlockService(RegionStore store, DatanodeMetrics metrics, List<String> namenodes) {
        this(store, metrics, namenodes, null, "this datanode has no files to share");
    }

    /**
     * @param localFiles     the storage co-located clients may map, or null to answer every
     *                       short-circuit request with a refusal
     * @param noShortCircuit the refusal's reason when {@code localFiles} is null
     */
    public BlockService(RegionStore store, DatanodeMetrics metrics, List<String> namenodes, LocalFiles localFiles,
                        String noShortCircuit) {
        if (namenodes.isEmpty() || namenodes.size() > store.regionCount()) {
            throw new IllegalArgumentException(store.regionCount() + " regions cannot be shared by "
                    + namenodes.size() + " namenodes");
        }
        this.store = store;
        this.metrics = metrics;
        this.namenodes = new String[namenodes.size()];
        for (int p = 0; p < namenodes.size(); p++) {
            this.namenodes[p] = "namenode " + p + " (" + namenodes.get(p) + ")";
        }
        this.registrations = new Registration[namenodes.size()];
        this.formerKeys = new Registration[namenodes.size()];
        this.localFiles = localFiles != null && !ShortCircuitProtocol.bootId().isEmpty() ? localFiles : null;
        this.noShortCircuit = localFiles == null ? noShortCircuit : "this host has no boot id to compare";
    }

    /** True when co-located clients are offered short-circuit access. */
    public boolean offersShortCircuit() {
        return localFiles != null;
    }

    /**
     * Starts (or keeps) serving one namenode's regions under its new registration; requests for them
     * before its first registration are refused. Every namenode's registration must use the same
     * generation table (so the same block size): the table covers all regions.
     */
    public synchronized void register(int partition, Registration next) {
        if ((long) next.blocksPerRegion() * next.blockSize() != store.regionSize()
                || next.generations().regionCount() != store.regionCount()) {
            throw new IllegalArgumentException("registration's generation table does not match the "
                    + store.regionCount() + " regions of " + store.regionSize() + " bytes");
        }
        Registration[] updated = registrations.clone();
        for (int p = 0; p < updated.length; p++) {
            if (p != partition && updated[p] != null && updated[p].generations() != next.generations()) {
                throw new IllegalArgumentException(namenodes[partition] + " carves blocks of " + next.blockSize()
                        + " bytes, but " + namenodes[p] + " registered blocks of " + updated[p].blockSize()
                        + " bytes: every namenode must use the same tarn.blocksize");
            }
        }
        Registration before = updated[partition];
        if (before != null && !sameKey(before.tokens(), next.tokens())) {
            keepFormer(partition, before);
        }
        updated[partition] = next;
        registrations = updated;
    }

    /**
     * Stops serving namenode {@code partition}'s tokens before its regions' generations are reset,
     * when it registers again under a new key after a restart without its journal. Until its new
     * registration, its tokens are refused (those of before the restart naming it) and nothing is
     * read at a generation the reset is about to drop or written at one it would undo.
     */
    public synchronized void retire(int partition) {
        Registration before = registrations[partition];
        if (before == null) {
            return;
        }
        keepFormer(partition, before);
        Registration[] updated = registrations.clone();
        updated[partition] = null;
        registrations = updated;
    }

    private void keepFormer(int partition, Registration before) {
        Registration[] keys = formerKeys.clone();
        keys[partition] = before;
        formerKeys = keys;
        LOG.warn("{} now issues block tokens under a new key: it restarted without its journal "
                + "(tarn.namenode.journal = none), so the files it served are gone, or another member of its "
                + "replicated group took the lead (each member has its own key); the tokens it issued before "
                + "are refused, naming the change", namenodes[partition]);
    }

    private static boolean sameKey(BlockTokens a, BlockTokens b) {
        return a.fingerprint() == b.fingerprint();
    }

    /**
     * What the access's token is worth for {@code mode}, checked with the keys of the namenode that
     * issued it (the stamp names it; a namenode that adopted a file from another issues the tokens of
     * its blocks in the other's regions).
     */
    private BlockTokens.Verdict verdict(DatanodeProtocol.Access a, int mode) {
        long stamp = a.tokenStamp();
        int p = BlockTokens.issuer(stamp);
        Registration[] regs = registrations;
        Registration issuer = p < regs.length ? regs[p] : null;
        if (issuer == null) {
            return BlockTokens.Verdict.UNKNOWN_KEY;
        }
        return issuer.tokens().check(a.token(), stamp, issuer.datanodeId(), a.regionId(), a.blockIndex(),
                a.generation(), mode);
    }

    /**
     * True when the access's token grants {@code mode} now; otherwise answers TOKEN_EXPIRED (the
     * client asks the namenode for the block again) or INVALID_TOKEN, saying why.
     */
    private boolean granted(RpcRequest request, DatanodeProtocol.Access a, int mode, String what) {
        BlockTokens.Verdict v = verdict(a, mode);
        switch (v) {
            case VALID -> {
                return true;
            }
            case EXPIRED -> fail(request, ErrorCode.TOKEN_EXPIRED, describe(request, a) + ": the token ("
                    + BlockTokens.describe(a.tokenStamp()) + ") has expired; ask the namenode for the block again");
            case UNKNOWN_KEY -> fail(request, ErrorCode.INVALID_TOKEN, formerKeyGrants(a, mode)
                    ? tokenRefused(request, a, mode, what) // its namenode is registering again under a new key
                    : describe(request, a) + ": the token is under " + BlockTokens.describe(a.tokenStamp())
                    + ", a key this datanode does not hold (the token is older than the keys it keeps, or that "
                    + "namenode has not answered its heartbeats lately)");
            default -> fail(request, ErrorCode.INVALID_TOKEN, tokenRefused(request, a, mode, what));
        }
        return false;
    }

    /** True when the access's token is valid under its namenode's key of before the key last changed. */
    private boolean formerKeyGrants(DatanodeProtocol.Access a, int mode) {
        int partition = BlockTokens.issuer(a.tokenStamp());
        Registration former = partition < formerKeys.length ? formerKeys[partition] : null;
        return former != null && former.tokens().check(a.token(), a.tokenStamp(), former.datanodeId(), a.regionId(),
                a.blockIndex(), a.generation(), mode) == BlockTokens.Verdict.VALID;
    }

    /**
     * The INVALID_TOKEN message for {@code what} ("reading", "writing") refused:
     * when the token was issued under the namenode's key before it changed (the namenode restarted
     * without its journal), it says so and what that means, instead of only that it does not grant
     * the access.
     */
    private String tokenRefused(RpcRequest request, DatanodeProtocol.Access a, int mode, String what) {
        if (formerKeyGrants(a, mode)) {
            int partition = BlockTokens.issuer(a.tokenStamp());
            return describe(request, a) + ": the token was issued by " + namenodes[partition] + " before it "
                    + "restarted without its journal (tarn.namenode.journal = none) and changed its block token key; "
                    + "the namespace that named this block is gone with it, so the file must be written again";
        }
        return describe(request, a) + ": the token does not grant " + what;
    }

    /**
     * Serves the {@code REPLICA} audience (messages of block groups' replication between datanodes)
     * with {@code handler}; until then such requests are answered UNKNOWN_OPCODE.
     */
    public void serveReplicas(RpcHandler handler) {
        this.replicas = handler;
    }

    /**
     * Names the regions that hold a replica of a block group: WRITE_BLOCK and SC_WRITE into them are
     * refused (INVALID_ARGUMENT), since a replica written directly would differ from the others;
     * writes go through the group's leader (GROUP_WRITE). Reads are served as for any region.
     */
    public void guardReplicas(IntPredicate replicatedRegion) {
        this.replicated = replicatedRegion;
    }

    /**
     * Told (on the I/O thread) when writing into a region faulted: its memory may be gone (a mapped
     * file cut short), so the store should be looked at again now rather than at the next heartbeat.
     */
    public void onRegionFault(Runnable listener) {
        this.regionFault = listener;
    }

    /** The registration of one namenode, or null before its first. */
    public Registration registration(int partition) {
        return registrations[partition];
    }

    @Override
    public void handle(RpcRequest request) {
        try {
            dispatch(request);
        } catch (InternalError e) {
            // A fault in mapped memory that surfaced outside the write's own guard: look at the
            // regions now; the transport closes the connection of the request it interrupted.
            regionFault.run();
            throw e;
        }
    }

    private void dispatch(RpcRequest request) {
        switch (request.opcode()) {
            case Opcode.WRITE_BLOCK:
                write(request);
                break;
            case Opcode.READ_BLOCK:
                read(request);
                break;
            case Opcode.SC_READ:
                shortCircuit(request, false);
                break;
            case Opcode.SC_WRITE:
                shortCircuit(request, true);
                break;
            case Opcode.PING:
                metrics.pinged();
                request.send(request.response());
                break;
            case Opcode.GROUP_WRITE:
            case Opcode.GROUP_READ:
                RpcHandler groups = replicas;
                if (groups == null) {
                    fail(request, ErrorCode.UNKNOWN_GROUP, "this datanode hosts no block group yet");
                } else {
                    replica(groups, request);
                }
                break;
            default:
                RpcHandler r = replicas;
                if (r != null && Opcode.audience(request.opcode()) == Audience.REPLICA) {
                    replica(r, request);
                    break;
                }
                fail(request, ErrorCode.UNKNOWN_OPCODE, "a datanode does not serve " + Opcode.name(request.opcode()));
                break;
        }
    }

    private void replica(RpcHandler r, RpcRequest request) {
        try {
            r.handle(request);
        } catch (RuntimeException e) {
            throw e; // malformed messages are the transport's to answer
        } catch (Exception e) {
            fail(request, ErrorCode.INTERNAL, "the replication service failed: " + e);
        }
    }

    private void write(RpcRequest request) {
        DatanodeProtocol.Access a = access.get();
        Registration reg = admit(request, a);
        if (reg == null || refusedAsReplica(request, a)) {
            return;
        }
        ByteBuf body = request.body();
        int region = a.regionId();
        int block = a.blockIndex();
        int generation = a.generation();
        int length = a.length();
        int placed = request.placedBytes();
        GenerationTable generations = reg.generations();
        if (placed >= 0 && placed < length) {
            fail(request, ErrorCode.STALE_GENERATION, describe(request, a) + ": the block was given generation "
                    + generations.get(region, block) + " while the data arrived; the rest of it was dropped");
            return;
        }
        int carried = body.readableBytes() - DatanodeProtocol.ACCESS_LENGTH + Math.max(placed, 0);
        if (carried != length) {
            fail(request, ErrorCode.MALFORMED_REQUEST, describe(request, a)
                    + ": announces " + length + " data bytes but carries " + carried);
            return;
        }
        if (!granted(request, a, BlockTokens.WRITE, "writing")) {
            return;
        }
        if (!generations.advance(region, block, generation)) {
            fail(request, ErrorCode.STALE_GENERATION, describe(request, a)
                    + ": the block already holds generation " + generations.get(region, block));
            return;
        }
        ByteBuf response;
        try {
            if (placed < 0) {
                store.write(region, (long) block * reg.blockSize() + a.offset(), body, a.dataIndex(), length);
            }
            // A fault in compiled code surfaces at the thread's next safepoint check, not in the copy:
            // the answer is made inside the same guard, before anything is sent.
            response = request.response();
        } catch (InternalError e) {
            // The JVM's answer to a fault in mapped memory (SIGBUS): the region's file lost pages.
            regionFault.run();
            String lost = store.failure(region);
            fail(request, ErrorCode.DATA_LOST, describe(request, a) + ": the region's memory faulted ("
                    + (lost != null ? lost : e.getMessage()) + "); the data was not stored");
            return;
        }
        metrics.wrote(length);
        request.send(response);
    }

    /** Refuses a direct write into a block group's replica; true when it did. */
    private boolean refusedAsReplica(RpcRequest request, DatanodeProtocol.Access a) {
        if (!replicated.test(a.regionId())) {
            return false;
        }
        fail(request, ErrorCode.INVALID_ARGUMENT, describe(request, a) + ": the region holds a replica of a block "
                + "group; write it through the group's leader (GROUP_WRITE)");
        return true;
    }

    @Override
    public int headLength(int opcode) {
        return opcode == Opcode.WRITE_BLOCK ? DatanodeProtocol.ACCESS_LENGTH : -1;
    }

    /**
     * WRITE_BLOCK's data straight into the block, when the write passes every check {@link #write}
     * makes; its generation is advanced now, before any byte lands. Anything refused is received
     * as usual and then refused by {@link #write} with the reason.
     */
    @Override
    public PayloadPlacement.Target place(int opcode, ByteBuf head, int payloadLength) {
        DatanodeProtocol.Access a = access.get().wrap(head);
        Registration reg = registration(a);
        if (reg == null || !insideBlock(reg, a) || a.length() != payloadLength) {
            return null;
        }
        int region = a.regionId();
        int block = a.blockIndex();
        int generation = a.generation();
        if (replicated.test(region) || store.failure(region) != null
                || verdict(a, BlockTokens.WRITE) != BlockTokens.Verdict.VALID
                || !reg.generations().advance(region, block, generation)) {
            return null;
        }
        ByteBuf memory = store.writable(region, (long) block * reg.blockSize() + a.offset(), payloadLength);
        return new PlacedWrite(memory, reg.generations(), region, block, generation);
    }

    /** A write's data being received into its block; valid while the block keeps the write's generation. */
    private record PlacedWrite(ByteBuf memory, GenerationTable generations, int region, int block, int generation)
            implements PayloadPlacement.Target {
        @Override
        public boolean stillValid() {
            return generations.get(region, block) == generation;
        }
    }

    private void read(RpcRequest request) {
        DatanodeProtocol.Access a = access.get();
        Registration reg = admit(request, a);
        if (reg == null) {
            return;
        }
        ByteBuf body = request.body();
        int region = a.regionId();
        int block = a.blockIndex();
        int generation = a.generation();
        int length = a.length();
        if (body.readableBytes() != DatanodeProtocol.ACCESS_LENGTH) {
            fail(request, ErrorCode.MALFORMED_REQUEST, describe(request, a)
                    + ": " + (body.readableBytes() - DatanodeProtocol.ACCESS_LENGTH) + " unexpected trailing bytes");
            return;
        }
        if (!granted(request, a, BlockTokens.READ, "reading")) {
            return;
        }
        if (!readable(request, a, reg)) {
            return;
        }
        ByteBuf data = store.read(region, (long) block * reg.blockSize() + a.offset(), length);
        metrics.read(length);
        request.sendWithPayload(request.response(), data);
    }

    /** True when the block holds the request's generation; otherwise answers why not. */
    private boolean readable(RpcRequest request, DatanodeProtocol.Access a, Registration reg) {
        int generation = a.generation();
        int stored = reg.generations().get(a.regionId(), a.blockIndex());
        if (generation < stored) {
            fail(request, ErrorCode.STALE_GENERATION, describe(request, a)
                    + ": the block now holds generation " + stored);
            return false;
        }
        if (generation > stored) {
            fail(request, ErrorCode.BLOCK_NOT_WRITTEN, describe(request, a)
                    + ": the block holds generation " + stored + " (this generation was never written here)");
            return false;
        }
        return true;
    }

    /**
     * SC_READ and SC_WRITE: every check of READ_BLOCK or WRITE_BLOCK (a write advances the
     * generation), then a grant instead of the data.
     */
    private void shortCircuit(RpcRequest request, boolean write) {
        if (localFiles == null) {
            ByteBuf response = request.response();
            ShortCircuitProtocol.Grant.refused(noShortCircuit).write(response);
            request.send(response);
            return;
        }
        DatanodeProtocol.Access a = access.get();
        Registration reg = admit(request, a);
        if (reg == null || write && refusedAsReplica(request, a)) {
            return;
        }
        if (request.body().readableBytes() != DatanodeProtocol.ACCESS_LENGTH) {
            fail(request, ErrorCode.MALFORMED_REQUEST, describe(request, a) + ": "
                    + (request.body().readableBytes() - DatanodeProtocol.ACCESS_LENGTH) + " unexpected trailing bytes");
            return;
        }
        int region = a.regionId();
        int block = a.blockIndex();
        int generation = a.generation();
        String unshared = store.notShareable(region);
        if (unshared != null) {
            ByteBuf response = request.response();
            ShortCircuitProtocol.Grant.refused("region " + region + " is served over TCP only: " + unshared)
                    .write(response);
            request.send(response);
            return;
        }
        if (!granted(request, a, write ? BlockTokens.WRITE : BlockTokens.READ, write ? "writing" : "reading")) {
            return;
        }
        if (write) {
            GenerationTable generations = reg.generations();
            if (!generations.advance(region, block, generation)) {
                fail(request, ErrorCode.STALE_GENERATION, describe(request, a)
                        + ": the block already holds generation " + generations.get(region, block));
                return;
            }
            metrics.wrote(a.length());
        } else {
            if (!readable(request, a, reg)) {
                return;
            }
            metrics.read(a.length());
        }
        metrics.shortCircuited();
        ByteBuf response = request.response();
        new ShortCircuitProtocol.Grant(true, localFiles.storageId(), store.regionSize(), reg.blockSize(),
                ShortCircuitProtocol.bootId(), localFiles.directory(), "").write(response);
        request.send(response);
    }

    /**
     * The checks every block access starts with: the region exists, the namenode managing it has
     * registered this datanode, and the addressed bytes lie inside one of its blocks. Points
     * {@code a} at the request's access part (throwing
     * {@link io.tarn.common.protocol.MalformedMessageException} when the body is too short for it).
     *
     * @return the registration to check the rest against, or null when the request was refused (and
     *         answered)
     */
    private Registration admit(RpcRequest request, DatanodeProtocol.Access a) {
        a.wrap(request.body());
        Registration reg = registration(a);
        if (reg == null) {
            int region = a.regionId();
            if (region < 0 || region >= store.regionCount()) {
                fail(request, ErrorCode.OUT_OF_RANGE, describe(request, a) + ": no such region (this datanode has "
                        + store.regionCount() + ")");
            } else if (formerKeyGrants(a, BlockTokens.READ)) {
                // Its namenode restarted without its journal and is registering again (retired):
                // the token is of before, and no new registration will make it good.
                fail(request, ErrorCode.INVALID_TOKEN, tokenRefused(request, a, BlockTokens.READ, "access"));
            } else {
                fail(request, ErrorCode.UNKNOWN_DATANODE, describe(request, a) + ": this datanode is not registered "
                        + "yet with " + namenodes[RegionShare.owner(region, namenodes.length)] + ", which manages "
                        + "the region; it keeps trying");
            }
            return null;
        }
        if (insideBlock(reg, a)) {
            String lost = store.failure(a.regionId());
            if (lost != null) {
                fail(request, ErrorCode.DATA_LOST, describe(request, a) + ": region " + a.regionId() + " of this "
                        + "datanode is out of service and every block in it is lost (" + lost + ")");
                return null;
            }
            return reg;
        }
        int offset = a.offset();
        int length = a.length();
        String problem = a.blockIndex() < 0 || a.blockIndex() >= reg.blocksPerRegion()
                ? "no such block (a region has " + reg.blocksPerRegion() + ")"
                : "offset " + offset + " and length " + length + " leave the block of " + reg.blockSize() + " bytes";
        fail(request, ErrorCode.OUT_OF_RANGE, describe(request, a) + ": " + problem);
        return null;
    }

    /** The registration covering the access's region, or null when there is no such region or it has none yet. */
    private Registration registration(DatanodeProtocol.Access a) {
        int region = a.regionId();
        if (region < 0 || region >= store.regionCount()) {
            return null;
        }
        return registrations[RegionShare.owner(region, namenodes.length)];
    }

    /** True when the access's block exists and its offset and length lie inside it. */
    private static boolean insideBlock(Registration reg, DatanodeProtocol.Access a) {
        int block = a.blockIndex();
        int offset = a.offset();
        int length = a.length();
        return block >= 0 && block < reg.blocksPerRegion()
                && offset >= 0 && length >= 0 && (long) offset + length <= reg.blockSize();
    }

    /** "OPCODE region r block b generation g", for error messages. */
    private static String describe(RpcRequest request, DatanodeProtocol.Access a) {
        return Opcode.name(request.opcode()) + " region " + a.regionId() + " block " + a.blockIndex() + " generation "
                + a.generation();
    }

    private void fail(RpcRequest request, ErrorCode code, String message) {
        metrics.failed(code);
        request.fail(code, message);
    }
}
