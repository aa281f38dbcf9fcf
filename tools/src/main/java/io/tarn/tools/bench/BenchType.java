package io.tarn.tools.bench;

import io.tarn.client.TarnClient;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The iobench types: name, whether they move data, their default path and how to build them. */
enum BenchType {
    WRITE("write", true, "/iobench/file"),
    WRITE_ASYNC("writeAsync", true, "/iobench/file"),
    READ_SEQUENTIAL("readSequential", true, "/iobench/file"),
    READ_SEQUENTIAL_ASYNC("readSequentialAsync", true, "/iobench/file"),
    READ_RANDOM("readRandom", true, "/iobench/file"),
    CREATE_FILE("createFile", false, "/iobench/create"),
    CREATE_FILE_ASYNC("createFileAsync", false, "/iobench/create"),
    GET_FILE("getFile", false, "/iobench/file"),
    GET_FILE_ASYNC("getFileAsync", false, "/iobench/file"),
    GET_BLOCK("getBlock", false, "/iobench/file"),
    GET_BLOCK_ASYNC("getBlockAsync", false, "/iobench/file"),
    ENUMERATE_DIR("enumerateDir", false, "/iobench/dir");

    private static final long MAX_WINDOW = 1L << 30;

    private final String label;
    private final boolean data;
    private final String defaultPath;

    BenchType(String label, boolean data, String defaultPath) {
        this.label = label;
        this.data = data;
        this.defaultPath = defaultPath;
    }

    String label() {
        return label;
    }

    /** True for types that move file data (reported in MB/s); false for metadata types. */
    boolean data() {
        return data;
    }

    String defaultPath() {
        return defaultPath;
    }

    /** Case-insensitive lookup by label; the message lists the valid names. */
    static BenchType parse(String text) {
        for (BenchType t : values()) {
            if (t.label.equalsIgnoreCase(text.trim())) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown type '" + text + "'; expected one of " + labels());
    }

    static String labels() {
        return Arrays.stream(values()).map(BenchType::label).collect(Collectors.joining(", "));
    }

    /** The client configuration this type runs with: writeAsync widens the write-behind window to b × s. */
    TarnConfig clientConfig(TarnConfig base, BenchParams p) {
        long window = Math.min(MAX_WINDOW, (long) p.inflight() * p.size());
        switch (this) {
            case WRITE_ASYNC:
                return base.toBuilder().set(TarnKeys.CLIENT_WRITE_BEHIND,
                        Math.max(window, base.get(TarnKeys.CLIENT_WRITE_BEHIND))).build();
            default:
                return base;
        }
    }

    Workload create(TarnClient client, BenchParams p) {
        switch (this) {
            case WRITE: return new WriteBench(client, p, false);
            case WRITE_ASYNC: return new WriteBench(client, p, true);
            case READ_SEQUENTIAL: return new ReadBench(client, p, ReadBench.Mode.SEQUENTIAL);
            case READ_SEQUENTIAL_ASYNC: return new ReadBench(client, p, ReadBench.Mode.SEQUENTIAL_ASYNC);
            case READ_RANDOM: return new ReadBench(client, p, ReadBench.Mode.RANDOM);
            case CREATE_FILE: return new CreateFileBench(client, p, false);
            case CREATE_FILE_ASYNC: return new CreateFileBench(client, p, true);
            case GET_FILE: return new MetadataBench(client, p, MetadataBench.Call.GET_FILE, false);
            case GET_FILE_ASYNC: return new MetadataBench(client, p, MetadataBench.Call.GET_FILE, true);
            case GET_BLOCK: return new MetadataBench(client, p, MetadataBench.Call.GET_BLOCK, false);
            case GET_BLOCK_ASYNC: return new MetadataBench(client, p, MetadataBench.Call.GET_BLOCK, true);
            case ENUMERATE_DIR: return new MetadataBench(client, p, MetadataBench.Call.ENUMERATE_DIR, false);
            default: throw new IllegalStateException(name().toLowerCase(Locale.ROOT));
        }
    }
}
