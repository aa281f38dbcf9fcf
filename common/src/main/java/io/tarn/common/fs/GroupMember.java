package io.tarn.common.fs;

/**
 * One member of a replicated {@link BlockGroup}: which datanode holds its replica, where it serves,
 * in which of its regions, and (in a block reference) the token for this member's replica of the
 * block. Immutable.
 *
 * @param memberId   the member's id inside the group (0, 1, 2 at creation; replacements get 3, 4, ...)
 * @param datanodeId the namenode-assigned id of its datanode (with the namenode that manages the region)
 * @param host       host name of the datanode's data port
 * @param port       the data port
 * @param regionId   the datanode's region holding the group's slots
 * @param token      access token for this member's replica of one block (block references); 0 where unused
 */
public record GroupMember(int memberId, int datanodeId, String host, int port, int regionId, long token) {

    /** host:port for messages and connection keys. */
    public String address() {
        return host + ":" + port;
    }

    /** The same member with another token. */
    public GroupMember withToken(long newToken) {
        return new GroupMember(memberId, datanodeId, host, port, regionId, newToken);
    }
}
