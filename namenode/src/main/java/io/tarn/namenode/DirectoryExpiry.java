package io.tarn.namenode;

import io.tarn.common.config.ExpiringDirectories.Rule;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.namenode.namespace.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deletes the subdirectories of the {@code tarn.namenode.expire.dirs} directories that have not been
 * modified within their time to live: what an application that died left there. Runs in the
 * namenode's maintenance, on the first partition (which every directory change goes through) and,
 * in a replicated group, on its leader only; a deletion is the same journaled delete a client's
 * would be, so it survives restarts and reaches the group's other members and the other partitions.
 * Each deletion is logged at INFO with the directory, its age and the setting.
 */
final class DirectoryExpiry {
    private static final Logger LOG = LoggerFactory.getLogger(DirectoryExpiry.class);
    private static final int PAGE = 1000;

    private final Namespace namespace;
    private final PeerLinks links;
    private volatile List<Rule> rules = List.of();
    /** Deletions handed to the coordinator and not finished: not asked for twice. */
    private final Set<String> underway = ConcurrentHashMap.newKeySet();

    DirectoryExpiry(Namespace namespace, PeerLinks links) {
        this.namespace = namespace;
        this.links = links;
    }

    void rules(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** One pass over every rule's directory at time {@code now}; returns how many deletions it started. */
    int sweep(long now) {
        int started = 0;
        for (Rule rule : rules) {
            String after = "";
            boolean more = true;
            while (more) {
                ListResponse page;
                try {
                    page = namespace.list(rule.parent(), after, PAGE);
                } catch (TarnException e) {
                    if (e.code() != ErrorCode.FILE_NOT_FOUND) {
                        LOG.warn("Cannot list {} to expire its subdirectories ({}): {}", rule.parent(),
                                TarnKeys.NAMENODE_EXPIRE_DIRS, e.getMessage());
                    }
                    break; // not there (yet): nothing to expire
                }
                for (FileStatus entry : page.entries()) {
                    after = entry.name();
                    long idle = now - entry.modificationTime();
                    if (entry.isDirectory() && idle > rule.ttlMs()) {
                        if (expire(TarnPath.child(rule.parent(), entry.name()), idle, rule)) {
                            started++;
                        }
                    }
                }
                more = page.hasMore() && !page.entries().isEmpty();
            }
        }
        return started;
    }

    private boolean expire(String path, long idle, Rule rule) {
        if (!underway.add(path)) {
            return false;
        }
        String why = "not modified for " + idle / 1000 + " s, more than the " + rule.ttlMs() / 1000 + " s of "
                + TarnKeys.NAMENODE_EXPIRE_DIRS;
        try {
            Route route = namespace.delete(path, true);
            if (route.kind() == Route.Kind.DONE) {
                underway.remove(path);
                LOG.info("Deleted {}: {}", path, why);
                return true;
            }
            DirectoryCoordinator coordinator = links.coordinator();
            if (coordinator == null) {
                underway.remove(path);
                LOG.warn("Cannot expire {}: this namenode is not the coordinator of directory changes", path);
                return false;
            }
            coordinator.deleteTree(path, true).whenComplete((v, failure) -> {
                underway.remove(path);
                if (failure == null) {
                    LOG.info("Deleted {}: {}", path, why);
                } else {
                    LOG.warn("Could not expire {} ({}): {}", path, why, failure.toString());
                }
            });
            return true;
        } catch (TarnException e) {
            underway.remove(path);
            if (e.code() != ErrorCode.FILE_NOT_FOUND) { // gone meanwhile: nothing to do
                LOG.warn("Could not expire {} ({}): {}", path, why, e.getMessage());
            }
            return false;
        }
    }
}
