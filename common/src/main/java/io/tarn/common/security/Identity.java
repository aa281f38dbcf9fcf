package io.tarn.common.security;

/**
 * Who is at the other end of a connection, as its authentication established.
 *
 * @param user   the user name the peer authenticated as ("" on a server that does not authenticate)
 * @param daemon true when the peer proved it holds the cluster secret (a Tarn daemon or an operator's
 *               tool), which the operations of {@link io.tarn.common.protocol.Audience#daemonsOnly}
 *               require
 */
public record Identity(String user, boolean daemon) {
    /** The peer of a connection to a server that does not authenticate: allowed everything, as before. */
    public static final Identity UNAUTHENTICATED = new Identity("", true);

    public Identity {
        if (user == null) {
            throw new IllegalArgumentException("user is null");
        }
    }

    /** "alice", "alice (daemon)" or "an unauthenticated peer", for messages and logs. */
    public String describe() {
        if (this == UNAUTHENTICATED || user.isEmpty()) {
            return "an unauthenticated peer";
        }
        return daemon ? user + " (daemon)" : user;
    }

    @Override
    public String toString() {
        return describe();
    }
}
