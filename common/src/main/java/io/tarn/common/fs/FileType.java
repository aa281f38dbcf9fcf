package io.tarn.common.fs;

/** Kind of a namespace entry; the ordinal-independent {@link #wire()} value crosses the wire. */
public enum FileType {
    FILE(1),
    DIRECTORY(2);

    private final int wire;

    FileType(int wire) {
        this.wire = wire;
    }

    public int wire() {
        return wire;
    }

    /** Decodes a wire value; throws IllegalArgumentException for an unknown one (a malformed message). */
    public static FileType ofWire(int v) {
        switch (v) {
            case 1: return FILE;
            case 2: return DIRECTORY;
            default: throw new IllegalArgumentException("unknown file type " + v);
        }
    }
}
