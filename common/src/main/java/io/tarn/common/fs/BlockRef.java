package io.tarn.common.fs;

/**
 * Where one block of a file lives and the credentials to access it.
 *
 * <p>A datanode checks {@code generation} against the block's current generation (a freed and
 * reused block has a higher one, so stale references are refused instead of reading another file's
 * data) and {@code token} against its key, so clients cannot forge either.
 *
 * @param datanodeId   namenode-assigned id of the datanode
 * @param host         host name clients connect to
 * @param port         data port of the datanode
 * @param storageClass storage class of the datanode (0 = DRAM, 1 = flash)
 * @param regionId     region within the datanode
 * @param blockIndex   block index within the region
 * @param blockSize    bytes per block
 * @param generation   allocation generation of the block
 * @param token        access token: keyed hash over the fields above, the access mode and the stamp
 * @param tokenStamp   the token's key id and expiry ({@code BlockTokens.stamp}), which datanodes
 *                     check with it; every member's token of a group shares it
 * @param writable     true when the token allows writing
 * @param group        for a block of a file of replication 3, its group (the fields above then name
 *                     the replica of the member the namenode believes leads, {@code blockIndex} being
 *                     the group's slot, and each member carries the token for its own replica, so a
 *                     reader can read a closed file from any of them); null for an unreplicated block
 * @param downMembers  for a block of a group, the members the namenode counted down when it answered
 *                     (their datanode dead, or restarted without the group's data): bit {@code i} for
 *                     {@code group.members().get(i)}; 0 otherwise
 */
public record BlockRef(int datanodeId, String host, int port, int storageClass, int regionId, int blockIndex,
                       int blockSize, int generation, long token, long tokenStamp, boolean writable,
                       BlockGroup group, int downMembers) {

    /** A reference with every member of its group up (or no group). */
    public BlockRef(int datanodeId, String host, int port, int storageClass, int regionId, int blockIndex,
                    int blockSize, int generation, long token, long tokenStamp, boolean writable, BlockGroup group) {
        this(datanodeId, host, port, storageClass, regionId, blockIndex, blockSize, generation, token, tokenStamp,
                writable, group, 0);
    }

    /** An unreplicated block. */
    public BlockRef(int datanodeId, String host, int port, int storageClass, int regionId, int blockIndex,
                    int blockSize, int generation, long token, long tokenStamp, boolean writable) {
        this(datanodeId, host, port, storageClass, regionId, blockIndex, blockSize, generation, token, tokenStamp,
                writable, null);
    }

    /** True for a block of a replicated group. */
    public boolean replicated() {
        return group != null;
    }

    /**
     * This block's replica at {@code member} as an unreplicated reference (that member's datanode,
     * region and token, no group): for reading that replica directly once the member caught up.
     */
    public BlockRef atMember(GroupMember member) {
        return new BlockRef(member.datanodeId(), member.host(), member.port(), storageClass, member.regionId(),
                blockIndex, blockSize, generation, member.token(), tokenStamp, false, null);
    }

    /** Whether the namenode counted the group's {@code i}-th member down ({@link #downMembers}). */
    public boolean memberDown(int i) {
        return i < Integer.SIZE && (downMembers >>> i & 1) != 0;
    }

    /** host:port for messages and connection keys. */
    public String address() {
        return host + ":" + port;
    }
}
