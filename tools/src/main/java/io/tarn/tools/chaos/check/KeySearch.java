package io.tarn.tools.chaos.check;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The search for a linearization of one key's sub-history: Wing and Gong's depth-first search over
 * the operations that may go next, with Lowe's memoisation of (set of operations linearized, model
 * state) pairs already explored, the algorithm Porcupine implements.
 *
 * <p>The history is a doubly linked list of call and return events in time order. An operation
 * whose call is minimal (no return precedes it in the list) may be linearized next if the model
 * accepts it; it is then lifted out of the list. Reaching a return event means the operation it
 * ends was not linearized before its completion, so the search backtracks. Indeterminate
 * operations return at {@link Operation#NEVER}, after every other event, so they may be linearized
 * anywhere after their call; placed after the last observed operation, they have no visible effect,
 * which covers "never happened".
 */
final class KeySearch<S> {
    /** One event of the list: an operation's call or its return. */
    private static final class Event {
        final Operation op;
        final int index;
        final boolean call;
        final long time;
        Event match;
        Event prev;
        Event next;

        Event(Operation op, int index, boolean call, long time) {
            this.op = op;
            this.index = index;
            this.call = call;
            this.time = time;
        }
    }

    /** A linearized operation with the state before it, to undo it. */
    private record Frame<S>(Event call, S before) {
    }

    /** A configuration already explored. */
    private record Memo<S>(BitSet linearized, S state) {
    }

    /** What the search found, and how many configurations it memoised. */
    record Outcome(Verdict verdict, long states) {
    }

    private final Model<S> model;
    private final Event head = new Event(null, -1, false, Long.MIN_VALUE);

    KeySearch(Model<S> model, List<Operation> ops) {
        this.model = model;
        List<Event> events = new ArrayList<>(ops.size() * 2);
        for (int i = 0; i < ops.size(); i++) {
            Operation op = ops.get(i);
            Event call = new Event(op, i, true, op.invoke());
            Event ret = new Event(op, i, false, op.complete());
            call.match = ret;
            events.add(call);
            events.add(ret);
        }
        // Calls before returns at equal times: such operations overlap, the reading that refutes least.
        events.sort(Comparator.<Event>comparingLong(e -> e.time).thenComparing(e -> !e.call));
        Event last = head;
        for (Event e : events) {
            last.next = e;
            e.prev = last;
            last = e;
        }
    }

    /** Searches with at most {@code budget} memoised configurations. */
    Outcome run(long budget) {
        Set<Memo<S>> seen = new HashSet<>();
        Deque<Frame<S>> stack = new ArrayDeque<>();
        BitSet linearized = new BitSet();
        S state = model.initial();
        Event entry = head.next;
        while (head.next != null) {
            if (entry.call) {
                S next = model.step(state, entry.op);
                if (next != null) {
                    BitSet after = (BitSet) linearized.clone();
                    after.set(entry.index);
                    if (seen.add(new Memo<>(after, next))) {
                        if (seen.size() > budget) {
                            return new Outcome(Verdict.INCONCLUSIVE, seen.size());
                        }
                        stack.push(new Frame<>(entry, state));
                        state = next;
                        linearized.set(entry.index);
                        lift(entry);
                        entry = head.next;
                        continue;
                    }
                }
                entry = entry.next;
            } else {
                if (stack.isEmpty()) {
                    return new Outcome(Verdict.NOT_LINEARIZABLE, seen.size());
                }
                Frame<S> top = stack.pop();
                state = top.before();
                linearized.clear(top.call().index);
                unlift(top.call());
                entry = top.call().next;
            }
        }
        return new Outcome(Verdict.LINEARIZABLE, seen.size());
    }

    private static void lift(Event call) {
        remove(call);
        remove(call.match);
    }

    private static void unlift(Event call) {
        insert(call.match);
        insert(call);
    }

    private static void remove(Event e) {
        e.prev.next = e.next;
        if (e.next != null) {
            e.next.prev = e.prev;
        }
    }

    /** Puts back an event removed last-in-first-out: its neighbours still point where it was. */
    private static void insert(Event e) {
        e.prev.next = e;
        if (e.next != null) {
            e.next.prev = e;
        }
    }
}
