package io.tarn.tools.chaos;

import io.tarn.tools.chaos.check.Operation;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The record of a chaos run, kept as it happens in a JSON-lines file: every operation's invocation
 * and completion (System.nanoTime of this JVM, result, error) and every fault. One line per event,
 * so a run that dies midway still leaves what happened until then.
 *
 * <pre>
 * {"event":"invoke","id":7,"client":2,"op":"write","key":"k12","value":"c2-k12-9f3a","t":1234}
 * {"event":"complete","id":7,"outcome":"ok","value":"c2-k12-9f3a","t":5678}
 * {"event":"complete","id":8,"outcome":"indeterminate","error":"RpcTimeoutException: ...","t":6000}
 * {"event":"fault","action":"kill","target":"dn3","t":7000}
 * </pre>
 */
final class History implements AutoCloseable {
    /** An operation invoked and not yet completed. */
    record Pending(long id, int client, String key, Operation.Kind kind, String value, long invoke) {
    }

    private final Path file;
    private final BufferedWriter out;
    private final AtomicLong ids = new AtomicLong();
    private final List<Operation> operations = new ArrayList<>();

    History(Path file) throws IOException {
        this.file = file;
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
    }

    Path file() {
        return file;
    }

    Pending invoke(int client, Operation.Kind kind, String key, String value) {
        long id = ids.incrementAndGet();
        long now = System.nanoTime();
        line("{\"event\":\"invoke\",\"id\":" + id + ",\"client\":" + client + ",\"op\":\""
                + kind.name().toLowerCase() + "\",\"key\":" + json(key) + (value == null ? "" : ",\"value\":"
                + json(value)) + ",\"t\":" + now + "}");
        return new Pending(id, client, key, kind, value, now);
    }

    /**
     * Records the end of {@code op}: {@code value} is what a read returned (null: absent); error the
     * reason of a failed or indeterminate one.
     */
    Operation complete(Pending op, Operation.Outcome outcome, String value, String error) {
        long now = System.nanoTime();
        String result = op.kind() == Operation.Kind.WRITE ? op.value() : value;
        Operation done = new Operation(op.id(), op.client(), op.key(), op.kind(), result, op.invoke(), now, outcome);
        synchronized (this) {
            operations.add(done);
        }
        line("{\"event\":\"complete\",\"id\":" + op.id() + ",\"outcome\":\"" + outcome.name().toLowerCase() + "\""
                + (result == null ? "" : ",\"value\":" + json(result))
                + (error == null ? "" : ",\"error\":" + json(error)) + ",\"t\":" + now + "}");
        return done;
    }

    /** Records a fault action (kill, pause, isolate, their heals) on a target. */
    void fault(String action, String target) {
        line("{\"event\":\"fault\",\"action\":" + json(action) + ",\"target\":" + json(target) + ",\"t\":"
                + System.nanoTime() + "}");
    }

    /** Records a note (the seed, the options, the verdict). */
    void note(String text) {
        line("{\"event\":\"note\",\"text\":" + json(text) + ",\"t\":" + System.nanoTime() + "}");
    }

    /** The operations completed so far; one still running at the end is recorded by its caller as indeterminate. */
    synchronized List<Operation> operations() {
        return new ArrayList<>(operations);
    }

    private synchronized void line(String json) {
        try {
            out.write(json);
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the history to " + file, e);
        }
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }
}
