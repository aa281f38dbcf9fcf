package io.tarn.common.protocol;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static io.tarn.common.protocol.Audience.ADMIN;
import static io.tarn.common.protocol.Audience.CLIENT;
import static io.tarn.common.protocol.Audience.DATA;
import static io.tarn.common.protocol.Audience.DATANODE;
import static io.tarn.common.protocol.Audience.HANDSHAKE;
import static io.tarn.common.protocol.Audience.PEER;
import static io.tarn.common.protocol.Audience.REPLICA;

/**
 * The table of operations: each number with its {@link Audience} and whether it is read-only, declared
 * once, next to its constant. Numbers are stable on the wire: never renumber; add new ones with fresh
 * numbers (1-99 namenode operations, 100-199 datanode operations, 200+ any server's). The table is
 * read once when the class loads, which fails on a number used twice or a constant without its
 * {@link Op}; lookups afterwards are an array load.
 */
public final class Opcode {
    /** An operation's entry in the table. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.FIELD)
    @interface Op {
        /** Who sends it. */
        Audience audience();

        /**
         * True when it changes nothing at the server, so sending it twice is harmless: a client whose
         * connection is lost before the answer sends it once more on a new connection (the usual
         * case: the server restarted) instead of failing it.
         */
        boolean readOnly() default false;
    }

    private Opcode() {
    }

    // Clients to a namenode: namespace, blocks, leases.
    @Op(audience = CLIENT, readOnly = true) public static final int GET_FILE = 1;
    @Op(audience = CLIENT) public static final int CREATE = 2;
    @Op(audience = CLIENT) public static final int MKDIRS = 3;
    @Op(audience = CLIENT) public static final int GET_BLOCK = 4;
    @Op(audience = CLIENT) public static final int CLOSE = 5;
    @Op(audience = CLIENT, readOnly = true) public static final int LIST = 6;
    @Op(audience = CLIENT) public static final int DELETE = 7;
    @Op(audience = CLIENT) public static final int RENAME = 8;
    @Op(audience = CLIENT) public static final int RENEW_LEASE = 9;
    @Op(audience = CLIENT) public static final int SYNC = 10;
    @Op(audience = CLIENT) public static final int SET_ATTR = 11;
    @Op(audience = CLIENT) public static final int APPEND = 12;
    @Op(audience = CLIENT, readOnly = true) public static final int GET_BLOCKS = 13;
    @Op(audience = CLIENT, readOnly = true) public static final int GET_PARTITIONS = 14;
    /** The new id of a file that moved from this namenode to another. */
    @Op(audience = CLIENT, readOnly = true) public static final int WHERE_MOVED = 15;
    /** Write locations of several consecutive blocks, allocating those the file lacks (a writer's blocks ahead). */
    @Op(audience = CLIENT) public static final int ALLOCATE_BLOCKS = 16;
    /** A file's replication while it holds no data, or a directory's default for new files. */
    @Op(audience = CLIENT) public static final int SET_REPLICATION = 17;
    /** The replication of a file, or the one a file created at a path would inherit. */
    @Op(audience = CLIENT, readOnly = true) public static final int GET_REPLICATION = 18;
    /** A new block in place of an unwritten one whose datanode the writer could not reach. */
    @Op(audience = CLIENT) public static final int REPLACE_BLOCK = 19;
    /**
     * A client's mutation carrying its client id and call id ({@code clientId[i64] callId[i64]
     * opcode[u16]} then the mutation's own body), so that a replicated namenode group applies it at
     * most once however often, and to whichever member, it is sent: the answer of a call already
     * made is answered again from the group's retry cache.
     */
    @Op(audience = CLIENT) public static final int ONCE = 25;

    // Datanodes to a namenode.
    @Op(audience = DATANODE) public static final int REGISTER_DATANODE = 20;
    @Op(audience = DATANODE) public static final int HEARTBEAT = 21;
    @Op(audience = DATANODE) public static final int DEREGISTER_DATANODE = 23;

    // Tools to a namenode, or to any server.
    @Op(audience = ADMIN, readOnly = true) public static final int CLUSTER_STATUS = 22;
    /** The files with lost or unavailable blocks, as the namenode's last scan found them. */
    @Op(audience = ADMIN, readOnly = true) public static final int FSCK = 24;
    @Op(audience = ADMIN, readOnly = true) public static final int PING = 200;

    // Any connection to any server, first: the authentication handshake (SecretHandshake).
    @Op(audience = HANDSHAKE) public static final int AUTH_HELLO = 201;
    @Op(audience = HANDSHAKE) public static final int AUTH_PROOF = 202;

    // Namenode to namenode: the directory coordinator (partition 0) replicating directory changes.
    @Op(audience = PEER) public static final int DIR_MKDIR = 30;
    @Op(audience = PEER) public static final int DIR_DELETE = 31;
    @Op(audience = PEER) public static final int DIR_RENAME = 32;
    @Op(audience = PEER) public static final int DIR_SET_ATTR = 33;
    @Op(audience = PEER) public static final int DIR_SEAL = 34;
    @Op(audience = PEER) public static final int DIR_UNSEAL = 35;
    // Namenode to namenode: a file renamed to a name another namenode owns moves there.
    @Op(audience = PEER) public static final int FILE_ADOPT = 36;
    // Did the receiver adopt a file (answered for good: an adoption not seen by then never happens)?
    @Op(audience = PEER) public static final int FILE_ADOPTION = 37;
    @Op(audience = PEER) public static final int FREE_BLOCKS = 38;
    // Namenode to namenode: a starting namenode copies the directory tree of a running one.
    @Op(audience = PEER, readOnly = true) public static final int DIR_SNAPSHOT = 39;
    // Namenode to namenode: the coordinator setting a directory's replication default everywhere.
    @Op(audience = PEER) public static final int DIR_SET_REPLICATION = 40;
    // Namenode to namenode: a datanode a client could not reach, left out of allocation everywhere.
    @Op(audience = PEER) public static final int DATANODE_UNREACHABLE = 41;
    // Namenode to namenode: the sender of a moved file recorded the move's outcome; the receiver forgets it.
    @Op(audience = PEER) public static final int FILE_ADOPTION_SETTLED = 42;

    // Clients to a datanode.
    @Op(audience = DATA) public static final int WRITE_BLOCK = 100;
    @Op(audience = DATA, readOnly = true) public static final int READ_BLOCK = 101;
    /** Short-circuit read: the checks of READ_BLOCK, the data copied by the co-located client. */
    @Op(audience = DATA, readOnly = true) public static final int SC_READ = 102;
    /** Short-circuit write: the checks of WRITE_BLOCK, the data copied by the co-located client. */
    @Op(audience = DATA) public static final int SC_WRITE = 103;
    /** A write of a replicated block, to its group's leader ({@link GroupProtocol}). */
    @Op(audience = DATA) public static final int GROUP_WRITE = 104;
    /** A linearizable read of a replicated block, from its group's leader ({@link GroupProtocol}). */
    @Op(audience = DATA, readOnly = true) public static final int GROUP_READ = 105;

    // Datanode to datanode: one message of a block group's replication protocol, answered empty.
    @Op(audience = REPLICA) public static final int REPLICA_MESSAGE = 110;
    // Datanode to datanode: one chunk of a checkpoint image a leader streams to a group's member.
    @Op(audience = REPLICA) public static final int REPLICA_IMAGE_CHUNK = 111;
    // Datanode to datanode: a follower asks its group's leader for the index a read must wait for.
    @Op(audience = REPLICA, readOnly = true) public static final int REPLICA_READ_INDEX = 112;

    /** One row of the table. */
    private record Entry(int code, String name, Audience audience, boolean readOnly) {
    }

    /** The table by number; null where no operation has that number. */
    private static final Entry[] BY_CODE = table();

    private static Entry[] table() {
        List<Entry> entries = new ArrayList<>();
        int highest = 0;
        for (Field f : Opcode.class.getDeclaredFields()) {
            int m = f.getModifiers();
            if (f.getType() != int.class || !Modifier.isStatic(m) || !Modifier.isPublic(m)) {
                continue;
            }
            Op op = f.getAnnotation(Op.class);
            if (op == null) {
                throw new ExceptionInInitializerError("Opcode." + f.getName() + " has no @Op entry");
            }
            try {
                Entry e = new Entry(f.getInt(null), f.getName(), op.audience(), op.readOnly());
                entries.add(e);
                highest = Math.max(highest, e.code());
            } catch (IllegalAccessException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
        Entry[] byCode = new Entry[highest + 1];
        for (Entry e : entries) {
            if (e.code() < 0 || e.code() > 0xFFFF) {
                throw new ExceptionInInitializerError("Opcode." + e.name() + " = " + e.code() + " is not a uint16");
            }
            if (byCode[e.code()] != null) {
                throw new ExceptionInInitializerError("Opcode." + e.name() + " and Opcode." + byCode[e.code()].name()
                        + " are both " + e.code());
            }
            byCode[e.code()] = e;
        }
        return byCode;
    }

    private static Entry entry(int opcode) {
        return opcode >= 0 && opcode < BY_CODE.length ? BY_CODE[opcode] : null;
    }

    /** True for an operation of the table. */
    public static boolean isKnown(int opcode) {
        return entry(opcode) != null;
    }

    /** Who sends {@code opcode}; null for a number that is no operation. */
    public static Audience audience(int opcode) {
        Entry e = entry(opcode);
        return e == null ? null : e.audience();
    }

    /**
     * True for calls that change nothing at the server, so sending one twice is harmless: a client
     * whose connection is lost before the answer sends such a call once more on a new connection
     * (the usual case: the server restarted), instead of failing it.
     */
    public static boolean isReadOnly(int opcode) {
        Entry e = entry(opcode);
        return e != null && e.readOnly();
    }

    /**
     * True for the calls of the namenode and administration protocols (every audience but
     * {@link Audience#DATA}), whose answers decode into values that keep no buffer of the answer.
     */
    public static boolean isMetadata(int opcode) {
        Entry e = entry(opcode);
        return e != null && e.audience().metadata();
    }

    /** A name for logs and errors: the constant's, or {@code OP_<n>} for a number that is none. */
    public static String name(int opcode) {
        Entry e = entry(opcode);
        return e == null ? "OP_" + opcode : e.name();
    }

    /** Every operation's number, in increasing order. */
    public static int[] all() {
        List<Integer> codes = new ArrayList<>();
        for (Entry e : BY_CODE) {
            if (e != null) {
                codes.add(e.code());
            }
        }
        return codes.stream().mapToInt(Integer::intValue).toArray();
    }
}
