package io.tarn.tools;

import io.tarn.common.protocol.AdminProtocol.JournalHealth;
import io.tarn.common.protocol.AdminProtocol.ClusterStatus;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;
import io.tarn.common.protocol.AdminProtocol.DegradedGroup;
import io.tarn.common.protocol.AdminProtocol.Replacement;
import io.tarn.common.protocol.AdminProtocol.MemberHealth;
import io.tarn.common.protocol.AdminProtocol.NamenodeGroupStatus;
import io.tarn.common.protocol.AdminProtocol.NamenodeMemberStatus;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The text of {@code tarn status} (docs/cli.md): one line per namenode, a total line when there are
 * several, then the datanodes once, as the first namenode that answered sees them, then the block
 * groups with the under-replicated ones each namenode reported.
 *
 * <p>OPS/S is the namenode's operations per second between two samples (from the difference of its
 * operation count over the difference of its own uptime), or, with a single sample, its operations
 * divided by its uptime. Operations are every request it served, datanode heartbeats included.
 */
final class StatusPrinter {
    private static final String NAMENODE_ROW = "  %-5s %-24s %-9s %10s %12s %14s %11s";
    private static final String DATANODE_ROW = "  %-4s %-24s %-6s %-7s %10s %10s %6s  %-12s %-13s %s";

    /** Under-replicated groups listed unless {@code tarn status --groups} says otherwise. */
    static final int DEFAULT_GROUPS = 10;

    private final PrintStream out;

    private StatusPrinter(PrintStream out) {
        this.out = out;
    }

    /** The status, listing at most {@link #DEFAULT_GROUPS} under-replicated groups. */
    static void print(PrintStream out, ClusterSnapshot before, ClusterSnapshot now, double intervalSeconds) {
        print(out, before, now, intervalSeconds, DEFAULT_GROUPS);
    }

    /**
     * @param before          an earlier sample for the operation rates, or null to average since start
     * @param intervalSeconds how far apart the samples were taken (for the heading)
     * @param maxGroups       how many under-replicated groups to list, one line each
     */
    static void print(PrintStream out, ClusterSnapshot before, ClusterSnapshot now, double intervalSeconds,
            int maxGroups) {
        StatusPrinter p = new StatusPrinter(out);
        p.namenodes(before, now, intervalSeconds);
        p.journals(now);
        p.namenodeGroups(now);
        p.datanodes(now);
        p.groups(now, maxGroups);
        p.damage(now);
        p.failedJournals(now);
        p.groupsOutOfSync(now);
        out.flush();
    }

    /**
     * One line per namenode that journals its namespace ({@code tarn.namenode.journal = disk}): its
     * directory, last record and newest checkpoint. Nothing when none does (the default).
     */
    private void journals(ClusterSnapshot now) {
        for (NamenodeView v : now.namenodes()) {
            if (!v.up() || !v.status().journal().disk()) {
                continue;
            }
            JournalHealth j = v.status().journal();
            String checkpoint = j.checkpointSeq() == 0 ? "no checkpoint yet"
                    : "checkpoint of records 1.." + j.checkpointSeq() + " (" + Formats.duration(j.checkpointAgeMs())
                    + " ago)";
            line("  journal of namenode %s: %s, last record %d, %s%s", v.partition(), j.directory(), j.lastSeq(),
                    checkpoint, j.failed() ? ", FAILED" : "");
        }
    }

    /**
     * One line per partition served by a replicated group of namenodes (its leader answered): which
     * member leads, in which term, and how the leader sees each other member. Nothing without groups.
     */
    private void namenodeGroups(ClusterSnapshot now) {
        for (NamenodeView v : now.namenodes()) {
            NamenodeGroupStatus g = v.up() ? v.status().journal().group() : null;
            if (g == null) {
                continue;
            }
            StringBuilder members = new StringBuilder();
            for (NamenodeMemberStatus m : g.members()) {
                if (m.id() == g.leader()) {
                    continue;
                }
                members.append("; member ").append(m.id()).append(" (").append(m.address()).append(") ")
                        .append(m.inSync() ? "in sync" : "NOT IN SYNC").append(", ").append(heard(m));
            }
            line("  group of partition %s: member %d (%s) leads term %d%s", v.partition(), g.leader(),
                    g.leaderAddress(), g.term(), members);
        }
    }

    private static String heard(NamenodeMemberStatus m) {
        return m.heardAgoMs() < 0 ? "never heard" : "heard " + Formats.duration(m.heardAgoMs()) + " ago";
    }

    /**
     * A warning per replicated group with members out of sync: it serves while a majority is, and
     * says how many more members it can lose.
     */
    private void groupsOutOfSync(ClusterSnapshot now) {
        for (NamenodeView v : now.namenodes()) {
            NamenodeGroupStatus g = v.up() ? v.status().journal().group() : null;
            if (g == null) {
                continue;
            }
            List<String> behind = new ArrayList<>();
            for (NamenodeMemberStatus m : g.members()) {
                if (!m.inSync()) {
                    behind.add("member " + m.id() + " (" + m.address() + ", " + heard(m) + ")");
                }
            }
            if (behind.isEmpty()) {
                continue;
            }
            int inSync = g.members().size() - behind.size();
            int canLose = inSync - (g.members().size() / 2 + 1);
            line("WARNING: the namenode group of partition %s has %d of %d members in sync, not %s: it serves on, but "
                    + "%s; start %s again", v.partition(), inSync, g.members().size(), String.join(", ", behind),
                    canLose == 0 ? "losing one more member stops it until one comes back"
                            : "it can lose " + canLose + " more member" + (canLose == 1 ? "" : "s"),
                    behind.size() == 1 ? "it" : "them");
        }
    }

    /** A warning per namenode whose journal failed: it refuses every change until restarted. */
    private void failedJournals(ClusterSnapshot now) {
        for (NamenodeView v : now.namenodes()) {
            if (v.up() && v.status().journal().failed()) {
                line("WARNING: the namespace journal of namenode %s failed, so it refuses every change (lookups go "
                        + "on) until it is restarted on a working disk: %s", v.partition(),
                        v.status().journal().failure());
            }
        }
    }

    /**
     * A warning when some namenode's last scan found files whose blocks cannot be read (lost, or on
     * datanodes that are down); nothing when every file can be read.
     */
    private void damage(ClusterSnapshot now) {
        long damaged = now.namenodes().stream().filter(NamenodeView::up)
                .mapToLong(v -> v.status().damagedFiles()).sum();
        if (damaged > 0) {
            line("WARNING: %d file%s %s blocks that cannot be read (lost, or on datanodes that are down); "
                    + "'tarn fsck' lists them", damaged, damaged == 1 ? "" : "s", damaged == 1 ? "has" : "have");
        }
    }

    /**
     * The replicated block groups of every namenode that answered, how many have a member down, and
     * how many have a member on each datanode (by the viewing namenode's ids); then up to
     * {@code maxGroups} of the under-replicated groups, one line each. Nothing while there are none.
     */
    private void groups(ClusterSnapshot now, int maxGroups) {
        List<NamenodeView> up = now.namenodes().stream().filter(NamenodeView::up).toList();
        long total = up.stream().mapToLong(v -> v.status().blockGroups()).sum();
        NamenodeView viewer = now.viewer().orElse(null);
        if (total == 0 || viewer == null) {
            return;
        }
        List<String> members = new ArrayList<>();
        for (DatanodeStatus d : viewer.status().datanodes()) {
            int n = 0;
            for (NamenodeView v : up) {
                DatanodeStatus seen = v == viewer ? d : find(v.status(), d);
                n += seen == null ? 0 : seen.groups();
            }
            if (n > 0) {
                members.add(d.id() + ": " + n);
            }
        }
        long under = up.stream().mapToLong(v -> v.status().replication().underReplicated()).sum();
        line("replication: %d block group%s (files of replication 3), %d under-replicated; groups per datanode: %s",
                total, total == 1 ? "" : "s", under, String.join(", ", members));
        long shown = 0;
        for (NamenodeView v : up) {
            for (DegradedGroup g : v.status().replication().degraded()) {
                if (shown == maxGroups) {
                    break;
                }
                degraded(v, g);
                shown++;
            }
        }
        if (under > shown) {
            line("  ... and %d more under-replicated group%s (tarn status --groups N lists up to N)", under - shown,
                    under - shown == 1 ? "" : "s");
        }
    }

    /** "group 42 of namenode 0 on datanodes 1, 2, 3: datanode 2 (host:port) silent, last heard 12.3 s ago". */
    private void degraded(NamenodeView v, DegradedGroup g) {
        List<String> ids = new ArrayList<>();
        List<String> down = new ArrayList<>();
        for (MemberHealth m : g.members()) {
            ids.add(Integer.toString(m.datanodeId()));
            if (!m.up()) {
                down.add("datanode " + m.datanodeId() + " (" + m.host() + ":" + m.port() + ") " + why(m));
            }
        }
        Replacement r = g.replacement();
        if (r != null) {
            down.add("replacing member " + r.removedMemberId() + " by member " + r.addedMemberId() + " on datanode "
                    + r.datanodeId() + " (" + r.host() + ":" + r.port() + ") for " + Formats.duration(r.forMs()));
        }
        line("  group %d of namenode %d on datanodes %s: %s", g.groupId(), v.partition(), String.join(", ", ids),
                String.join("; ", down));
    }

    /** Why a member is down, and since when as far as its namenode knows. */
    private static String why(MemberHealth m) {
        String ago = Formats.duration(m.lastHeardMs()) + " ago";
        return switch (m.state()) {
            case DatanodeStatus.STOPPED -> "stopped " + ago;
            case DatanodeStatus.UNREACHABLE -> "reported unreachable by a client, last heard " + ago;
            case MemberHealth.LOST -> "lost its copy (it came back, or stopped, without the group's region)";
            case MemberHealth.FAILED -> "alive, but the group stopped there until the datanode is restarted: "
                    + m.failure();
            default -> "silent, last heard " + ago;
        };
    }

    /** One line, without the padding a last empty column leaves. */
    private void line(String format, Object... args) {
        out.println(String.format(Locale.ROOT, format, args).stripTrailing());
    }

    // ------------------------------------------------------------------ namenodes

    private void namenodes(ClusterSnapshot before, ClusterSnapshot now, double intervalSeconds) {
        heading(before, now, intervalSeconds);
        line(NAMENODE_ROW, "PART", "ADDRESS", "UPTIME", "FILES", "DIRECTORIES", "OPERATIONS", "OPS/S");
        long files = 0;
        long directories = 0;
        long operations = 0;
        double rate = 0;
        for (NamenodeView v : now.namenodes()) {
            if (!v.up()) {
                line("  %-5s %-24s down: %s", v.partition(), v.address(), v.error());
                continue;
            }
            ClusterStatus s = v.status();
            double r = before == null ? average(s) : between(earlier(before, v), s);
            NamenodeGroupStatus group = s.journal().group();
            line(NAMENODE_ROW, v.partition(), group != null ? group.leaderAddress() : v.address(),
                    Formats.duration(s.uptimeMs()), s.files(),
                    s.directories(), s.operations(), rate(r));
            files += s.files();
            directories = Math.max(directories, s.directories()); // every namenode holds every directory
            operations += s.operations();
            rate += Double.isNaN(r) ? 0 : r;
        }
        if (now.namenodes().size() > 1) {
            line(NAMENODE_ROW, "total", "", "", files, directories, operations, rate(rate));
        }
    }

    /** "namenodes: 2 (1 up, 1 down), block size 1m; OPS/S over the last 1.0 s". */
    private void heading(ClusterSnapshot before, ClusterSnapshot now, double intervalSeconds) {
        int total = now.namenodes().size();
        int down = now.down().size();
        String blockSize = now.viewer().map(v -> ", block size " + Formats.bytes(v.status().blockSize())).orElse("");
        String basis = total == down ? "" : before == null ? "; OPS/S averaged since each namenode started"
                : String.format(Locale.ROOT, "; OPS/S over the last %.1f s", intervalSeconds);
        line("namenodes: %d (%d up%s)%s%s", total, total - down, down == 0 ? "" : ", " + down + " down",
                blockSize, basis);
    }

    /** The same namenode in the earlier sample, when it answered then; else null. */
    private static ClusterStatus earlier(ClusterSnapshot before, NamenodeView now) {
        return before.namenodes().stream().filter(v -> v.up() && v.address().equals(now.address()))
                .map(NamenodeView::status).findFirst().orElse(null);
    }

    /** Operations per second since the namenode started. */
    static double average(ClusterStatus s) {
        return s.uptimeMs() <= 0 ? 0 : s.operations() * 1000.0 / s.uptimeMs();
    }

    /**
     * Operations per second between two samples of one namenode, timed by its own uptime; NaN when
     * it did not answer the first ({@code before} null) or restarted in between.
     */
    static double between(ClusterStatus before, ClusterStatus now) {
        if (before == null) {
            return Double.NaN;
        }
        long millis = now.uptimeMs() - before.uptimeMs();
        long ops = now.operations() - before.operations();
        return millis <= 0 || ops < 0 ? Double.NaN : ops * 1000.0 / millis;
    }

    private static String rate(double r) {
        return Double.isNaN(r) ? "-" : String.format(Locale.ROOT, "%.1f", r);
    }

    // ------------------------------------------------------------------ datanodes

    private void datanodes(ClusterSnapshot now) {
        NamenodeView viewer = now.viewer().orElse(null);
        if (viewer == null) {
            out.println("datanodes: unknown (no namenode answered)");
            return;
        }
        List<DatanodeStatus> list = viewer.status().datanodes();
        boolean several = now.namenodes().size() > 1;
        long alive = list.stream().filter(DatanodeStatus::alive).count();
        line("datanodes: %d (%d alive)%s", list.size(), alive, several
                ? ", as namenode " + viewer.partition() + " sees them; CAPACITY and FREE add up the shares of the "
                        + "namenodes that answered"
                : "");
        if (list.isEmpty()) {
            return;
        }
        line(DATANODE_ROW, "ID", "ADDRESS", "CLASS", "STATE", "CAPACITY", "FREE", "USED",
                "LAST HEARD", "SHORT-CIRCUIT", several ? "SHARE PER NAMENODE" : "");
        for (DatanodeStatus d : list) {
            datanode(d, viewer, now, several);
        }
    }

    private void datanode(DatanodeStatus d, NamenodeView viewer, ClusterSnapshot now, boolean several) {
        long capacity = 0;
        long free = 0;
        List<String> shares = new ArrayList<>();
        for (NamenodeView v : several ? now.namenodes() : List.of(viewer)) {
            DatanodeStatus seen = v == viewer ? d : v.up() ? find(v.status(), d) : null;
            if (seen != null) {
                capacity += seen.capacityBlocks() * v.status().blockSize();
                free += seen.freeBlocks() * v.status().blockSize();
            }
            shares.add(share(v, seen));
        }
        double used = capacity == 0 ? 0 : 100.0 * (capacity - free) / capacity;
        line(DATANODE_ROW, d.id(), d.host() + ":" + d.port(), storageClass(d.storageClass()),
                d.stateName(), Formats.human(capacity), Formats.human(free),
                String.format(Locale.ROOT, "%.1f%%", used), Formats.duration(d.silenceMs()) + " ago",
                d.shortCircuit() ? "offered" : "no", several ? String.join(", ", shares) : "");
    }

    /** One namenode's share of a datanode: its capacity there, or why there is none to count on. */
    private static String share(NamenodeView namenode, DatanodeStatus seen) {
        if (!namenode.up()) {
            return "down";
        }
        if (seen == null) {
            return "-";
        }
        return seen.alive() ? Formats.human(seen.capacityBlocks() * namenode.status().blockSize()) : seen.stateName();
    }

    /**
     * The datanode at the same address in another namenode's view (ids are per namenode), or null. A
     * datanode restarted without its regions is listed again under a new id next to its old, dead
     * entry: the entry as alive as {@code d} wins.
     */
    private static DatanodeStatus find(ClusterStatus s, DatanodeStatus d) {
        List<DatanodeStatus> same = s.datanodes().stream()
                .filter(x -> x.port() == d.port() && x.host().equals(d.host())).toList();
        return same.stream().filter(x -> x.alive() == d.alive()).findFirst()
                .orElse(same.isEmpty() ? null : same.get(0));
    }

    private static String storageClass(int c) {
        return c == 0 ? "dram" : c == 1 ? "flash" : "c" + c;
    }
}
