package io.tarn.client.random;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static io.tarn.client.random.Names.NAMES;
import static io.tarn.client.random.Names.child;
import static io.tarn.client.random.Names.parent;

/**
 * Draws what a {@link Worker}'s operations work on from its seeded random: names from the pool, paths in
 * its subtree as its {@link Tree} has it (often new, sometimes existing, missing a parent or below a
 * file), rename targets, and keys of the files it holds.
 */
final class PathPicker {
    private final Random random;
    private final Tree tree;
    private final String home;

    PathPicker(Random random, Tree tree, String home) {
        this.random = random;
        this.tree = tree;
        this.home = home;
    }

    String randomName() {
        return NAMES.get(random.nextInt(NAMES.size()));
    }

    String randomDirectory() {
        List<String> dirs = tree.directories(home);
        return dirs.get(random.nextInt(dirs.size()));
    }

    String randomSubdirectory() {
        List<String> dirs = tree.directories(home);
        dirs.remove(home);
        return dirs.isEmpty() ? null : dirs.get(random.nextInt(dirs.size()));
    }

    String randomFile() {
        List<String> files = tree.files(home);
        return files.isEmpty() ? null : files.get(random.nextInt(files.size()));
    }

    /** A path in the subtree: often new, sometimes existing, missing a parent, or below a file. */
    String pickPath() {
        int r = random.nextInt(10);
        String file = randomFile();
        if (r < 5) {
            return child(randomDirectory(), randomName());
        } else if (r < 6) {
            return randomDirectory();
        } else if (r < 7 && file != null) {
            return file;
        } else if (r < 9 || file == null) {
            return child(child(randomDirectory(), randomName()), randomName());
        }
        return child(file, randomName());
    }

    /** Mostly an existing file; sometimes a path that may be anything (missing, a directory). */
    String pickFileOrPath() {
        String file = randomFile();
        return file != null && random.nextInt(8) != 0 ? file : child(randomDirectory(), randomName());
    }

    String pickRenameTarget(String src) {
        int r = random.nextInt(12);
        if (r == 0) {
            return src;
        } else if (r == 1) {
            return parent(src);
        } else if (r < 4) {
            return randomDirectory();
        }
        return pickPath();
    }

    String randomKey(Map<String, String> map) {
        if (map.isEmpty()) {
            return null;
        }
        List<String> keys = new ArrayList<>(map.keySet());
        return keys.get(random.nextInt(keys.size()));
    }
}
