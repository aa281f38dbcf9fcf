package io.tarn.client.random;

import io.tarn.common.fs.Partitions;

import java.util.ArrayList;
import java.util.List;

import static io.tarn.client.random.Scenario.NAMENODES;
import static io.tarn.client.random.Scenario.SHARED;
import static io.tarn.client.random.Scenario.SUB;

/**
 * Names and paths: which namenode owns a name, the pool of names the subtrees use (every partition's),
 * and the path arithmetic of the models and checks.
 */
final class Names {
    /** Names that files and directories get in the subtrees: four of every partition. */
    static final List<String> NAMES = namePool();

    static int owner(String name) {
        return Partitions.ofName(name, NAMENODES);
    }

    /** The first name {@code prefix<i>} that partition {@code p} owns. */
    static String nameOn(int p, String prefix) {
        for (int i = 0; ; i++) {
            if (owner(prefix + i) == p) {
                return prefix + i;
            }
        }
    }

    private static List<String> namePool() {
        List<String> names = new ArrayList<>();
        int[] perPartition = new int[NAMENODES];
        for (int i = 0; names.size() < 4 * NAMENODES; i++) {
            String name = "n" + i;
            if (perPartition[owner(name)]++ < 4) {
                names.add(name);
            }
        }
        return List.copyOf(names);
    }

    static String parent(String path) {
        int i = path.lastIndexOf('/');
        return i <= 0 ? "/" : path.substring(0, i);
    }

    static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    static String child(String dir, String name) {
        return dir.equals("/") ? "/" + name : dir + "/" + name;
    }

    /** True when {@code path} is {@code dir} or lies below it. */
    static boolean within(String path, String dir) {
        return path.equals(dir) || path.startsWith(dir.equals("/") ? "/" : dir + "/");
    }

    static boolean inShared(String path) {
        return path != null && path.startsWith(SHARED + "/");
    }

    static boolean inSub(String path) {
        return path != null && path.startsWith(SUB + "/");
    }

    private Names() {
    }
}
