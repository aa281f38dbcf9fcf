package io.tarn.namenode.security;

import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.security.Identity;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Turns the identity a connection authenticated as into the {@link Caller} the namenode checks:
 * the user's groups from the {@link GroupMapping}, and whether it is a superuser (the user that runs
 * the namenode, a user of {@code tarn.security.superusers}, or a member of
 * {@code tarn.security.supergroup}).
 *
 * <p>Callers are cached by user name for {@code tarn.security.groups.cache}; a caller seen after that
 * is served as cached while one background thread asks the mapping again, so a request never waits
 * for the group source except the first time its user is seen. The cache holds at most
 * {@value #MAX_USERS} users and starts over when full. With permissions off, and for identities
 * without a user (a namenode that does not authenticate), every caller is {@link Caller#UNCHECKED}.
 */
public final class Callers {
    /** Users cached at most; a server that sees more starts its cache over. */
    public static final int MAX_USERS = 10_000;

    /** Permissions off: every caller unchecked. */
    public static final Callers OFF = new Callers(false, "", Set.of(), "", user -> List.of(), 1);

    private static final ThreadPoolExecutor REFRESHER = refresher();

    private final boolean enabled;
    private final String namenodeUser;
    private final Set<String> superusers;
    private final String supergroup;
    private final GroupMapping mapping;
    private final long ttlNanos;
    private final ConcurrentHashMap<String, Entry> cache = new ConcurrentHashMap<>();

    private record Entry(Caller caller, long resolvedAt, AtomicBoolean refreshing) {
    }

    /**
     * @param namenodeUser the user that runs the namenode: always a superuser
     * @param superusers   further superusers by name
     * @param supergroup   members of this group are superusers ("" for none)
     * @param ttlMs        how long a user's groups are trusted before they are asked again
     */
    public Callers(boolean enabled, String namenodeUser, Set<String> superusers, String supergroup,
                   GroupMapping mapping, long ttlMs) {
        this.enabled = enabled;
        this.namenodeUser = namenodeUser;
        this.superusers = Set.copyOf(superusers);
        this.supergroup = supergroup;
        this.mapping = mapping;
        this.ttlNanos = TimeUnit.MILLISECONDS.toNanos(ttlMs);
    }

    /** From the tarn.security.* keys; the namenode's user is the JVM's. */
    public static Callers of(TarnConfig config) {
        if (!config.get(TarnKeys.SECURITY_PERMISSIONS)) {
            return OFF;
        }
        Set<String> superusers = new LinkedHashSet<>();
        for (String s : config.get(TarnKeys.SECURITY_SUPERUSERS).split(",")) {
            if (!s.isBlank()) {
                superusers.add(s.trim());
            }
        }
        String file = config.get(TarnKeys.SECURITY_GROUPS_FILE);
        GroupMapping mapping = file.isEmpty() ? GroupMapping.shell() : GroupMapping.file(Path.of(file));
        return new Callers(true, System.getProperty("user.name", ""), superusers,
                config.get(TarnKeys.SECURITY_SUPERGROUP), mapping, config.get(TarnKeys.SECURITY_GROUPS_CACHE));
    }

    public boolean enabled() {
        return enabled;
    }

    /** The caller behind a connection's identity. */
    public Caller of(Identity identity) {
        if (!enabled || identity == Identity.UNAUTHENTICATED || identity.user().isEmpty()) {
            return Caller.UNCHECKED;
        }
        String user = identity.user();
        Entry e = cache.get(user);
        if (e == null) {
            e = resolve(user);
            if (cache.size() >= MAX_USERS) {
                cache.clear();
            }
            cache.put(user, e);
        } else if (System.nanoTime() - e.resolvedAt() > ttlNanos && e.refreshing().compareAndSet(false, true)) {
            Entry stale = e;
            try {
                REFRESHER.execute(() -> cache.replace(user, stale, resolve(user)));
            } catch (RuntimeException full) {
                stale.refreshing().set(false); // the queue is full: the next request tries again
            }
        }
        return e.caller();
    }

    private Entry resolve(String user) {
        List<String> groups = mapping.groups(user);
        boolean superuser = user.equals(namenodeUser) || superusers.contains(user)
                || !supergroup.isEmpty() && groups.contains(supergroup);
        return new Entry(new Caller(user, groups, superuser), System.nanoTime(), new AtomicBoolean());
    }

    /** For the startup line: who the superusers are. */
    public String describe() {
        if (!enabled) {
            return "permissions off";
        }
        StringBuilder sb = new StringBuilder("permissions on, superusers ").append(namenodeUser);
        for (String s : superusers) {
            sb.append(", ").append(s);
        }
        if (!supergroup.isEmpty()) {
            sb.append(" and group ").append(supergroup);
        }
        return sb.toString();
    }

    private static ThreadPoolExecutor refresher() {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1024),
                r -> {
                    Thread t = new Thread(r, "tarn-group-refresh");
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
