package io.tarn.common.error;

/**
 * Errors as they cross the wire: a stable numeric code per cause.
 *
 * <p>Codes are part of the protocol: never renumber or reuse one; add new causes at the end.
 * A code this build does not know decodes as {@link #UNKNOWN}, so older clients still fail cleanly.
 */
public enum ErrorCode {
    OK(0, "ok"),
    UNKNOWN(1, "unknown error"),
    INTERNAL(2, "internal server error"),
    MALFORMED_REQUEST(3, "malformed request"),
    UNSUPPORTED_VERSION(4, "unsupported protocol version"),
    UNKNOWN_OPCODE(5, "unknown operation"),
    TIMEOUT(6, "timed out"),
    CONNECTION_LOST(7, "connection lost"),
    SERVER_BUSY(8, "server busy"),
    INVALID_ARGUMENT(9, "invalid argument"),
    INVALID_PATH(10, "invalid path"),
    WRONG_PARTITION(11, "sent to a namenode that does not own it"),
    NOT_SUPPORTED(12, "not supported"),
    AT_COORDINATOR(13, "directory changes go to namenode 0"),
    RETRY(14, "busy for a moment; try again"),
    MOVED(15, "the file moved to another namenode; ask where (WHERE_MOVED)"),

    FILE_NOT_FOUND(20, "no such file or directory"),
    FILE_EXISTS(21, "file exists"),
    NOT_A_DIRECTORY(22, "not a directory"),
    IS_A_DIRECTORY(23, "is a directory"),
    DIRECTORY_NOT_EMPTY(24, "directory not empty"),
    PARENT_NOT_FOUND(25, "parent directory does not exist"),
    RENAME_INVALID(26, "invalid rename"),
    FILE_CLOSED(27, "file is closed"),
    BLOCK_NOT_FOUND(28, "no such block"),

    LEASE_CONFLICT(40, "file is being written by another client"),
    LEASE_EXPIRED(41, "lease expired"),

    NO_SPACE(50, "no space left"),
    DATANODE_DEAD(51, "datanode is dead"),
    UNKNOWN_DATANODE(52, "unknown datanode"),
    STALE_GENERATION(53, "stale block generation"),
    INVALID_TOKEN(54, "invalid block access token"),
    OUT_OF_RANGE(55, "range outside the block or region"),
    BLOCK_NOT_WRITTEN(56, "block holds no data of this generation yet"),
    DATA_LOST(57, "block data lost"),
    TOKEN_EXPIRED(58, "block access token expired; ask the namenode for the block again"),

    // Replication as a file attribute.
    INVALID_REPLICATION(60, "replication must be 1 or 3"),
    REPLICATION_FIXED(61, "the file holds data, so its replication can no longer change"),
    NOT_ENOUGH_DATANODES(62, "too few live datanodes for the file's replication"),
    REPLICATION_UNAVAILABLE(63, "replicated block groups are not served by this build"),

    // Replicated block groups.
    UNKNOWN_GROUP(70, "this datanode holds no replica of the block group"),
    NOT_LEADER(71, "not the leader of its group (block group or namenode group); the answer names the leader if known"),
    GROUP_UNAVAILABLE(72, "the block group cannot reach a quorum of its members"),

    // Namespace durability
    NAMESPACE_READ_ONLY(80, "the namenode's journal failed; lookups work, changes are refused until it restarts"),

    // Security
    UNAUTHENTICATED(90, "authentication required or failed"),
    ACCESS_DENIED(91, "permission denied");

    private static final ErrorCode[] BY_CODE;

    static {
        int max = 0;
        for (ErrorCode c : values()) {
            max = Math.max(max, c.code);
        }
        BY_CODE = new ErrorCode[max + 1];
        for (ErrorCode c : values()) {
            if (BY_CODE[c.code] != null) {
                throw new ExceptionInInitializerError("duplicate error code " + c.code);
            }
            BY_CODE[c.code] = c;
        }
    }

    private final int code;
    private final String description;

    ErrorCode(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The number that crosses the wire. */
    public int code() {
        return code;
    }

    /** A short human description, used when a message has no detail. */
    public String description() {
        return description;
    }

    /** The error with the given wire number, or {@link #UNKNOWN} for a number this build does not know. */
    public static ErrorCode of(int code) {
        if (code < 0 || code >= BY_CODE.length || BY_CODE[code] == null) {
            return UNKNOWN;
        }
        return BY_CODE[code];
    }
}
