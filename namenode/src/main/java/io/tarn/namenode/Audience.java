package io.tarn.namenode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.RpcRequest;

import java.util.Arrays;

/**
 * Who sends each namenode operation, and so which handler serves it: the dispatch table of
 * {@link NamenodeService#handle}. Membership follows the senders in the code: clients
 * ({@code NamenodeClient}), other namenodes (the directory coordinator, the file mover and a
 * starting namenode copying the tree), datanodes ({@code NamenodeLink}) and administration tools.
 *
 * <p>{@link #of} is a bounds check and one array load: no allocation, no lock. Every opcode
 * belongs to at most one audience; the rest are {@link #NONE}, answered UNKNOWN_OPCODE by
 * {@link #refuse}, as is any opcode a handler is handed but does not serve.
 */
enum Audience {
    /** Namespace and file operations of clients; served by {@link ClientHandler}. */
    CLIENT(Opcode.GET_FILE, Opcode.CREATE, Opcode.MKDIRS, Opcode.GET_BLOCK, Opcode.CLOSE, Opcode.LIST,
            Opcode.DELETE, Opcode.RENAME, Opcode.RENEW_LEASE, Opcode.SYNC, Opcode.SET_ATTR, Opcode.APPEND,
            Opcode.GET_BLOCKS, Opcode.GET_PARTITIONS, Opcode.WHERE_MOVED, Opcode.ALLOCATE_BLOCKS),
    /** Directory changes, file moves and tree copies between namenodes; served by {@link PeerHandler}. */
    PEER(Opcode.DIR_MKDIR, Opcode.DIR_DELETE, Opcode.DIR_RENAME, Opcode.DIR_SET_ATTR, Opcode.DIR_SEAL,
            Opcode.DIR_UNSEAL, Opcode.FILE_ADOPT, Opcode.FILE_ADOPT_UNDO, Opcode.FREE_BLOCKS, Opcode.DIR_SNAPSHOT),
    /** Registration, heartbeats and clean stops of datanodes; served by {@link DatanodeHandler}. */
    DATANODE(Opcode.REGISTER_DATANODE, Opcode.HEARTBEAT, Opcode.DEREGISTER_DATANODE),
    /** Status and liveness probes of tools and operators; served by {@link AdminHandler}. */
    ADMIN(Opcode.CLUSTER_STATUS, Opcode.PING),
    /** Not a namenode operation. */
    NONE();

    /** The audience of every opcode up to the highest served; above it, none. */
    private static final Audience[] BY_OPCODE;

    static {
        int highest = 0;
        for (Audience a : values()) {
            for (int op : a.opcodes) {
                highest = Math.max(highest, op);
            }
        }
        BY_OPCODE = new Audience[highest + 1];
        Arrays.fill(BY_OPCODE, NONE);
        for (Audience a : values()) {
            for (int op : a.opcodes) {
                if (BY_OPCODE[op] != NONE) {
                    throw new IllegalStateException(Opcode.name(op) + " is both " + BY_OPCODE[op] + " and " + a);
                }
                BY_OPCODE[op] = a;
            }
        }
    }

    private final int[] opcodes;

    Audience(int... opcodes) {
        this.opcodes = opcodes;
    }

    /** The audience of {@code opcode}; {@link #NONE} when the namenode does not serve it. */
    static Audience of(int opcode) {
        return opcode >= 0 && opcode < BY_OPCODE.length ? BY_OPCODE[opcode] : NONE;
    }

    /** The opcodes of this audience (a copy). */
    int[] opcodes() {
        return opcodes.clone();
    }

    /** Answers an operation the namenode does not serve: UNKNOWN_OPCODE, naming it. */
    static void refuse(RpcRequest request) {
        request.fail(ErrorCode.UNKNOWN_OPCODE, "the namenode does not serve operation "
                + Opcode.name(request.opcode()));
    }
}
