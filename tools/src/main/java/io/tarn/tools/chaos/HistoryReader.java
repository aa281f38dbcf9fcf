package io.tarn.tools.chaos;

import io.tarn.tools.chaos.check.Operation;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a history file {@link History} wrote back into operations, to check a kept history again
 * ({@code tarn chaos --check-history FILE}). An operation invoked and never completed (the run
 * died) is indeterminate.
 */
final class HistoryReader {
    private HistoryReader() {
    }

    static List<Operation> read(Path file) throws IOException {
        Map<Long, Map<String, String>> invoked = new LinkedHashMap<>();
        List<Operation> ops = new ArrayList<>();
        int lineNumber = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNumber++;
            if (line.isBlank()) {
                continue;
            }
            Map<String, String> e;
            try {
                e = parse(line);
            } catch (IllegalArgumentException ex) {
                throw new IOException(file + ":" + lineNumber + ": " + ex.getMessage(), ex);
            }
            String event = e.getOrDefault("event", "");
            if (event.equals("invoke")) {
                invoked.put(Long.parseLong(e.get("id")), e);
            } else if (event.equals("complete")) {
                Map<String, String> call = invoked.remove(Long.parseLong(e.get("id")));
                if (call == null) {
                    throw new IOException(file + ":" + lineNumber + ": completion of operation " + e.get("id")
                            + " that was never invoked");
                }
                ops.add(operation(call, e.get("value"), Long.parseLong(e.get("t")),
                        Operation.Outcome.valueOf(e.get("outcome").toUpperCase())));
            }
        }
        for (Map<String, String> call : invoked.values()) {
            ops.add(operation(call, null, Operation.NEVER, Operation.Outcome.INDETERMINATE));
        }
        return ops;
    }

    /** The operation an invocation line began, completed at {@code t} with {@code read} as a read's value. */
    private static Operation operation(Map<String, String> call, String read, long t, Operation.Outcome outcome) {
        Operation.Kind kind = Operation.Kind.valueOf(call.get("op").toUpperCase());
        String value = kind == Operation.Kind.WRITE ? call.get("value") : read;
        return new Operation(Long.parseLong(call.get("id")), Integer.parseInt(call.get("client")), call.get("key"),
                kind, value, Long.parseLong(call.get("t")), t, outcome);
    }

    /** A flat JSON object of strings and numbers, as History writes it. */
    static Map<String, String> parse(String line) {
        Map<String, String> fields = new HashMap<>();
        int[] pos = {skip(line, 0)};
        expect(line, pos, '{');
        while (true) {
            pos[0] = skip(line, pos[0]);
            if (line.charAt(pos[0]) == '}') {
                return fields;
            }
            String name = string(line, pos);
            pos[0] = skip(line, pos[0]);
            expect(line, pos, ':');
            pos[0] = skip(line, pos[0]);
            String value;
            if (line.charAt(pos[0]) == '"') {
                value = string(line, pos);
            } else {
                int start = pos[0];
                while (pos[0] < line.length() && "-0123456789".indexOf(line.charAt(pos[0])) >= 0) {
                    pos[0]++;
                }
                if (start == pos[0]) {
                    throw new IllegalArgumentException("expected a string or number at column " + (start + 1));
                }
                value = line.substring(start, pos[0]);
            }
            fields.put(name, value);
            pos[0] = skip(line, pos[0]);
            if (line.charAt(pos[0]) == ',') {
                pos[0]++;
            }
        }
    }

    private static String string(String s, int[] pos) {
        expect(s, pos, '"');
        StringBuilder b = new StringBuilder();
        while (true) {
            char c = s.charAt(pos[0]++);
            if (c == '"') {
                return b.toString();
            }
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char esc = s.charAt(pos[0]++);
            switch (esc) {
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    b.append((char) Integer.parseInt(s.substring(pos[0], pos[0] + 4), 16));
                    pos[0] += 4;
                }
                default -> b.append(esc);
            }
        }
    }

    private static void expect(String s, int[] pos, char c) {
        if (pos[0] >= s.length() || s.charAt(pos[0]) != c) {
            throw new IllegalArgumentException("expected '" + c + "' at column " + (pos[0] + 1));
        }
        pos[0]++;
    }

    private static int skip(String s, int i) {
        while (i < s.length() && s.charAt(i) == ' ') {
            i++;
        }
        if (i >= s.length()) {
            throw new IllegalArgumentException("line ends early");
        }
        return i;
    }
}
