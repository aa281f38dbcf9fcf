package io.tarn.namenode.namespace;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PathComponent} finds exactly the children a copied-out name finds, in the directories'
 * real map type: any characters (surrogates included), names that share a hash, and a map whose
 * colliding keys were turned into a tree bin.
 */
class PathComponentTest {

    @Property
    void hashesAndMatchesAsTheStringItStandsFor(@ForAll("text") String before, @ForAll("text") String name,
                                                @ForAll("text") String after, @ForAll("text") String other) {
        String path = before + name + after;
        PathComponent c = new PathComponent(path).span(before.length(), before.length() + name.length());
        assertThat(c.hashCode()).isEqualTo(name.hashCode());
        assertThat(c.equals(name)).isTrue();
        assertThat(c.equals(new String(name.toCharArray()))).as("by content, not identity").isTrue();
        assertThat(c.equals(other)).isEqualTo(other.equals(name));
        assertThat(c.equals(name + "x")).isFalse();
        assertThat(c.toString()).isEqualTo(name);
    }

    @Provide
    Arbitrary<String> text() {
        return Arbitraries.of("a", "b", "Aa", "BB", "/", "é", "文", "\uD83D\uDE00", "\uD83D", "\0", "")
                .list().ofMaxSize(5).map(l -> String.join("", l));
    }

    @Property
    void findsInAChildrenMapWhatTheCopiedNameFinds(@ForAll("text") String name) {
        ConcurrentHashMap<String, Integer> children = new ConcurrentHashMap<>();
        List<String> keys = List.of("a", "b", "Aa", "BB", "é", "文", "\uD83D\uDE00", "a/b", "");
        for (int i = 0; i < keys.size(); i++) {
            children.put(keys.get(i), i);
        }
        String path = "/dir/" + name + "/rest";
        PathComponent c = new PathComponent(path).span(5, 5 + name.length());
        assertThat(children.get(c)).isEqualTo(children.get(name));
    }

    /**
     * Strings of four "Aa" or "BB" pairs all share one hash: fifteen of them in one bin (among
     * enough other keys for the table to reach 64 slots) make the map keep that bin as a tree, whose
     * search compares keys differently from a plain bin. The sixteenth, left out, is not found.
     */
    @Test
    void findsEveryKeyOfATreeBinAndNothingElse() {
        List<String> colliding = new ArrayList<>();
        for (int bits = 0; bits < 16; bits++) {
            StringBuilder sb = new StringBuilder();
            for (int k = 0; k < 4; k++) {
                sb.append((bits >> k & 1) == 0 ? "Aa" : "BB");
            }
            colliding.add(sb.toString());
        }
        assertThat(colliding.stream().mapToInt(String::hashCode).distinct()).hasSize(1);
        ConcurrentHashMap<String, String> children = new ConcurrentHashMap<>();
        for (int i = 0; i < 100; i++) {
            children.put("file-" + i, "file-" + i);
        }
        String missing = colliding.remove(colliding.size() - 1);
        colliding.forEach(k -> children.put(k, k));
        for (String key : children.keySet()) {
            String path = "/x/" + key;
            assertThat(children.get(new PathComponent(path).span(3, path.length()))).isEqualTo(key);
        }
        assertThat(missing.hashCode()).isEqualTo(colliding.get(0).hashCode());
        assertThat(children.get(new PathComponent("/" + missing + "/y").span(1, 1 + missing.length()))).isNull();
        assertThat(children.get(new PathComponent("/AaAaAaAaAa").span(1, 11))).isNull();
    }
}
