package io.tarn.client.random;

import io.tarn.client.random.Event.Kind;
import io.tarn.common.error.ErrorCode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static io.tarn.client.random.Calls.FALSE;
import static io.tarn.client.random.Calls.TRUE;
import static io.tarn.client.random.Names.child;
import static io.tarn.client.random.Names.inShared;
import static io.tarn.client.random.Names.inSub;
import static io.tarn.client.random.Names.name;
import static io.tarn.client.random.Scenario.SUB;

/**
 * The checks of {@link Ledger#verify} at quiescence: where every file of /shared may be given the recorded
 * outcomes, that every failure has a cause among the successes, that rmdirs of /shared/sub saw what they
 * could, and that concurrent listings showed nothing impossible.
 */
final class LedgerChecks {
    private LedgerChecks() {
    }

    /** See {@link Ledger#verify}; {@code all} are the recorded events. */
    static void verify(List<Event> all, Map<String, List<String>> found, Map<String, String> inSubtrees,
                       List<Problem> problems) {
        Map<String, Event> takers = takers(all, problems);
        Map<String, List<Event>> aimedAt = new HashMap<>();
        List<Event> removals = new ArrayList<>();
        Set<String> dropped = new HashSet<>();
        for (Event e : all) {
            if (e.dst() != null && (e.kind() == Kind.CREATE || e.kind() == Kind.RENAME)) {
                aimedAt.computeIfAbsent(e.dst(), k -> new ArrayList<>()).add(e);
            }
            if (e.ok() && (e.kind() == Kind.RMR || e.kind() == Kind.MOVE_SUB)) {
                removals.add(e); // took every file in /shared/sub with it
            }
            if (e.ok() && e.kind() == Kind.DROP_OLD) {
                dropped.add(e.src());
            }
        }
        checkWhereFilesAre(all, found, inSubtrees, removals, dropped, problems);
        checkFailuresHaveCauses(all, takers, aimedAt, removals, problems);
        checkRmdirs(all, takers, removals, problems);
        checkListings(all, takers, aimedAt, removals, problems);
    }

    /** Shared path → the successful rename or delete that took the file away from it (never two). */
    private static Map<String, Event> takers(List<Event> all, List<Problem> problems) {
        Map<String, Event> takers = new HashMap<>();
        for (Event e : all) {
            if (e.ok() && (e.kind() == Kind.RENAME || e.kind() == Kind.DELETE) && inShared(e.src())) {
                Event earlier = takers.put(e.src(), e);
                if (earlier != null) {
                    problems.add(new Problem("two operations both took the file at " + e.src() + " (a file seen "
                            + "twice):\n    " + earlier + "\n    " + e, e.client()));
                }
            }
        }
        return takers;
    }

    private static void checkWhereFilesAre(List<Event> all, Map<String, List<String>> found,
                                           Map<String, String> inSubtrees, List<Event> removals,
                                           Set<String> dropped, List<Problem> problems) {
        Map<String, List<Event>> byIdentity = new TreeMap<>();
        for (Event e : all) {
            if (e.identity() != null) {
                byIdentity.computeIfAbsent(e.identity(), k -> new ArrayList<>()).add(e);
            }
        }
        Set<String> identities = new TreeSet<>(byIdentity.keySet());
        identities.addAll(found.keySet());
        for (String id : identities) {
            List<Event> history = byIdentity.getOrDefault(id, List.of());
            String problem = placeProblem(id, history, found.getOrDefault(id, List.of()), inSubtrees.get(id),
                    removals, dropped);
            if (problem != null) {
                StringBuilder sb = new StringBuilder(problem).append("; its events:");
                history.forEach(e -> sb.append("\n    ").append(e));
                int client = history.isEmpty() ? -1 : history.get(history.size() - 1).client();
                problems.add(new Problem(sb.toString(), client));
            }
        }
    }

    /** Why identity {@code id} is not where its events put it, or null when it is. */
    private static String placeProblem(String id, List<Event> history, List<String> where, String inSubtree,
                                       List<Event> removals, Set<String> dropped) {
        Set<String> produced = new LinkedHashSet<>();
        Set<String> taken = new LinkedHashSet<>();
        Event creation = null;
        for (Event e : history) {
            if (e.kind() == Kind.CREATE) {
                creation = e;
            }
            if (e.ok() && (e.kind() == Kind.CREATE || e.kind() == Kind.RENAME) && inShared(e.dst())) {
                produced.add(e.dst());
            }
            if (e.ok() && (e.kind() == Kind.RENAME || e.kind() == Kind.DELETE) && inShared(e.src())) {
                taken.add(e.src());
            }
        }
        for (String t : taken) {
            if (!produced.contains(t)) {
                return id + " was taken from " + t + ", where it never was";
            }
        }
        Set<String> live = new LinkedHashSet<>(produced);
        live.removeAll(taken);
        if (where.size() > 1) {
            return id + " exists more than once: " + where;
        }
        String at = where.isEmpty() ? null : where.get(0);
        if (inSubtree != null) {
            return live.isEmpty() && inSubtree.equals(at) ? null
                    : id + " should be in a subtree at " + inSubtree + " (and nowhere in /shared: " + live
                            + ") but is at " + at;
        }
        if (live.size() > 1) {
            return id + " was put at several names that nothing took it from: " + live;
        }
        if (live.isEmpty()) {
            return at == null ? null : id + " was never created, or was removed, but is at " + at;
        }
        String name = live.iterator().next();
        String place = at == null ? "nowhere" : "at " + at;
        if (creation != null && name.equals(creation.dst()) && inSub(name)) {
            Set<String> places = placesOfSubFile(creation, removals, dropped);
            List<String> allowed = places.stream().map(p -> p == null ? "gone" : "at " + p).toList();
            return places.contains(at) ? null : id + " was created at " + name + " and nothing took it from "
                    + "there, so it can only be " + allowed + ", but it is " + place;
        }
        return name.equals(at) ? null : id + " should be at " + name + " but is " + place;
    }

    /**
     * Where a file created in /shared/sub that no operation took away may be at quiescence (null:
     * gone). The first removal of /shared/sub after the file was linked decides: a recursive
     * delete sweeps it, a rename takes it along (and a later delete of that directory sweeps
     * it). Every removal that may be the first counts; when none certainly came after the
     * create answered, the file may also still be where it was created.
     */
    private static Set<String> placesOfSubFile(Event creation, List<Event> removals, Set<String> dropped) {
        Set<String> places = new HashSet<>();
        boolean surelyRemoved = false;
        for (Event r : removals) {
            if (r.before(creation)) {
                continue;
            }
            boolean surelyNotFirst = removals.stream().anyMatch(q -> q != r && q.start() > creation.created()
                    && q.before(r));
            if (!surelyNotFirst) {
                places.add(r.kind() == Kind.RMR || dropped.contains(r.dst()) ? null
                        : child(r.dst(), name(creation.dst())));
            }
            surelyRemoved |= r.start() > creation.created();
        }
        if (!surelyRemoved) {
            places.add(creation.dst());
        }
        return places;
    }

    /** Every failure of an operation on /shared must have a cause among the recorded successes. */
    private static void checkFailuresHaveCauses(List<Event> all, Map<String, Event> takers,
                                                Map<String, List<Event>> aimedAt, List<Event> removals,
                                                List<Problem> problems) {
        for (Event e : all) {
            String cause = switch (e.kind()) {
                case RENAME, DELETE -> missingSourceCause(e, takers, removals, aimedAt);
                case CREATE -> createFailureCause(e, all);
                case RMDIR, RMR -> e.outcome().equals(FALSE) ? subRemovedBefore(e, all) : "";
                case MOVE_SUB -> e.outcome().equals(ErrorCode.FILE_NOT_FOUND.name())
                        ? subRemovedBefore(e, all) : "";
                default -> "";
            };
            if (cause == null) {
                problems.add(new Problem("nothing recorded explains the outcome of\n    " + e, e.client()));
            }
        }
    }

    /** "" when no cause is needed, a description when one is found, null when none is. */
    private static String missingSourceCause(Event e, Map<String, Event> takers, List<Event> removals,
                                             Map<String, List<Event>> aimedAt) {
        if (e.kind() == Kind.RENAME && inShared(e.dst()) && e.outcome().equals(ErrorCode.FILE_EXISTS.name())) {
            for (Event other : aimedAt.getOrDefault(e.dst(), List.of())) {
                if (other != e && other.ok() && other.start() < e.end()) {
                    return "taken by " + other;
                }
            }
            return null;
        }
        boolean missing = e.outcome().equals(FALSE) || e.outcome().equals(ErrorCode.FILE_NOT_FOUND.name());
        if (!missing || !inShared(e.src())) {
            return "";
        }
        Event taker = takers.get(e.src());
        if (taker != null && taker != e && taker.start() < e.end()) {
            return "taken by " + taker;
        }
        if (inSub(e.src())) {
            for (Event r : removals) {
                if (r.start() < e.end()) {
                    return "swept by " + r;
                }
            }
        }
        return null;
    }

    private static String createFailureCause(Event e, List<Event> all) {
        if (e.ok()) {
            return "";
        }
        for (Event r : all) {
            // Failing to create: the directory was removed before the create ended. Failing at
            // close: the file was swept (in /shared/sub, or in the directory it was moved to)
            // while it was being written.
            boolean cause = e.created() < 0 ? removesSub(r) && r.start() < e.end()
                    : r.ok() && (r.kind() == Kind.RMR || r.kind() == Kind.DROP_OLD) && r.start() < e.end()
                            && r.end() > e.start();
            if (cause) {
                return "removed by " + r;
            }
        }
        return null;
    }

    private static boolean removesSub(Event r) {
        return r.ok() && (r.kind() == Kind.RMR || r.kind() == Kind.RMDIR || r.kind() == Kind.MOVE_SUB);
    }

    private static String subRemovedBefore(Event e, List<Event> all) {
        for (Event r : all) {
            if (r != e && removesSub(r) && r.start() < e.end()) {
                return "removed by " + r;
            }
        }
        return null;
    }

    /**
     * An rmdir of /shared/sub succeeds only when it is empty: every file created in it before the
     * rmdir began must have been taken away or swept before the rmdir ended. An rmdir that
     * finds it not empty needs a file that may have been there.
     */
    private static void checkRmdirs(List<Event> all, Map<String, Event> takers, List<Event> removals,
                                    List<Problem> problems) {
        for (Event d : all) {
            if (d.kind() != Kind.RMDIR) {
                continue;
            }
            boolean emptied = d.outcome().equals(TRUE);
            boolean notEmpty = d.outcome().equals(ErrorCode.DIRECTORY_NOT_EMPTY.name());
            boolean someFileMayBeThere = false;
            for (Event c : all) {
                if (c.kind() != Kind.CREATE || !inSub(c.dst()) || c.start() > d.end()) {
                    continue;
                }
                if (emptied && c.created() >= 0 && c.created() < d.start()
                        && !removedBefore(c, d.end(), takers, removals)) {
                    problems.add(new Problem("rmdir of " + SUB + " succeeded while a file was in it:\n    " + d
                            + "\n    " + c, d.client()));
                }
                someFileMayBeThere |= !definitelyGoneBefore(c, d.start(), takers, removals);
            }
            if (notEmpty && !someFileMayBeThere) {
                problems.add(new Problem("rmdir of " + SUB + " found it not empty, but no file can have been in it:"
                        + "\n    " + d, d.client()));
            }
        }
    }

    /** The file created by {@code c} may have left /shared/sub before tick {@code t}. */
    private static boolean removedBefore(Event c, long t, Map<String, Event> takers, List<Event> removals) {
        Event taker = takers.get(c.dst());
        if (taker != null && taker.start() < t) {
            return true;
        }
        for (Event r : removals) {
            if (r.start() < t && r.end() > c.start()) {
                return true;
            }
        }
        return false;
    }

    /** The file of {@code c} (or its attempt) had certainly left /shared/sub before tick {@code t}. */
    private static boolean definitelyGoneBefore(Event c, long t, Map<String, Event> takers,
                                                List<Event> removals) {
        if (!c.ok() && c.end() < t) {
            return true;
        }
        Event taker = takers.get(c.dst());
        if (taker != null && taker.end() < t) {
            return true;
        }
        for (Event r : removals) {
            if (c.created() >= 0 && r.start() > c.created() && r.end() < t) {
                return true;
            }
        }
        return false;
    }

    /**
     * A listing taken while others work may miss entries or show one that is moving under both
     * names, but never shows a name twice (checked when listed), a name no operation had aimed at
     * before it ended, or a file that was certainly gone before it started.
     */
    private static void checkListings(List<Event> all, Map<String, Event> takers, Map<String, List<Event>> aimedAt,
                                      List<Event> removals, List<Problem> problems) {
        for (Event l : all) {
            if (l.kind() != Kind.LIST || !l.ok()) {
                continue;
            }
            for (String n : l.names()) {
                String path = child(l.dst(), n);
                if (n.endsWith("/")) {
                    continue; // /shared/sub, or one of its moved-away copies
                }
                String why = listedWrongly(l, path, takers, aimedAt.getOrDefault(path, List.of()), removals);
                if (why != null) {
                    problems.add(new Problem("listing showed " + path + ", " + why + ":\n    " + l, l.client()));
                }
            }
        }
    }

    private static String listedWrongly(Event l, String path, Map<String, Event> takers, List<Event> aimedAt,
                                        List<Event> removals) {
        if (aimedAt.stream().noneMatch(e -> e.start() < l.end())) {
            return "which no operation had aimed at";
        }
        Event taker = takers.get(path);
        if (taker != null && taker.before(l)) {
            return "which was taken away before the listing began by\n    " + taker;
        }
        for (Event c : aimedAt) {
            if (c.kind() != Kind.CREATE || !inSub(path)) {
                continue;
            }
            if (!c.ok() && c.before(l)) {
                return "whose creation had failed before the listing began:\n    " + c;
            }
            for (Event r : removals) {
                if (c.ok() && r.start() > c.created() && r.before(l)) {
                    return "which had left with " + SUB + " before the listing began:\n    " + r;
                }
            }
        }
        return null;
    }
}
