package io.tarn.common.protocol;

/**
 * Who sends an operation, and so which protocol it belongs to and which handler of a server serves
 * it. Every {@link Opcode} has exactly one.
 */
public enum Audience {
    /** Clients to a namenode: the namespace, block locations and leases. */
    CLIENT(true),
    /** A namenode to another: directory changes of the coordinator, file moves, tree copies. */
    PEER(true),
    /** A datanode to a namenode: registration, heartbeats, clean stops. */
    DATANODE(true),
    /** Tools and operators to any server: status and liveness. */
    ADMIN(true),
    /** Clients to a datanode: block data, over TCP or short-circuit. */
    DATA(false),
    /** A datanode to another member of a block group: the replication protocol's messages. */
    REPLICA(true),
    /**
     * A connection's authentication ({@link io.tarn.common.security.SecretHandshake}): answered by the
     * transport itself before anything else, never handed to a server's handler.
     */
    HANDSHAKE(true);

    private final boolean metadata;

    Audience(boolean metadata) {
        this.metadata = metadata;
    }

    /**
     * True for the operations only Tarn's own daemons may call (registering a datanode, a namenode's
     * calls to another, replication between datanodes): on an authenticated server, a peer that did
     * not authenticate with the cluster secret is refused them.
     */
    public boolean daemonsOnly() {
        return this == PEER || this == DATANODE || this == REPLICA;
    }

    /** True for the audiences whose answers decode into values that keep no buffer of the answer. */
    public boolean metadata() {
        return metadata;
    }
}
