package io.tarn.common.protocol;

/**
 * Operation numbers. Stable on the wire: never renumber; add new ones with fresh numbers.
 * 1-99 are namenode operations, 100-199 datanode operations, 200+ common ones.
 */
public final class Opcode {
    private Opcode() {
    }

    // namenode: namespace
    public static final int GET_FILE = 1;
    public static final int CREATE = 2;
    public static final int MKDIRS = 3;
    public static final int GET_BLOCK = 4;
    public static final int CLOSE = 5;
    public static final int LIST = 6;
    public static final int DELETE = 7;
    public static final int RENAME = 8;
    public static final int RENEW_LEASE = 9;
    public static final int SYNC = 10;
    public static final int SET_ATTR = 11;
    public static final int APPEND = 12;
    public static final int GET_BLOCKS = 13;
    public static final int GET_PARTITIONS = 14;
    public static final int WHERE_MOVED = 15;
    /** Write locations of several consecutive blocks, allocating those the file lacks (a writer's blocks ahead). */
    public static final int ALLOCATE_BLOCKS = 16;
    // namenode to namenode: the directory coordinator (partition 0) replicating directory changes
    public static final int DIR_MKDIR = 30;
    public static final int DIR_DELETE = 31;
    public static final int DIR_RENAME = 32;
    public static final int DIR_SET_ATTR = 33;
    public static final int DIR_SEAL = 34;
    public static final int DIR_UNSEAL = 35;
    // namenode to namenode: a file renamed to a name another namenode owns moves there
    public static final int FILE_ADOPT = 36;
    public static final int FILE_ADOPT_UNDO = 37;
    public static final int FREE_BLOCKS = 38;
    // namenode to namenode: a starting namenode copies the directory tree of a running one
    public static final int DIR_SNAPSHOT = 39;
    // namenode: datanodes and administration
    public static final int REGISTER_DATANODE = 20;
    public static final int HEARTBEAT = 21;
    public static final int CLUSTER_STATUS = 22;
    public static final int DEREGISTER_DATANODE = 23;

    // datanode
    public static final int WRITE_BLOCK = 100;
    public static final int READ_BLOCK = 101;
    /** Short-circuit read: the checks of READ_BLOCK, the data copied by the co-located client. */
    public static final int SC_READ = 102;
    /** Short-circuit write: the checks of WRITE_BLOCK, the data copied by the co-located client. */
    public static final int SC_WRITE = 103;

    // any server
    public static final int PING = 200;

    /**
     * True for calls that change nothing at the server, so sending one twice is harmless: a client
     * whose connection is lost before the answer sends such a call once more on a new connection
     * (the usual case: the server restarted), instead of failing it.
     */
    public static boolean isReadOnly(int opcode) {
        switch (opcode) {
            case GET_FILE, LIST, GET_BLOCKS, GET_PARTITIONS, WHERE_MOVED, DIR_SNAPSHOT, CLUSTER_STATUS, PING,
                 READ_BLOCK, SC_READ:
                return true;
            default:
                return false;
        }
    }

    /**
     * True for the calls of the namenode and administration protocols (below {@link #WRITE_BLOCK}),
     * whose answers decode into values that keep no buffer of the answer.
     */
    public static boolean isMetadata(int opcode) {
        return opcode >= 0 && opcode < WRITE_BLOCK;
    }

    /** A name for logs and errors. */
    public static String name(int opcode) {
        switch (opcode) {
            case GET_FILE: return "GET_FILE";
            case CREATE: return "CREATE";
            case MKDIRS: return "MKDIRS";
            case GET_BLOCK: return "GET_BLOCK";
            case CLOSE: return "CLOSE";
            case LIST: return "LIST";
            case DELETE: return "DELETE";
            case RENAME: return "RENAME";
            case RENEW_LEASE: return "RENEW_LEASE";
            case SYNC: return "SYNC";
            case SET_ATTR: return "SET_ATTR";
            case APPEND: return "APPEND";
            case GET_BLOCKS: return "GET_BLOCKS";
            case GET_PARTITIONS: return "GET_PARTITIONS";
            case WHERE_MOVED: return "WHERE_MOVED";
            case ALLOCATE_BLOCKS: return "ALLOCATE_BLOCKS";
            case DIR_MKDIR: return "DIR_MKDIR";
            case DIR_DELETE: return "DIR_DELETE";
            case DIR_RENAME: return "DIR_RENAME";
            case DIR_SET_ATTR: return "DIR_SET_ATTR";
            case DIR_SEAL: return "DIR_SEAL";
            case DIR_UNSEAL: return "DIR_UNSEAL";
            case FILE_ADOPT: return "FILE_ADOPT";
            case FILE_ADOPT_UNDO: return "FILE_ADOPT_UNDO";
            case FREE_BLOCKS: return "FREE_BLOCKS";
            case DIR_SNAPSHOT: return "DIR_SNAPSHOT";
            case REGISTER_DATANODE: return "REGISTER_DATANODE";
            case HEARTBEAT: return "HEARTBEAT";
            case CLUSTER_STATUS: return "CLUSTER_STATUS";
            case DEREGISTER_DATANODE: return "DEREGISTER_DATANODE";
            case WRITE_BLOCK: return "WRITE_BLOCK";
            case READ_BLOCK: return "READ_BLOCK";
            case SC_READ: return "SC_READ";
            case SC_WRITE: return "SC_WRITE";
            case PING: return "PING";
            default: return "OP_" + opcode;
        }
    }
}
