package io.tarn.namenode.security;

import io.tarn.common.config.ConfigException;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.fs.Ownership;
import io.tarn.common.security.Identity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Who a caller is: groups from the namenode's own source, superusers, the cache, the mode checks. */
class CallersTest {
    @TempDir
    Path dir;

    @Test
    void theModeCheckUsesTheOwnerTheGroupOrTheOthersBitsAsPosixDoes() {
        Caller alice = new Caller("alice", List.of("etl"), false);
        Ownership mine = new Ownership("alice", "etl", 0077); // the owner class decides, even when worse
        assertThat(alice.may(mine, Caller.READ)).isFalse();
        Ownership group = new Ownership("bob", "etl", 0750);
        assertThat(alice.may(group, Caller.READ | Caller.EXECUTE)).isTrue();
        assertThat(alice.may(group, Caller.WRITE)).isFalse();
        Ownership other = new Ownership("bob", "ops", 0704);
        assertThat(alice.may(other, Caller.READ)).isTrue();
        assertThat(alice.may(other, Caller.EXECUTE)).isFalse();
        assertThat(alice.owns(mine)).isTrue();
        assertThat(alice.owns(group)).isFalse();
        Caller root = new Caller("root", List.of(), true);
        assertThat(root.may(new Ownership("bob", "ops", 0), Caller.READ | Caller.WRITE | Caller.EXECUTE)).isTrue();
        assertThat(Caller.action(Caller.READ | Caller.EXECUTE)).isEqualTo("READ_EXECUTE");
        assertThat(Caller.action(7)).isEqualTo("ALL");
    }

    @Test
    void superusersAreTheNamenodesUserTheNamedOnesAndTheSupergroup() {
        Map<String, List<String>> groups = Map.of("dave", List.of("dave", "admins"), "alice", List.of("etl"));
        Callers callers = new Callers(true, "tarn", Set.of("ops"), "admins",
                u -> groups.getOrDefault(u, List.of()), 60_000);
        assertThat(callers.of(new Identity("tarn", true)).superuser()).isTrue();
        assertThat(callers.of(new Identity("ops", false)).superuser()).isTrue();
        assertThat(callers.of(new Identity("dave", false)).superuser()).isTrue();
        Caller alice = callers.of(new Identity("alice", false));
        assertThat(alice.superuser()).isFalse();
        assertThat(alice.groups()).containsExactly("etl");
        // The daemon flag (the cluster secret) is not a superuser's pass: its claimed user is checked.
        assertThat(callers.of(new Identity("alice", true)).superuser()).isFalse();
        // No identity (a namenode that does not authenticate), or permissions off: nothing to check.
        assertThat(callers.of(Identity.UNAUTHENTICATED)).isSameAs(Caller.UNCHECKED);
        assertThat(Callers.OFF.of(new Identity("alice", false))).isSameAs(Caller.UNCHECKED);
        assertThat(callers.describe()).isEqualTo("permissions on, superusers tarn, ops and group admins");
    }

    @Test
    void groupsAreCachedAndAskedAgainInTheBackgroundOnceStale() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        Map<String, List<String>> source = new ConcurrentHashMap<>(Map.of("alice", List.of("etl")));
        Callers callers = new Callers(true, "tarn", Set.of(), "admins", u -> {
            asked.incrementAndGet();
            return source.getOrDefault(u, List.of());
        }, 50);
        Identity alice = new Identity("alice", false);
        assertThat(callers.of(alice).groups()).containsExactly("etl");
        assertThat(callers.of(alice).groups()).containsExactly("etl");
        assertThat(asked).hasValue(1);
        source.put("alice", List.of("etl", "admins"));
        Thread.sleep(60);
        assertThat(callers.of(alice).superuser()).isFalse(); // served as cached while it is asked again
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!callers.of(alice).superuser() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(callers.of(alice).superuser()).isTrue();
        assertThat(asked.get()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void aGroupFileMapsUsersAndABadLineIsNamed() throws IOException {
        Path file = dir.resolve("groups");
        Files.writeString(file, "# who is in what\nalice: etl, analysts  # trailing comment\n\nbob:analysts\ncarol:\n");
        GroupMapping m = GroupMapping.file(file);
        assertThat(m.groups("alice")).containsExactly("etl", "analysts");
        assertThat(m.groups("bob")).containsExactly("analysts");
        assertThat(m.groups("carol")).isEmpty();
        assertThat(m.groups("nobody-here")).isEmpty();
        Files.writeString(file, "alice: etl\njust-a-name\n");
        assertThatThrownBy(() -> GroupMapping.file(file)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("line 2").hasMessageContaining("expected 'user: group, group'");
        assertThatThrownBy(() -> GroupMapping.file(dir.resolve("missing"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("cannot read the group mapping file");
        Callers fromConfig = Callers.of(TarnConfig.builder().set(TarnKeys.SECURITY_GROUPS_FILE, "").build());
        assertThat(fromConfig.enabled()).isTrue();
    }

    @Test
    void theHostsAccountsGiveTheGroupsOfAUserAndNoneOfAnUnknownOne() throws Exception {
        String me = System.getProperty("user.name");
        Process id = new ProcessBuilder("id", "-gn").start();
        String primary = new String(id.getInputStream().readAllBytes()).trim();
        assertThat(id.waitFor()).isZero();
        assertThat(GroupMapping.shell().groups(me)).contains(primary);
        assertThat(GroupMapping.shell().groups("no-such-user-" + System.nanoTime())).isEmpty();
        assertThat(GroupMapping.shell().groups("--help")).isEmpty(); // never read as an option
    }
}
