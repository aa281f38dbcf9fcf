package io.tarn.common.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * One typed configuration key: its name, default, unit, parser, validator and documentation.
 *
 * <p>Keys are immutable constants declared in {@link TarnKeys}; values live in a {@link TarnConfig}
 * instance, so several clusters with different settings can share one JVM.
 *
 * @param <T> the value type
 */
public final class ConfigKey<T> {

    /** Checks a parsed value; returns an error text, or {@code null} when the value is acceptable. */
    @FunctionalInterface
    public interface Validator<T> {
        String check(T value);
    }

    private final String name;
    private final T defaultValue;
    private final String unit;
    private final String doc;
    private final Function<String, T> parser;
    private final Validator<T> validator;
    private final Function<T, String> formatter;

    private ConfigKey(String name, T defaultValue, String unit, String doc, Function<String, T> parser,
                      Validator<T> validator, Function<T, String> formatter) {
        this.name = Objects.requireNonNull(name);
        this.defaultValue = defaultValue;
        this.unit = unit;
        this.doc = doc;
        this.parser = parser;
        this.validator = validator;
        this.formatter = formatter;
    }

    /** A key holding a size in bytes; accepts plain numbers and k/m/g/t suffixes (binary multiples). */
    public static ConfigKey<Long> bytes(String name, long def, long min, long max, String doc) {
        return new ConfigKey<>(name, def, "bytes", doc, DataSize::parse, range(min, max, DataSize::format),
                DataSize::format);
    }

    /**
     * A key holding a size in bytes that is either 0 (the feature it sizes is left to its default
     * elsewhere, such as the kernel's) or between {@code min} and {@code max}.
     */
    public static ConfigKey<Long> bytesOrZero(String name, long def, long min, long max, String doc) {
        Validator<Long> inRange = range(min, max, DataSize::format);
        return new ConfigKey<>(name, def, "bytes", doc, DataSize::parse,
                v -> v == 0 || inRange.check(v) == null ? null
                        : "must be 0 or between " + DataSize.format(min) + " and " + DataSize.format(max),
                DataSize::format);
    }

    /** A key holding a duration in milliseconds; accepts plain numbers and ms/s/m/h suffixes. */
    public static ConfigKey<Long> millis(String name, long def, long min, long max, String doc) {
        return new ConfigKey<>(name, def, "ms", doc, Durations::parseMillis, range(min, max, v -> v + "ms"),
                String::valueOf);
    }

    /** A key holding a whole number with the given unit text. */
    public static ConfigKey<Integer> integer(String name, int def, int min, int max, String unit, String doc) {
        return new ConfigKey<>(name, def, unit, doc, s -> Integer.parseInt(s.trim()),
                v -> v < min || v > max ? "must be between " + min + " and " + max : null, String::valueOf);
    }

    /** A key holding a whole number that must be one of {@code allowed} (listed in the error). */
    public static ConfigKey<Integer> integerOf(String name, int def, List<Integer> allowed, String unit, String doc) {
        List<Integer> values = List.copyOf(allowed);
        String choices = values.stream().map(String::valueOf).collect(Collectors.joining(" or "));
        return new ConfigKey<>(name, def, unit, doc, s -> Integer.parseInt(s.trim()),
                v -> values.contains(v) ? null : "must be " + choices, String::valueOf);
    }

    /** A key holding true or false. */
    public static ConfigKey<Boolean> bool(String name, boolean def, String doc) {
        return new ConfigKey<>(name, def, "", doc, ConfigKey::parseBoolean, v -> null, String::valueOf);
    }

    /** A key holding free text; {@code validator} may be null. */
    public static ConfigKey<String> string(String name, String def, String doc, Validator<String> validator) {
        return new ConfigKey<>(name, def, "", doc, String::trim, validator == null ? v -> null : validator, s -> s);
    }

    /** A key holding one of an enum's constants, written in lower case. */
    public static <E extends Enum<E>> ConfigKey<E> choice(String name, E def, Class<E> type, String doc) {
        return new ConfigKey<>(name, def, "", doc, s -> parseEnum(type, s), v -> null,
                v -> v.name().toLowerCase(Locale.ROOT));
    }

    private static Validator<Long> range(long min, long max, Function<Long, String> format) {
        return v -> v < min || v > max
                ? "must be between " + format.apply(min) + " and " + format.apply(max) : null;
    }

    private static boolean parseBoolean(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        switch (t) {
            case "true": case "yes": case "on": case "1": return true;
            case "false": case "no": case "off": case "0": return false;
            default: throw new IllegalArgumentException("expected true or false, got '" + s + "'");
        }
    }

    private static <E extends Enum<E>> E parseEnum(Class<E> type, String s) {
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(s.trim())) {
                return e;
            }
        }
        StringBuilder allowed = new StringBuilder();
        for (E e : type.getEnumConstants()) {
            allowed.append(allowed.length() == 0 ? "" : " | ").append(e.name().toLowerCase(Locale.ROOT));
        }
        throw new IllegalArgumentException("expected one of " + allowed + ", got '" + s + "'");
    }

    /** Parses and validates text for this key; throws {@link ConfigException} naming the key. */
    public T parse(String text) {
        T value;
        try {
            value = parser.apply(text);
        } catch (RuntimeException e) {
            throw new ConfigException(name + " = '" + text + "': " + e.getMessage(), e);
        }
        validate(value);
        return value;
    }

    /** Validates a value for this key; throws {@link ConfigException} naming the key. */
    public void validate(T value) {
        String problem = validator.check(value);
        if (problem != null) {
            throw new ConfigException(name + " = " + formatter.apply(value) + ": " + problem);
        }
    }

    /** Formats a value the way a configuration file would hold it. */
    public String format(T value) {
        return formatter.apply(value);
    }

    public String name() {
        return name;
    }

    public T defaultValue() {
        return defaultValue;
    }

    public String unit() {
        return unit;
    }

    public String doc() {
        return doc;
    }

    @Override
    public String toString() {
        return name;
    }
}
