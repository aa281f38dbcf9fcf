package io.tarn.common.config;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The immutable, typed configuration of one Tarn process (or of one component inside a test JVM).
 *
 * <p>Built from the defaults in {@link TarnKeys}, then an optional {@code tarn-site.conf}, then
 * {@code -Dtarn.*} system properties, then explicit overrides; later sources win. Unknown
 * {@code tarn.*} keys are rejected so that typos do not silently fall back to defaults.
 * {@link Builder#build()} validates every value and the relations between them.
 */
public final class TarnConfig {

    private static final Map<String, ConfigKey<?>> KEYS_BY_NAME;
    /** System properties bin/tarn sets for itself; they are not configuration keys. */
    private static final Set<String> LAUNCHER_PROPERTIES = Set.of("tarn.conf", "tarn.home");
    /** What a key in a configuration file looks like: a word of letters, digits, dots, dashes and underscores. */
    private static final Pattern KEY_SYNTAX = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]*");

    static {
        Map<String, ConfigKey<?>> m = new HashMap<>();
        for (ConfigKey<?> k : TarnKeys.ALL) {
            m.put(k.name(), k);
        }
        KEYS_BY_NAME = Collections.unmodifiableMap(m);
    }

    private final Map<ConfigKey<?>, Object> values;

    private TarnConfig(Map<ConfigKey<?>, Object> values) {
        this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
    }

    /** The defaults, with no file or system property applied. */
    public static TarnConfig defaults() {
        return builder().build();
    }

    /** Defaults overridden by {@code -Dtarn.*} system properties. */
    public static TarnConfig fromSystemProperties() {
        return builder().applySystemProperties().build();
    }

    public static Builder builder() {
        return new Builder(Map.of());
    }

    /** A builder starting from this configuration's values. */
    public Builder toBuilder() {
        return new Builder(values);
    }

    /** The value of a key (its default when nothing set it). */
    @SuppressWarnings("unchecked")
    public <T> T get(ConfigKey<T> key) {
        Object v = values.get(key);
        return v == null ? key.defaultValue() : (T) v;
    }

    /** True when a file, a property or an override set {@code key} (even to its default). */
    public boolean isSet(ConfigKey<?> key) {
        return values.containsKey(key);
    }

    /** Convenience for byte sizes that must fit an int (block and chunk sizes). */
    public int getInt(ConfigKey<Long> key) {
        return Math.toIntExact(get(key));
    }

    /** The key of a given name, or null. */
    public static ConfigKey<?> key(String name) {
        return KEYS_BY_NAME.get(name);
    }

    /** The namenodes of the cluster in partition order ({@link TarnKeys#NAMENODE_ADDRESS}). */
    public List<HostPort> namenodes() {
        return HostPort.parseList(get(TarnKeys.NAMENODE_ADDRESS));
    }

    /**
     * The members of each partition's namenodes, in partition order: one each, or the members of a
     * replicated group in member order.
     */
    public List<List<HostPort>> namenodeGroups() {
        return HostPort.parseGroups(get(TarnKeys.NAMENODE_ADDRESS));
    }

    /**
     * What a client reaches first: the first entry of tarn.namenode.address, or, when that names one
     * member of the group tarn.namenode.members lists, the whole group.
     */
    public List<HostPort> seedNamenodes() {
        List<HostPort> first = namenodeGroups().get(0);
        String members = get(TarnKeys.NAMENODE_MEMBERS);
        if (first.size() == 1 && !members.isEmpty()) {
            List<HostPort> group = HostPort.parseGroups(members).get(0);
            if (group.contains(first.get(0))) {
                return group;
            }
        }
        return first;
    }

    /** Every key with its effective value, formatted as a configuration file would hold it. */
    public Map<String, String> describe() {
        Map<String, String> out = new LinkedHashMap<>();
        for (ConfigKey<?> k : TarnKeys.ALL) {
            out.put(k.name(), formatted(k));
        }
        return out;
    }

    private <T> String formatted(ConfigKey<T> key) {
        return key.format(get(key));
    }

    @Override
    public String toString() {
        return "TarnConfig" + describe();
    }

    /** Collects values; {@link #build()} validates them. Not thread-safe. */
    public static final class Builder {
        private final Map<ConfigKey<?>, Object> values;

        private Builder(Map<ConfigKey<?>, Object> initial) {
            this.values = new LinkedHashMap<>(initial);
        }

        /** Sets a typed value. */
        public <T> Builder set(ConfigKey<T> key, T value) {
            key.validate(value);
            values.put(key, value);
            return this;
        }

        /** Sets a value from text, as a file or -D option would. */
        public Builder set(String name, String text) {
            ConfigKey<?> key = KEYS_BY_NAME.get(name.trim());
            if (key == null) {
                throw new ConfigException("unknown configuration key '" + name + "'"
                        + suggestion(name.trim()));
            }
            values.put(key, key.parse(text));
            return this;
        }

        /** Applies every {@code tarn.*} system property. */
        public Builder applySystemProperties() {
            return apply(System.getProperties());
        }

        /**
         * Applies every {@code tarn.*} entry of the given properties, except the launcher's own
         * {@code tarn.conf} and {@code tarn.home} and the test-only {@code tarn.sim.*} and
         * {@code tarn.test.*} namespaces.
         */
        public Builder apply(Properties props) {
            for (String name : props.stringPropertyNames()) {
                if (name.startsWith("tarn.") && !LAUNCHER_PROPERTIES.contains(name)
                        && !name.startsWith("tarn.sim.") && !name.startsWith("tarn.test.")) {
                    set(name, props.getProperty(name));
                }
            }
            return this;
        }

        /** Applies every {@code tarn.*} entry of the map. */
        public Builder apply(Map<String, String> entries) {
            entries.forEach(this::set);
            return this;
        }

        /**
         * Reads a {@code tarn-site.conf}: one {@code key value} or {@code key = value} per line,
         * {@code #} starts a comment, blank lines are ignored. A line of another form is a
         * {@link ConfigException} naming the file and line.
         */
        public Builder load(Path file) throws IOException {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                int hash = line.indexOf('#');
                if (hash >= 0) {
                    line = line.substring(0, hash);
                }
                line = line.trim();
                if (line.isEmpty()) {
                    continue;
                }
                int eq = line.indexOf('=');
                int ws = indexOfWhitespace(line);
                int cut = eq >= 0 && (ws < 0 || eq < ws) ? eq : ws;
                String name = cut < 0 ? "" : line.substring(0, cut).trim();
                if (!KEY_SYNTAX.matcher(name).matches()) {
                    throw new ConfigException(file + ":" + (i + 1) + ": malformed line '" + line
                            + "': expected 'key value' or 'key = value', such as 'tarn.blocksize 1m'");
                }
                String value = line.substring(cut + 1).trim();
                if (value.startsWith("=")) {
                    value = value.substring(1).trim();
                }
                try {
                    set(name, value);
                } catch (ConfigException e) {
                    throw new ConfigException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
                }
            }
            return this;
        }

        /**
         * Reads a configuration file the user named ({@code --config FILE}, {@code tarn.conf}) like
         * {@link #load}, and reports a file it cannot read as a {@link ConfigException}
         * {@code cannot read configuration file FILE: <reason>}, as every command line tool of Tarn does.
         */
        public Builder loadFile(Path file) {
            try {
                return load(file);
            } catch (IOException e) {
                String reason = e instanceof NoSuchFileException ? "no such file"
                        : e instanceof AccessDeniedException ? "permission denied"
                        : e instanceof CharacterCodingException ? "not UTF-8 text"
                        : e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
                throw new ConfigException("cannot read configuration file " + file + ": " + reason, e);
            }
        }

        private static int indexOfWhitespace(String s) {
            for (int i = 0; i < s.length(); i++) {
                if (Character.isWhitespace(s.charAt(i))) {
                    return i;
                }
            }
            return -1;
        }

        /** Validates the relations between keys and freezes the configuration. */
        public TarnConfig build() {
            TarnConfig c = new TarnConfig(values);
            int namenodes = c.namenodes().size();
            int partition = c.get(TarnKeys.NAMENODE_PARTITION);
            if (partition >= namenodes) {
                throw new ConfigException(TarnKeys.NAMENODE_PARTITION + " = " + partition + ": "
                        + TarnKeys.NAMENODE_ADDRESS + " lists " + namenodes + " namenode(s), so it must be below "
                        + namenodes);
            }
            int members = c.namenodeGroups().get(partition).size();
            int member = c.get(TarnKeys.NAMENODE_MEMBER);
            if (member >= members) {
                throw new ConfigException(TarnKeys.NAMENODE_MEMBER + " = " + member + ": " + TarnKeys.NAMENODE_ADDRESS
                        + " lists " + members + " member(s) for partition " + partition + ", so it must be below "
                        + members);
            }
            long block = c.get(TarnKeys.BLOCK_SIZE);
            if (Long.bitCount(block) != 1) {
                throw new ConfigException(TarnKeys.BLOCK_SIZE + " = " + DataSize.format(block)
                        + ": must be a power of two");
            }
            long region = c.get(TarnKeys.DRAM_REGION_SIZE);
            if (region % block != 0) {
                throw new ConfigException(TarnKeys.DRAM_REGION_SIZE + " = " + DataSize.format(region)
                        + ": must be a multiple of " + TarnKeys.BLOCK_SIZE + " = " + DataSize.format(block));
            }
            long capacity = c.get(TarnKeys.DRAM_CAPACITY);
            if (capacity % region != 0) {
                throw new ConfigException(TarnKeys.DRAM_CAPACITY + " = " + DataSize.format(capacity)
                        + ": must be a multiple of " + TarnKeys.DRAM_REGION_SIZE + " = " + DataSize.format(region));
            }
            long chunk = c.get(TarnKeys.CLIENT_IO_CHUNK);
            long maxFrame = c.get(TarnKeys.RPC_MAX_FRAME);
            if (chunk + 4096 > maxFrame) {
                throw new ConfigException(TarnKeys.CLIENT_IO_CHUNK + " = " + DataSize.format(chunk)
                        + ": must leave 4k of headroom below " + TarnKeys.RPC_MAX_FRAME + " = "
                        + DataSize.format(maxFrame));
            }
            return c;
        }

        private static String suggestion(String name) {
            String best = null;
            int bestDistance = Integer.MAX_VALUE;
            for (String known : KEYS_BY_NAME.keySet()) {
                int d = editDistance(name, known);
                if (d < bestDistance) {
                    bestDistance = d;
                    best = known;
                }
            }
            return best != null && bestDistance <= 4 ? " (did you mean '" + best + "'?)" : "";
        }

        private static int editDistance(String a, String b) {
            int[] prev = new int[b.length() + 1];
            int[] cur = new int[b.length() + 1];
            for (int j = 0; j <= b.length(); j++) {
                prev[j] = j;
            }
            for (int i = 1; i <= a.length(); i++) {
                cur[0] = i;
                for (int j = 1; j <= b.length(); j++) {
                    int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                    cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
                }
                int[] t = prev;
                prev = cur;
                cur = t;
            }
            return prev[b.length()];
        }
    }
}
