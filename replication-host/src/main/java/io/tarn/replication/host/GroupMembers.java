package io.tarn.replication.host;

import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who belongs to one block group, as the namenode placed it: each member's id inside the group and
 * the data address of the datanode holding it. Immutable; a membership change makes a new instance
 * with a higher {@code version}.
 *
 * @param groupId   the group
 * @param version   the membership version, raised by every change
 * @param self      this datanode's member id in the group
 * @param addresses every member's datanode, by member id (this one included)
 */
public record GroupMembers(long groupId, long version, int self, Map<Integer, InetSocketAddress> addresses) {

    /** Freezes the map and checks that this datanode is a member. */
    public GroupMembers {
        addresses = Map.copyOf(addresses);
        if (!addresses.containsKey(self)) {
            throw new IllegalArgumentException("member " + self + " is not in group " + groupId + ": " + addresses);
        }
    }

    /** The member ids, ascending. */
    public List<Integer> ids() {
        return addresses.keySet().stream().sorted().toList();
    }

    /** The datanode of {@code member}, or null. */
    public InetSocketAddress address(int member) {
        return addresses.get(member);
    }

    /** "member m (host:port)" for every member, for messages. */
    public Map<Integer, String> names() {
        Map<Integer, String> names = new HashMap<>();
        addresses.forEach((id, a) -> names.put(id, "member " + id + " (" + a.getHostString() + ":" + a.getPort()
                + ")"));
        return names;
    }
}
