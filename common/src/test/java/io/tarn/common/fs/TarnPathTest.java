package io.tarn.common.fs;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TarnPathTest {

    // ------------------------------------------------------------------ components / normalize

    @Test
    void rootHasNoComponents() throws TarnException {
        assertThat(TarnPath.components("/")).isEmpty();
        assertThat(TarnPath.components("//")).isEmpty();
        assertThat(TarnPath.components("///")).isEmpty();
        assertThat(TarnPath.normalize("/")).isEqualTo("/");
        assertThat(TarnPath.normalize("////")).isEqualTo("/");
    }

    @Test
    void repeatedAndTrailingSlashesAreIgnored() throws TarnException {
        assertThat(TarnPath.components("//a///b/")).containsExactly("a", "b");
        assertThat(TarnPath.normalize("//a///b/")).isEqualTo("/a/b");
        assertThat(TarnPath.components("/a/b/c")).containsExactly("a", "b", "c");
        assertThat(TarnPath.normalize("/a/b/c")).isEqualTo("/a/b/c");
        assertThat(TarnPath.normalize("/a/")).isEqualTo("/a");
    }

    @Test
    void unicodeSpacesAndDotsInsideNamesAreKept() throws TarnException {
        assertThat(TarnPath.components("/dätä/文件")).containsExactly("dätä", "文件");
        assertThat(TarnPath.normalize("//dätä//文件//")).isEqualTo("/dätä/文件");
        assertThat(TarnPath.components("/a b/ c /😀")).containsExactly("a b", " c ", "😀");
        assertThat(TarnPath.components("/.hidden/.../a.b/..x/x.."))
                .containsExactly(".hidden", "...", "a.b", "..x", "x..");
        assertThat(TarnPath.components("/a\\b")).containsExactly("a\\b");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "a/b", "./a", "dätä/文件", " /a", "\\a"})
    void relativePathsAreRejected(String path) {
        assertInvalid(() -> TarnPath.components(path), "path must be absolute: '" + path + "'");
        assertInvalid(() -> TarnPath.normalize(path), "path must be absolute: '" + path + "'");
    }

    @Test
    void emptyAndNullPathsAreRejected() {
        assertInvalid(() -> TarnPath.components(""), "empty path");
        assertInvalid(() -> TarnPath.components(null), "empty path");
        assertInvalid(() -> TarnPath.normalize(""), "empty path");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/.", "/..", "/a/.", "/a/..", "/a/./b", "/a/../b", "//./", "/a/b/../../c"})
    void dotAndDotDotAreRejectedNotResolved(String path) {
        assertInvalid(() -> TarnPath.components(path), "'.' and '..' are not allowed in '" + path + "'");
        assertInvalid(() -> TarnPath.normalize(path), "'.' and '..' are not allowed in '" + path + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/\0", "/a\0b", "/a/\0", "/a/b\0/c"})
    void nulIsRejected(String path) {
        assertInvalid(() -> TarnPath.components(path), "NUL character in '" + path + "'");
    }

    @Test
    void componentLengthLimit() throws TarnException {
        String max = "n".repeat(TarnPath.MAX_NAME_BYTES);
        assertThat(TarnPath.components("/" + max + "/x")).containsExactly(max, "x");
        String tooLong = max + "n";
        assertInvalid(() -> TarnPath.components("/a/" + tooLong),
                "component longer than 255 bytes (UTF-8) in '/a/" + tooLong + "'");
    }

    @Test
    void pathLengthLimit() throws TarnException {
        // 32 components of 255 characters, each with its slash: exactly 8192 characters
        String component = "/" + "p".repeat(255);
        String max = component.repeat(32);
        assertThat(max).hasSize(TarnPath.MAX_PATH_BYTES);
        assertThat(TarnPath.components(max)).hasSize(32);
        assertThat(TarnPath.normalize(max)).isEqualTo(max);

        assertInvalid(() -> TarnPath.components(max + "/"), "path longer than 8192 bytes (UTF-8)");
        assertInvalid(() -> TarnPath.components("/" + "a/".repeat(5000)), "path longer than 8192 bytes (UTF-8)");
    }

    /** Name and path limits count UTF-8 bytes, not UTF-16 characters. */
    @Test
    void limitsCountUtf8Bytes() {
        String name = "文".repeat(200);
        assertThat(name.getBytes(StandardCharsets.UTF_8).length).isGreaterThan(TarnPath.MAX_NAME_BYTES);
        assertThatThrownBy(() -> TarnPath.components("/" + name)).isInstanceOf(TarnException.class);

        String path = ("/" + "文".repeat(100)).repeat(40);
        assertThat(path.getBytes(StandardCharsets.UTF_8).length).isGreaterThan(TarnPath.MAX_PATH_BYTES);
        assertThatThrownBy(() -> TarnPath.components(path)).isInstanceOf(TarnException.class);
    }

    // ------------------------------------------------------------------ parent / name / child

    @ParameterizedTest(name = "parent({0}) = {1}, name = \"{2}\"")
    @CsvSource(delimiter = '|', value = {
            "/           | /      | ''",
            "/a          | /      | a",
            "/a/b        | /a     | b",
            "/a/b/c      | /a/b   | c",
            "/dätä/文件   | /dätä  | 文件",
    })
    void parentAndName(String normalized, String parent, String name) {
        assertThat(TarnPath.parent(normalized)).isEqualTo(parent);
        assertThat(TarnPath.name(normalized)).isEqualTo(name);
    }

    @Test
    void childJoinsWithExactlyOneSlash() {
        assertThat(TarnPath.child("/", "a")).isEqualTo("/a");
        assertThat(TarnPath.child("/a", "b")).isEqualTo("/a/b");
        assertThat(TarnPath.child("/a/", "b")).isEqualTo("/a/b");
        assertThat(TarnPath.child("/dätä", "文件")).isEqualTo("/dätä/文件");
    }

    @Test
    void parentNameAndChildAreInverse() throws TarnException {
        for (String p : List.of("/a", "/a/b", "/dätä/文件/x y")) {
            assertThat(TarnPath.child(TarnPath.parent(p), TarnPath.name(p))).isEqualTo(p);
            assertThat(TarnPath.components(TarnPath.parent(p))).isEqualTo(
                    TarnPath.components(p).subList(0, TarnPath.components(p).size() - 1));
        }
    }

    // ------------------------------------------------------------------ properties

    @Provide
    Arbitrary<String> names() {
        Arbitrary<String> unicode = Arbitraries.strings()
                .withCharRange('a', 'z').withCharRange('0', '9').withChars(" .-_äö文件😀".toCharArray())
                .ofMinLength(1).ofMaxLength(12);
        return unicode.filter(s -> !s.equals(".") && !s.equals("..") && !hasLoneSurrogate(s));
    }

    private static boolean hasLoneSurrogate(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return true;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    @Property
    void normalizeKeepsComponentsAndIsIdempotent(@ForAll @Size(max = 8) List<@From("names") String> components,
                                                 @ForAll @IntRange(min = 1, max = 3) int slashes,
                                                 @ForAll boolean trailingSlash) throws TarnException {
        String sep = "/".repeat(slashes);
        StringBuilder sb = new StringBuilder();
        for (String c : components) {
            sb.append(sep).append(c);
        }
        if (trailingSlash || components.isEmpty()) {
            sb.append('/');
        }
        String path = sb.toString();

        assertThat(TarnPath.components(path)).isEqualTo(components);
        String normalized = TarnPath.normalize(path);
        assertThat(TarnPath.normalize(normalized)).isEqualTo(normalized);
        assertThat(TarnPath.components(normalized)).isEqualTo(components);
        assertThat(normalized).isEqualTo(components.isEmpty() ? "/" : "/" + String.join("/", components));
        if (!components.isEmpty()) {
            assertThat(TarnPath.name(normalized)).isEqualTo(components.get(components.size() - 1));
            List<String> parentComponents = new ArrayList<>(components.subList(0, components.size() - 1));
            assertThat(TarnPath.components(TarnPath.parent(normalized))).isEqualTo(parentComponents);
            assertThat(TarnPath.child(TarnPath.parent(normalized), TarnPath.name(normalized))).isEqualTo(normalized);
        }
    }

    /**
     * Checking a name where it stands in a longer string decides as checking it copied out, with the
     * same message, and as the rule says: names of dots, NULs, and lengths around the limit in one-,
     * two-, three- and four-byte characters, with arbitrary text around them.
     */
    @Property
    void checkingANameInPlaceDecidesAsCheckingItCopiedOut(@ForAll("nameLike") String name,
                                                        @ForAll @Size(max = 6) List<@From("nameLike") String> before,
                                                        @ForAll @Size(max = 6) List<@From("nameLike") String> after) {
        String prefix = String.join("", before);
        String s = prefix + name + String.join("", after);
        String copied = outcome(() -> TarnPath.checkName(name, "/p"));
        String inPlace = outcome(() -> TarnPath.checkName(s, prefix.length(), prefix.length() + name.length(), "/p"));
        assertThat(inPlace).isEqualTo(copied);
        assertThat(inPlace.equals("ok")).as("'%s' is valid", name).isEqualTo(validName(name));
    }

    /** The rule, written out: not "." or "..", no NUL, at most 255 bytes in UTF-8 (a lone surrogate counts 3). */
    private static boolean validName(String name) {
        int bytes = name.codePoints().map(cp -> cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4).sum();
        return !name.equals(".") && !name.equals("..") && name.indexOf('\0') < 0 && bytes <= TarnPath.MAX_NAME_BYTES;
    }

    @Provide
    Arbitrary<String> nameLike() {
        Arbitrary<String> pieces = Arbitraries.of("a", ".", "\0", "é", "文", "\uD83D\uDE00", "\uD83D", "/", "x.y");
        return Arbitraries.oneOf(
                pieces.list().ofMaxSize(6).map(l -> String.join("", l)),
                Arbitraries.of("", ".", "..", "...", ". ", "a\0"),
                Arbitraries.of(AROUND_THE_NAME_LIMIT));
    }

    /** Names of 250 to 260 UTF-8 bytes, mostly in characters of one UTF-8 length each (1 to 4). */
    private static final List<String> AROUND_THE_NAME_LIMIT = new ArrayList<>();

    static {
        for (String c : List.of("n", "é", "文", "\uD83D\uDE00")) {
            int b = c.getBytes(StandardCharsets.UTF_8).length;
            for (int bytes = TarnPath.MAX_NAME_BYTES - 5; bytes <= TarnPath.MAX_NAME_BYTES + 5; bytes++) {
                AROUND_THE_NAME_LIMIT.add(c.repeat(bytes / b) + "n".repeat(bytes % b));
            }
        }
    }

    private interface Check {
        void run() throws TarnException;
    }

    /** "ok", or the error's code and message. */
    private static String outcome(Check check) {
        try {
            check.run();
            return "ok";
        } catch (TarnException e) {
            return e.code() + ": " + e.getMessage();
        }
    }

    private static void assertInvalid(org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String message) {
        assertThatThrownBy(call)
                .isExactlyInstanceOf(TarnException.class)
                .hasMessage(message)
                .satisfies(e -> assertThat(((TarnException) e).code()).isEqualTo(ErrorCode.INVALID_PATH));
    }

    @org.junit.jupiter.api.Test
    void checkLengthRefusesPathsLongerThanANamenodeAcceptsInUtf8() throws Exception {
        TarnPath.checkLength("/" + "a".repeat(TarnPath.MAX_PATH_BYTES - 1));
        TarnPath.checkLength("/" + "é".repeat((TarnPath.MAX_PATH_BYTES - 1) / 2));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TarnPath.checkLength("/" + "é".repeat(
                TarnPath.MAX_PATH_BYTES / 2))).isInstanceOf(io.tarn.common.error.TarnException.class)
                .hasMessageStartingWith("path of " + (TarnPath.MAX_PATH_BYTES + 1) + " bytes (UTF-8) is longer "
                        + "than the " + TarnPath.MAX_PATH_BYTES + " bytes a path may have: '/éé");
    }
}
