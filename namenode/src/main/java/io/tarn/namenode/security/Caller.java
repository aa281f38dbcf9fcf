package io.tarn.namenode.security;

import io.tarn.common.fs.Ownership;

import java.util.Arrays;
import java.util.List;

/**
 * Who asks, as the namenode checks permissions: the authenticated user, the groups the namenode
 * resolved for it (never the ones a client claims), and whether it is a superuser.
 *
 * <p>The check is the POSIX one HDFS applies: the owner's bits when the caller owns the entry,
 * else the group's bits when it belongs to the entry's group, else the others' bits; a superuser
 * passes every check. {@link #UNCHECKED} passes too: it stands for every caller when permissions
 * are off, and for the peers of a namenode that does not authenticate (no user is known).
 */
public final class Caller {
    /** Read: list a directory, read a file. */
    public static final int READ = 4;
    /** Write: change a directory's entries, write a file. */
    public static final int WRITE = 2;
    /** Execute: search (pass through) a directory. */
    public static final int EXECUTE = 1;

    /** Every check passes; new entries keep the owner the request names. */
    public static final Caller UNCHECKED = new Caller("", List.of(), true);

    private static final String[] ACTIONS = {"NONE", "EXECUTE", "WRITE", "WRITE_EXECUTE", "READ", "READ_EXECUTE",
        "READ_WRITE", "ALL"};

    private final String user;
    private final String[] groups;
    private final boolean superuser;

    public Caller(String user, List<String> groups, boolean superuser) {
        this.user = user;
        this.groups = groups.toArray(new String[0]);
        this.superuser = superuser;
    }

    public String user() {
        return user;
    }

    public List<String> groups() {
        return List.of(groups);
    }

    public boolean superuser() {
        return superuser;
    }

    /** True for {@link #UNCHECKED}: no identity, so no owner to give new entries. */
    public boolean unchecked() {
        return this == UNCHECKED;
    }

    public boolean inGroup(String group) {
        for (String g : groups) {
            if (g.equals(group)) {
                return true;
            }
        }
        return false;
    }

    /** Whether the caller has every bit of {@code access} (READ, WRITE, EXECUTE or'ed) on an entry so owned. */
    public boolean may(Ownership o, int access) {
        if (superuser) {
            return true;
        }
        int p = o.permission();
        int bits = user.equals(o.owner()) ? p >>> 6 : inGroup(o.group()) ? p >>> 3 : p;
        return (bits & access) == access;
    }

    /** Whether the caller owns the entry or is a superuser (what changing its mode takes). */
    public boolean owns(Ownership o) {
        return superuser || user.equals(o.owner());
    }

    /** Hadoop's name of an access: READ, WRITE_EXECUTE, ALL... */
    public static String action(int access) {
        return ACTIONS[access & 7];
    }

    @Override
    public String toString() {
        if (unchecked()) {
            return "unchecked";
        }
        return user + Arrays.toString(groups) + (superuser ? " (superuser)" : "");
    }
}
