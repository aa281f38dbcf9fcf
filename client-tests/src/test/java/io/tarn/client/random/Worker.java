package io.tarn.client.random;

import io.tarn.client.CreateOptions;
import io.tarn.client.TarnClient;
import io.tarn.client.TarnOutputStream;
import io.tarn.client.random.Event.Kind;
import io.tarn.client.random.Ledger.Holding;
import io.tarn.client.random.Rules.Outcome;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Ownership;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.LongAdder;

import static io.tarn.client.random.Calls.AT_CLOSE;
import static io.tarn.client.random.Calls.FALSE;
import static io.tarn.client.random.Calls.OK;
import static io.tarn.client.random.Calls.TRUE;
import static io.tarn.client.random.Calls.codeOf;
import static io.tarn.client.random.Calls.entry;
import static io.tarn.client.random.Calls.isFailure;
import static io.tarn.client.random.Calls.listing;
import static io.tarn.client.random.Calls.outcome;
import static io.tarn.client.random.Contents.read;
import static io.tarn.client.random.Names.child;
import static io.tarn.client.random.Names.name;
import static io.tarn.client.random.Names.owner;
import static io.tarn.client.random.Scenario.CHECK_EVERY;
import static io.tarn.client.random.Scenario.HISTORY;
import static io.tarn.client.random.Scenario.MAX_DEPTH;
import static io.tarn.client.random.Scenario.MAX_HELD;
import static io.tarn.client.random.Scenario.MAX_KEPT_OLD;
import static io.tarn.client.random.Scenario.MAX_PRIVATE_DIRECTORIES;
import static io.tarn.client.random.Scenario.MAX_PRIVATE_FILES;
import static io.tarn.client.random.Scenario.OPERATIONS_PER_CLIENT;
import static io.tarn.client.random.Scenario.RACE_NAMES;
import static io.tarn.client.random.Scenario.SHARED;
import static io.tarn.client.random.Scenario.STRICT;
import static io.tarn.client.random.Scenario.SUB;

/**
 * One client on its own thread: random operations on its subtree (checked against its
 * {@link Tree} exactly) and on /shared (recorded in the {@link Ledger}).
 */
final class Worker implements Callable<Void> {
    private static final CreateOptions NO_PARENTS = new CreateOptions(false, false, -1);
    private static final Rules HDFS = new HdfsRules();
    private static final Rules PARTITIONED = new PartitionedRules();

    final int index;
    final String home;
    final TarnClient client;
    final Tree tree = new Tree();
    private final Random random;
    private final PathPicker pick;
    private final Ledger ledger;
    private final Map<String, LongAdder> divergences;
    private final Map<String, LongAdder> outcomes;
    private final Deque<String> history = new ArrayDeque<>();
    /** Files of /shared (and /shared/sub) this client created or took, by path. */
    private final Map<String, String> held = new LinkedHashMap<>();
    private final Map<String, String> heldInSub = new LinkedHashMap<>();
    /** The divergence the operation being checked meets, until its outcome is known. */
    private String pendingDivergence;
    private int seq;
    private int identities;
    private int freshNames;
    /** Directories this client renamed /shared/sub to and kept. */
    private int keptOld;
    private volatile String current = "(not started)";

    Worker(int index, TarnClient client, long seed, Ledger ledger, Map<String, LongAdder> divergences,
           Map<String, LongAdder> outcomes) {
        this.index = index;
        this.home = "/c" + index;
        this.client = client;
        this.random = new Random(seed * 1_000_003L + index);
        this.pick = new PathPicker(random, tree, home);
        this.ledger = ledger;
        this.divergences = divergences;
        this.outcomes = outcomes;
        tree.mkdirs(home);
    }

    @Override
    public Void call() throws IOException {
        int done = 0;
        int picks = 0;
        while (done < OPERATIONS_PER_CLIENT && !ledger.stopped()) {
            if (++picks > 50 * OPERATIONS_PER_CLIENT) {
                throw failure("could not find operations to run");
            }
            if (random.nextBoolean() ? privateStep() : sharedStep()) {
                done++;
                if (done % CHECK_EVERY == 0) {
                    checkSubtree(false);
                }
            }
        }
        current = "(done)";
        return null;
    }

    String current() {
        return current;
    }

    // -------------------------------------------------------------- part 1: the subtree

    private boolean privateStep() throws IOException {
        int r = random.nextInt(100);
        if (r < 28) {
            return create(pick.pickPath());
        } else if (r < 34) {
            return mkdirs(random.nextInt(3) == 0
                    ? child(child(pick.randomDirectory(), pick.randomName()), pick.randomName())
                    : pick.pickPath());
        } else if (r < 38) {
            return mkdir(pick.pickPath());
        } else if (r < 54) {
            return rename("rename file", pick.pickFileOrPath());
        } else if (r < 62) {
            return rename("rename directory", pick.randomSubdirectory());
        } else if (r < 72) {
            return delete(pick.pickFileOrPath(), random.nextBoolean());
        } else if (r < 78) {
            return delete(pick.randomSubdirectory(), false);
        } else if (r < 80) {
            return delete(pick.randomSubdirectory(), true);
        } else if (r < 90) {
            return list(pick.pickPath());
        }
        return stat(pick.pickPath());
    }

    private boolean create(String path) throws IOException {
        if (tree.files(home).size() >= MAX_PRIVATE_FILES || Tree.depth(path) > MAX_DEPTH) {
            return false;
        }
        List<String> expected = expect("create", HDFS.create(tree, path), PARTITIONED.create(tree, path));
        if (expected == null) {
            return false;
        }
        String id = newIdentity();
        byte[] data = ledger.register(id, 1 + random.nextInt(4));
        String actual = outcome(() -> {
            try (TarnOutputStream out = client.create(path)) {
                out.write(data);
            }
            return OK;
        });
        check("create " + path + " [" + id + "]", expected, actual);
        if (actual.equals(OK)) {
            tree.putFile(path, id, data.length);
        }
        return true;
    }

    private boolean mkdirs(String path) throws IOException {
        if (tree.directories(home).size() >= MAX_PRIVATE_DIRECTORIES || Tree.depth(path) > MAX_DEPTH) {
            return false;
        }
        String actual = outcome(() -> client.mkdirs(path) ? OK : FALSE);
        check("mkdirs " + path, List.of(Rules.mkdirs(tree, path)), actual);
        if (actual.equals(OK)) {
            tree.mkdirs(path);
        }
        return true;
    }

    private boolean mkdir(String path) throws IOException {
        if (tree.directories(home).size() >= MAX_PRIVATE_DIRECTORIES) {
            return false;
        }
        List<String> expected = expect("mkdir", HDFS.mkdir(tree, path), PARTITIONED.mkdir(tree, path));
        if (expected == null) {
            return false;
        }
        String actual = outcome(() -> {
            client.mkdir(path, Ownership.UNSPECIFIED);
            return OK;
        });
        check("mkdir " + path, expected, actual);
        if (actual.equals(OK)) {
            tree.mkdirs(path);
        }
        return true;
    }

    private boolean rename(String what, String src) throws IOException {
        if (src == null) {
            return false;
        }
        String dst = pick.pickRenameTarget(src);
        Outcome hdfs = HDFS.rename(tree, src, dst);
        List<String> expected = expect(what, hdfs, PARTITIONED.rename(tree, src, dst));
        if (expected == null) {
            return false;
        }
        String actual = outcome(() -> {
            client.rename(src, dst);
            return OK;
        });
        check(what + " " + src + " to " + dst + (hdfs.target() != null ? " (lands at " + hdfs.target() + ")" : ""),
                expected, actual);
        if (actual.equals(OK) && hdfs.target() != null) {
            tree.move(src, hdfs.target());
        }
        return true;
    }

    private boolean delete(String path, boolean recursive) throws IOException {
        if (path == null) {
            return false;
        }
        String actual = outcome(() -> client.delete(path, recursive));
        check("delete " + path + (recursive ? " recursively" : ""), List.of(Rules.delete(tree, path, recursive)),
                actual);
        if (actual.equals(TRUE)) {
            tree.remove(path);
        }
        return true;
    }

    private boolean list(String path) throws IOException {
        String expected = tree.listing(path);
        String actual = outcome(() -> "[" + listing(client.list(path)) + "]");
        check("list " + path, List.of(expected == null ? ErrorCode.FILE_NOT_FOUND.name() : "[" + expected + "]"),
                actual);
        return true;
    }

    private boolean stat(String path) throws IOException {
        Tree.Node n = tree.get(path);
        String actual = outcome(() -> entry(client.getStatus(path)));
        check("getStatus " + path, List.of(n == null ? ErrorCode.FILE_NOT_FOUND.name() : n.entry(name(path))),
                actual);
        return true;
    }

    /**
     * The outcomes accepted under the rules in force: HDFS's only in strict mode; otherwise, where
     * {@link PartitionedRules} differs from HDFS only in the error code, either code (the
     * divergences are being fixed one by one), and null (skip this operation) where the outcome
     * itself differs. Divergences met are counted.
     */
    private List<String> expect(String what, String hdfs, String partitioned) {
        if (hdfs.equals(partitioned) || STRICT) {
            return List.of(hdfs);
        }
        boolean onlyTheCode = isFailure(hdfs) && isFailure(partitioned);
        pendingDivergence = what + ": HDFS " + hdfs + ", partitioned " + partitioned;
        if (!onlyTheCode) {
            countDivergence("skipped");
            return null;
        }
        return List.of(hdfs, partitioned);
    }

    /** As above for renames, whose success also says where the source lands (HDFS's target when accepted). */
    private List<String> expect(String what, Outcome hdfs, Outcome partitioned) {
        if (hdfs.key().equals(partitioned.key())) {
            return List.of(hdfs.code());
        }
        return expect(what, hdfs.code(), hdfs.code().equals(partitioned.code())
                ? partitioned.code() + " elsewhere" : partitioned.code());
    }

    private void countDivergence(String seen) {
        if (pendingDivergence != null) {
            divergences.computeIfAbsent(pendingDivergence + ": " + seen, k -> new LongAdder()).increment();
            pendingDivergence = null;
        }
    }

    /** The full recursive listing of the subtree equals the model; some (or all) files read back. */
    void checkSubtree(boolean allContents) throws IOException {
        current = "checking " + home;
        for (String dir : tree.directories(home)) {
            List<FileStatus> listed = client.list(dir);
            String actual = listing(listed);
            if (!actual.equals(tree.listing(dir))) {
                throw failure("listing " + dir + " shows [" + actual + "] but the model has [" + tree.listing(dir)
                        + "]");
            }
            for (FileStatus s : listed) {
                if (s.isFile() && FileIds.partition(s.fileId()) != owner(s.name())) {
                    throw failure(child(dir, s.name()) + " lives on namenode " + FileIds.partition(s.fileId())
                            + ", not on " + owner(s.name()) + " which owns its name");
                }
            }
        }
        List<String> files = tree.files(home);
        int reads = allContents ? files.size() : Math.min(2, files.size());
        for (int i = 0; i < reads; i++) {
            String path = allContents ? files.get(i) : files.get(random.nextInt(files.size()));
            byte[] expected = ledger.content(tree.get(path).identity);
            byte[] actual = read(client, path);
            if (!Arrays.equals(expected, actual)) {
                throw failure(path + " reads \"" + new String(actual, StandardCharsets.UTF_8) + "\" but holds \""
                        + new String(expected, StandardCharsets.UTF_8) + "\"");
            }
        }
    }

    /** Identity → path of every file the model has in the subtree. */
    Map<String, String> identitiesInSubtree() {
        Map<String, String> out = new HashMap<>();
        for (String path : tree.files(home)) {
            out.put(tree.get(path).identity, path);
        }
        return out;
    }

    // -------------------------------------------------------------- part 2: /shared

    private boolean sharedStep() throws IOException {
        int r = random.nextInt(100);
        if (r < 12) {
            return createShared(SHARED, held);
        } else if (r < 26) {
            return createShared(SUB, heldInSub);
        } else if (r < 36) {
            return renameHeld();
        } else if (r < 42) {
            return moveHeldIntoSubtree();
        } else if (r < 48) {
            return moveSubtreeFileToShared();
        } else if (r < 53) {
            return deleteHeld(held);
        } else if (r < 63) {
            return steal();
        } else if (r < 68) {
            return moveOutOfSub();
        } else if (r < 72) {
            return deleteHeld(heldInSub);
        } else if (r < 75) {
            return removeSub(false);
        } else if (r < 78) {
            return removeSub(true);
        } else if (r < 83) {
            return makeSub();
        } else if (r < 85) {
            return moveSubAway();
        }
        return listShared();
    }

    private boolean createShared(String dir, Map<String, String> into) throws IOException {
        if (into.size() >= MAX_HELD) {
            return false;
        }
        String path = child(dir, freshName());
        String id = newIdentity();
        byte[] data = ledger.register(id, 1 + random.nextInt(4));
        boolean sub = dir.equals(SUB);
        CreateOptions options = !sub || random.nextInt(10) < 3 ? CreateOptions.DEFAULT : NO_PARENTS;
        current = "create " + path;
        long start = ledger.tick();
        long created = -1;
        String outcome;
        try {
            TarnOutputStream out = client.create(path, options);
            created = ledger.tick();
            try (out) {
                out.write(data);
            }
            outcome = OK;
        } catch (IOException e) {
            outcome = (created < 0 ? "" : AT_CLOSE) + codeOf(e);
        }
        Event e = ledger.record(new Event(index, ++seq, Kind.CREATE, id, null, path, start, created, ledger.tick(),
                outcome, null));
        if (sub) {
            // A recursive delete may sweep the file while it is written: the namenode has forgotten
            // it, or its block was freed and given to another file (the datanode refuses the
            // write with the stale generation).
            expectOneOf(e, OK, ErrorCode.PARENT_NOT_FOUND.name(), AT_CLOSE + ErrorCode.FILE_NOT_FOUND.name(),
                    AT_CLOSE + ErrorCode.STALE_GENERATION.name());
        } else {
            expectOneOf(e, OK);
        }
        if (e.ok()) {
            into.put(path, id);
            if (!sub) {
                ledger.offer(path, id, index);
            }
        }
        return true;
    }

    /** A held file of /shared to a fresh name, or to a contested one (where it then stays). */
    private boolean renameHeld() throws IOException {
        String src = pick.randomKey(held);
        if (src == null) {
            return false;
        }
        String id = held.remove(src);
        boolean contested = random.nextInt(4) == 0;
        String dst = child(SHARED, contested ? "race-" + random.nextInt(RACE_NAMES) : freshName());
        Event e = rename(id, src, dst);
        ledger.withdraw(src);
        if (contested) {
            expectOneOf(e, OK, ErrorCode.FILE_NOT_FOUND.name(), ErrorCode.FILE_EXISTS.name());
        } else {
            expectOneOf(e, OK, ErrorCode.FILE_NOT_FOUND.name());
        }
        if (e.ok() && !contested) {
            held.put(dst, id);
            ledger.offer(dst, id, index);
        } else if (e.outcome().equals(ErrorCode.FILE_EXISTS.name())) {
            held.put(src, id);
            ledger.offer(src, id, index);
        }
        return true;
    }

    private boolean moveHeldIntoSubtree() throws IOException {
        String src = pick.randomKey(held);
        if (src == null) {
            return false;
        }
        String id = held.get(src);
        Event e = renameIntoSubtree(src, id);
        if (e == null) {
            return false;
        }
        if (e.ok() || e.outcome().equals(ErrorCode.FILE_NOT_FOUND.name())) {
            held.remove(src);
            ledger.withdraw(src);
        }
        return true;
    }

    /**
     * Renames file {@code src} of /shared into the subtree, as the model predicts unless another
     * client took the file first (FILE_NOT_FOUND). Null when the rules diverge here (skipped).
     */
    private Event renameIntoSubtree(String src, String id) throws IOException {
        String dst = random.nextBoolean() ? pick.randomDirectory() : child(pick.randomDirectory(), pick.randomName());
        tree.putFile(src, id, ledger.content(id).length);
        try {
            Outcome hdfs = HDFS.rename(tree, src, dst);
            List<String> expected = expect("rename file", hdfs, PARTITIONED.rename(tree, src, dst));
            if (expected == null) {
                return null;
            }
            Event e = rename(id, src, dst);
            List<String> allowed = new ArrayList<>(expected);
            allowed.add(ErrorCode.FILE_NOT_FOUND.name()); // another client took it first
            expectOneOf(e, allowed.toArray(new String[0]));
            if (e.ok()) {
                tree.move(src, hdfs.target());
            }
            return e;
        } finally {
            tree.clearShared();
        }
    }

    private boolean moveSubtreeFileToShared() throws IOException {
        List<String> files = tree.files(home);
        if (files.isEmpty()) {
            return false;
        }
        String src = files.get(random.nextInt(files.size()));
        String dst = child(SHARED, freshName());
        String id = tree.get(src).identity;
        List<String> expected = expect("rename file", HDFS.rename(tree, src, dst),
                PARTITIONED.rename(tree, src, dst));
        if (expected == null) {
            return false;
        }
        Event e = rename(id, src, dst);
        expectOneOf(e, expected.toArray(new String[0]));
        if (e.ok()) {
            tree.remove(src);
            held.put(dst, id);
            ledger.offer(dst, id, index);
        }
        return true;
    }

    private boolean deleteHeld(Map<String, String> from) throws IOException {
        String src = pick.randomKey(from);
        if (src == null) {
            return false;
        }
        String id = from.remove(src);
        Event e = delete(id, src, random.nextBoolean());
        ledger.withdraw(src);
        expectOneOf(e, TRUE, FALSE);
        return true;
    }

    /** Renames or deletes a file another client holds, racing it (and the others). */
    private boolean steal() throws IOException {
        Map.Entry<String, Holding> offer = ledger.pickOffer(random, index);
        if (offer == null) {
            return false;
        }
        String src = offer.getKey();
        String id = offer.getValue().identity();
        int r = random.nextInt(10);
        if (r < 5) {
            String dst = child(SHARED, freshName());
            Event e = rename(id, src, dst);
            expectOneOf(e, OK, ErrorCode.FILE_NOT_FOUND.name());
            if (e.ok()) {
                held.put(dst, id);
                ledger.offer(dst, id, index);
            }
        } else if (r < 8) {
            if (renameIntoSubtree(src, id) == null) {
                return false;
            }
        } else {
            expectOneOf(delete(id, src, random.nextBoolean()), TRUE, FALSE);
        }
        ledger.withdraw(src);
        return true;
    }

    private boolean moveOutOfSub() throws IOException {
        String src = pick.randomKey(heldInSub);
        if (src == null) {
            return false;
        }
        String id = heldInSub.remove(src);
        String dst = child(SHARED, freshName());
        Event e = rename(id, src, dst);
        expectOneOf(e, OK, ErrorCode.FILE_NOT_FOUND.name());
        if (e.ok()) {
            held.put(dst, id);
            ledger.offer(dst, id, index);
        }
        return true;
    }

    /**
     * The outcomes an operation on /shared/sub itself may have besides {@code expected}: by
     * default also AT_COORDINATOR, a known bug (see
     * {@link RandomNamespaceConcurrencyTest#atCoordinatorNeverReachesTheCaller}); it changes nothing, and is counted
     * with the divergences.
     */
    private String[] subDirectoryOutcomes(Event e, String... expected) {
        List<String> allowed = new ArrayList<>(List.of(expected));
        if (!STRICT) {
            allowed.add(ErrorCode.AT_COORDINATOR.name());
            if (e.outcome().equals(ErrorCode.AT_COORDINATOR.name())) {
                divergences.computeIfAbsent("known bug: " + e.kind() + " of " + SUB + " answered AT_COORDINATOR",
                        k -> new LongAdder()).increment();
            }
        }
        return allowed.toArray(new String[0]);
    }

    private boolean removeSub(boolean recursive) throws IOException {
        Kind kind = recursive ? Kind.RMR : Kind.RMDIR;
        current = kind + " " + SUB;
        long start = ledger.tick();
        String outcome = outcome(() -> client.delete(SUB, recursive));
        Event e = ledger.record(new Event(index, ++seq, kind, null, SUB, null, start, -1, ledger.tick(), outcome,
                null));
        if (recursive) {
            expectOneOf(e, subDirectoryOutcomes(e, TRUE, FALSE));
        } else {
            expectOneOf(e, subDirectoryOutcomes(e, TRUE, FALSE, ErrorCode.DIRECTORY_NOT_EMPTY.name()));
        }
        return true;
    }

    /**
     * Renames /shared/sub away, with whatever others are creating in it, to a fresh name; then
     * mostly deletes that directory recursively, sometimes keeps it to the end (where its files
     * are checked).
     */
    private boolean moveSubAway() throws IOException {
        String old = child(SHARED, "old" + index + "-" + freshNames++);
        current = "rename " + SUB + " to " + old;
        long start = ledger.tick();
        String outcome = outcome(() -> {
            client.rename(SUB, old);
            return OK;
        });
        Event e = ledger.record(new Event(index, ++seq, Kind.MOVE_SUB, null, SUB, old, start, -1, ledger.tick(),
                outcome, null));
        expectOneOf(e, subDirectoryOutcomes(e, OK, ErrorCode.FILE_NOT_FOUND.name()));
        if (e.ok() && (keptOld >= MAX_KEPT_OLD || random.nextInt(3) != 0)) {
            current = "delete " + old;
            long dropStart = ledger.tick();
            String dropped = outcome(() -> client.delete(old, true));
            expectOneOf(ledger.record(new Event(index, ++seq, Kind.DROP_OLD, null, old, null, dropStart, -1,
                    ledger.tick(), dropped, null)), TRUE);
        } else if (e.ok()) {
            keptOld++;
        }
        return true;
    }

    private boolean makeSub() throws IOException {
        current = "mkdirs " + SUB;
        long start = ledger.tick();
        String outcome = outcome(() -> client.mkdirs(SUB) ? OK : FALSE);
        expectOneOf(ledger.record(new Event(index, ++seq, Kind.MKDIRS, null, null, SUB, start, -1, ledger.tick(),
                outcome, null)), OK);
        return true;
    }

    private boolean listShared() throws IOException {
        for (String dir : List.of(SHARED, SUB)) {
            current = "list " + dir;
            long start = ledger.tick();
            List<FileStatus> entries = List.of();
            String outcome;
            try {
                entries = client.list(dir);
                outcome = OK;
            } catch (IOException e) {
                outcome = codeOf(e);
            }
            List<String> names = entries.stream().map(s -> s.isDirectory() ? s.name() + "/" : s.name()).toList();
            Event e = ledger.record(new Event(index, ++seq, Kind.LIST, null, null, dir, start, -1, ledger.tick(),
                    outcome, names));
            if (dir.equals(SHARED)) {
                expectOneOf(e, OK);
            } else {
                expectOneOf(e, OK, ErrorCode.FILE_NOT_FOUND.name());
            }
            if (entries.stream().map(FileStatus::name).distinct().count() != entries.size()) {
                throw failure("a listing of " + dir + " shows a name twice: " + names);
            }
        }
        return true;
    }

    private Event rename(String id, String src, String dst) {
        current = "rename " + src + " to " + dst;
        long start = ledger.tick();
        String outcome = outcome(() -> {
            client.rename(src, dst);
            return OK;
        });
        return ledger.record(new Event(index, ++seq, Kind.RENAME, id, src, dst, start, -1, ledger.tick(), outcome,
                null));
    }

    private Event delete(String id, String src, boolean recursive) {
        current = "delete " + src;
        long start = ledger.tick();
        String outcome = outcome(() -> client.delete(src, recursive));
        return ledger.record(new Event(index, ++seq, Kind.DELETE, id, src, null, start, -1, ledger.tick(), outcome,
                null));
    }

    // -------------------------------------------------------------- new names (the paths: PathPicker)

    private String newIdentity() {
        return "c" + index + "-" + identities++;
    }

    private String freshName() {
        return "s" + index + "-" + freshNames++;
    }

    // -------------------------------------------------------------- checking and reporting

    private void check(String what, List<String> expected, String actual) {
        remember("#" + ++seq + " " + what + ": " + actual);
        countDivergence("got " + actual);
        tally(what.substring(0, what.indexOf(" /")), actual);
        if (!expected.contains(actual)) {
            throw failure(what + ": expected " + String.join(" or ", expected) + " but got " + actual);
        }
    }

    private void expectOneOf(Event e, String... allowed) {
        remember(e.toString());
        countDivergence("got " + e.outcome());
        tally("shared " + e.kind(), e.outcome());
        if (!Arrays.asList(allowed).contains(e.outcome())) {
            throw failure("unexpected outcome " + e.outcome() + " (expected one of " + Arrays.toString(allowed)
                    + ") of " + e);
        }
    }

    /** Counts outcomes by operation, to show what a run covered. */
    private void tally(String operation, String outcome) {
        boolean answer = !isFailure(outcome) || outcome.startsWith(AT_CLOSE)
                || Arrays.stream(ErrorCode.values()).anyMatch(c -> c.name().equals(outcome));
        outcomes.computeIfAbsent(operation + " " + (answer ? outcome : "answered"), k -> new LongAdder())
                .increment();
    }

    private synchronized void remember(String line) {
        history.addLast(line);
        if (history.size() > HISTORY) {
            history.removeFirst();
        }
    }

    synchronized String history() {
        return "last " + history.size() + " operations of client " + index + ":\n  " + String.join("\n  ", history);
    }

    AssertionError failure(String message) {
        ledger.stop();
        return new AssertionError(ledger.seedText() + ", client " + index + ": " + message + "\n" + history());
    }
}
