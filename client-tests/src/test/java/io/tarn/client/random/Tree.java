package io.tarn.client.random;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static io.tarn.client.random.Names.child;
import static io.tarn.client.random.Names.name;
import static io.tarn.client.random.Names.owner;
import static io.tarn.client.random.Names.parent;
import static io.tarn.client.random.Scenario.SHARED;

/**
 * A client's sequential picture of the namespace it alone changes: its subtree, plus, for a
 * moment, a file of /shared it is about to move in. Paths are absolute and normalized.
 */
final class Tree {
    /** A directory (children) or a file (identity and size). */
    static final class Node {
        final TreeMap<String, Node> children;
        final String identity;
        final int size;

        private Node(TreeMap<String, Node> children, String identity, int size) {
            this.children = children;
            this.identity = identity;
            this.size = size;
        }

        static Node directory() {
            return new Node(new TreeMap<>(), null, 0);
        }

        static Node file(String identity, int size) {
            return new Node(null, identity, size);
        }

        boolean isDirectory() {
            return children != null;
        }

        String entry(String name) {
            return isDirectory() ? name + "/" : name + ":" + size;
        }
    }

    private final Node root = Node.directory();

    Tree() {
        mkdirs(SHARED);
    }

    static List<String> components(String path) {
        List<String> comps = new ArrayList<>();
        for (String c : path.split("/")) {
            if (!c.isEmpty()) {
                comps.add(c);
            }
        }
        return comps;
    }

    /** The entry at {@code path}; null when missing or below a file. */
    Node get(String path) {
        Node cur = root;
        for (String c : components(path)) {
            if (!cur.isDirectory()) {
                return null;
            }
            cur = cur.children.get(c);
            if (cur == null) {
                return null;
            }
        }
        return cur;
    }

    /** The entry as namenode {@code p} sees it: every directory, but only the files it owns. */
    Node view(int p, String path) {
        Node n = get(path);
        return n != null && !n.isDirectory() && owner(name(path)) != p ? null : n;
    }

    /** The first prefix of {@code path} (itself included) that is not a directory; null when none. */
    String firstNonDirectory(String path) {
        String prefix = "/";
        for (String c : components(path)) {
            prefix = child(prefix, c);
            Node n = get(prefix);
            if (n == null || !n.isDirectory()) {
                return prefix;
            }
        }
        return null;
    }

    void mkdirs(String path) {
        Node cur = root;
        for (String c : components(path)) {
            cur = cur.children.computeIfAbsent(c, k -> Node.directory());
            if (!cur.isDirectory()) {
                throw new IllegalStateException("model: " + path + " runs through a file");
            }
        }
    }

    void putFile(String path, String identity, int size) {
        mkdirs(parent(path));
        get(parent(path)).children.put(name(path), Node.file(identity, size));
    }

    Node remove(String path) {
        return get(parent(path)).children.remove(name(path));
    }

    void move(String src, String target) {
        Node n = remove(src);
        get(parent(target)).children.put(name(target), n);
    }

    /** Forgets whatever was put into /shared for a moment. */
    void clearShared() {
        get(SHARED).children.clear();
    }

    /** "name/" and "name:size" entries as a listing of {@code path} shows them; null when missing. */
    String listing(String path) {
        Node n = get(path);
        if (n == null) {
            return null;
        }
        if (!n.isDirectory()) {
            return n.entry(name(path));
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Node> e : n.children.entrySet()) {
            sb.append(sb.length() == 0 ? "" : ",").append(e.getValue().entry(e.getKey()));
        }
        return sb.toString();
    }

    List<String> directories(String top) {
        List<String> out = new ArrayList<>();
        walk(top, get(top), out, true);
        return out;
    }

    List<String> files(String top) {
        List<String> out = new ArrayList<>();
        walk(top, get(top), out, false);
        return out;
    }

    private static void walk(String path, Node n, List<String> out, boolean directories) {
        if (n.isDirectory() == directories) {
            out.add(path);
        }
        if (n.isDirectory()) {
            for (Map.Entry<String, Node> e : n.children.entrySet()) {
                walk(child(path, e.getKey()), e.getValue(), out, directories);
            }
        }
    }

    static int depth(String path) {
        return components(path).size();
    }
}
