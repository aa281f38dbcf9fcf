package io.tarn.namenode.namespace;

/**
 * One component of a path, used as the key that looks it up in a directory's children without
 * copying it out of the path: it hashes as the {@code String} it stands for and equals every
 * {@code String} with the same characters. {@code Map.get(key)} finds the mapping whose stored key
 * {@code k} satisfies {@code key.equals(k)}, which is all this needs; it is never stored in a map,
 * and a {@code String} does not consider it equal (the relation is one-sided on purpose).
 *
 * <p>One per walk, moved from component to component ({@link #span}); not thread-safe.
 */
final class PathComponent {
    private final String path;
    private int start;
    private int end;
    private int hash;

    PathComponent(String path) {
        this.path = path;
    }

    /** Makes this the component {@code path.substring(start, end)}. */
    PathComponent span(int start, int end) {
        this.start = start;
        this.end = end;
        int h = 0;
        for (int i = start; i < end; i++) {
            h = 31 * h + path.charAt(i); // String.hashCode's formula, over the same chars
        }
        this.hash = h;
        return this;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof String s && s.length() == end - start && path.regionMatches(start, s, 0, end - start);
    }

    @Override
    public String toString() {
        return path.substring(start, end);
    }
}
