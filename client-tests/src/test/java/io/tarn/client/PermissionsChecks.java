package io.tarn.client;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.AccessDeniedException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Ownership;
import io.tarn.common.security.KeyFile;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import static io.tarn.client.TestFiles.read;
import static io.tarn.client.TestFiles.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Permissions enforced by an authenticating namenode ({@code tarn.security.permissions = on}), over
 * real connections, one client per user: alice and bob are in group analysts, carol in none, dave
 * in the supergroup "admins", ops is a named superuser, and the JVM's own user runs the namenode
 * (a superuser too). Each denial is an {@link AccessDeniedException} naming user, access and entry,
 * and changes nothing. {@link PermissionsTest} runs the checks on one namenode,
 * {@link PartitionedPermissionsTest} on two.
 */
abstract class PermissionsChecks {
    @TempDir
    static Path dir;

    private static MiniCluster cluster;
    private static TarnConfig clientConfig;
    private static final ConcurrentMap<String, TarnClient> CLIENTS = new ConcurrentHashMap<>();
    private static final byte[] DATA = TestFiles.random(100_000, 3);

    /** The cluster, with {@code namenodes} namenodes (from each test class's {@code BeforeAll}). */
    static void startCluster(int namenodes) throws IOException {
        KeyFile secret = KeyFile.newClusterSecret();
        Path clusterSecret = dir.resolve("cluster.secret");
        secret.write(clusterSecret);
        Path clientKey = dir.resolve("client.key");
        secret.clientKey().write(clientKey);
        Path groups = dir.resolve("groups");
        Files.writeString(groups, """
                # user: groups
                alice: alice, analysts
                bob: bob analysts
                dave: dave, admins
                """);
        cluster = MiniCluster.builder().namenodes(namenodes).datanodes(1)
                .set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                .set(TarnKeys.SECURITY_SECRET_FILE, clusterSecret.toString())
                .set(TarnKeys.SECURITY_GROUPS_FILE, groups.toString())
                .set(TarnKeys.SECURITY_SUPERGROUP, "admins")
                .set(TarnKeys.SECURITY_SUPERUSERS, "ops, backup").start();
        clientConfig = cluster.config().toBuilder().set(TarnKeys.SECURITY_SECRET_FILE, clientKey.toString()).build();
        TarnClient root = admin();
        root.mkdirs("/home/alice");
        root.setOwner("/home/alice", "alice", null);
        root.setPermission("/home/alice", 0700);
        root.mkdirs("/shared");
        root.setOwner("/shared", null, "analysts");
        root.setPermission("/shared", 0777);
        root.mkdirs("/tmp");
        root.setPermission("/tmp", 01777);
    }

    @AfterAll
    static void stop() {
        CLIENTS.values().forEach(TarnClient::close);
        CLIENTS.clear();
        cluster.close();
    }

    /** The namenode's own user, with the cluster secret. */
    private static TarnClient admin() {
        return CLIENTS.computeIfAbsent("", u -> TarnClient.connect(cluster.config()));
    }

    private static TarnClient as(String user) {
        return CLIENTS.computeIfAbsent(user, u -> TarnClient.connect(clientConfig.toBuilder()
                .set(TarnKeys.CLIENT_USER, u).build()));
    }

    @Test
    void newEntriesBelongToTheAuthenticatedCallerWhateverTheRequestSays() throws IOException {
        FileStatus d = as("alice").mkdirs("/home/alice/claimed", new Ownership("mallory", "", 0750));
        assertThat(d.owner()).isEqualTo("alice");
        assertThat(d.permission()).isEqualTo(0750);
        write(as("alice"), "/home/alice/claimed/f", DATA);
        FileStatus f = as("alice").getStatus("/home/alice/claimed/f");
        assertThat(f.owner()).isEqualTo("alice");
        assertThat(f.group()).isEqualTo("supergroup"); // the parent's group, as in HDFS
    }

    @Test
    void aPrivateHomeCannotBeSearchedListedOrWrittenByOthers() throws IOException {
        write(as("alice"), "/home/alice/secret", DATA);
        assertThatThrownBy(() -> as("bob").getStatus("/home/alice/secret")).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("user=bob, access=EXECUTE, inode=\"/home/alice\":alice:supergroup:drwx------");
        assertThatThrownBy(() -> as("bob").list("/home/alice")).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("access=READ_EXECUTE");
        assertThatThrownBy(() -> read(as("bob"), "/home/alice/secret")).isInstanceOf(AccessDeniedException.class);
        assertThatThrownBy(() -> write(as("bob"), "/home/alice/planted", DATA))
                .isInstanceOf(AccessDeniedException.class).hasMessageContaining("access=EXECUTE") // search first
                .hasMessageContaining("(cannot create '/home/alice/planted')");
        assertThatThrownBy(() -> as("bob").delete("/home/alice/secret", false))
                .isInstanceOf(AccessDeniedException.class);
        assertThatThrownBy(() -> as("bob").rename("/home/alice/secret", "/shared/stolen"))
                .isInstanceOf(AccessDeniedException.class);
        // Nothing changed, and every kind of superuser passes.
        for (String superuser : List.of("", "ops", "dave")) {
            TarnClient c = superuser.isEmpty() ? admin() : as(superuser);
            assertThat(read(c, "/home/alice/secret")).isEqualTo(DATA);
            assertThat(c.list("/home/alice")).extracting(FileStatus::name).contains("secret");
        }
        assertThat(admin().exists("/home/alice/planted")).isFalse();
        assertThat(admin().exists("/shared/stolen")).isFalse();
    }

    @Test
    void fileModesDecideWhoReadsAndWrites() throws IOException {
        write(as("alice"), "/shared/report", DATA);
        assertThat(admin().getStatus("/shared/report").group()).isEqualTo("analysts");
        as("alice").setPermission("/shared/report", 0640);
        assertThat(read(as("bob"), "/shared/report")).isEqualTo(DATA); // group analysts may read
        assertThatThrownBy(() -> read(as("carol"), "/shared/report")).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("user=carol, access=READ, inode=\"/shared/report\"");
        assertThat(as("carol").getStatus("/shared/report").size()).isEqualTo(DATA.length); // search is enough
        // Blocks by file id are checked too, not only opens by path.
        long id = as("carol").getStatus("/shared/report").fileId();
        assertThatThrownBy(() -> as("carol").getBlock(id, 0)).isInstanceOf(AccessDeniedException.class);
        assertThatThrownBy(() -> as("bob").append("/shared/report")).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("access=WRITE");
        assertThatThrownBy(() -> as("bob").create("/shared/report", CreateOptions.OVERWRITE))
                .isInstanceOf(AccessDeniedException.class);
        assertThatThrownBy(() -> as("bob").setTimes("/shared/report", 1, 1)).isInstanceOf(AccessDeniedException.class);
        assertThatThrownBy(() -> as("bob").setReplication("/shared/report", 1))
                .isInstanceOf(AccessDeniedException.class);
        as("alice").setPermission("/shared/report", 0660);
        try (TarnOutputStream out = as("bob").append("/shared/report")) {
            out.write(DATA);
        }
        assertThat(read(as("alice"), "/shared/report")).hasSize(2 * DATA.length);
    }

    @Test
    void onlyOwnersChangeModesOnlySuperusersGiveAwayAndGroupsNeedMembership() throws IOException {
        write(as("alice"), "/shared/owned", DATA);
        assertThatThrownBy(() -> as("bob").setPermission("/shared/owned", 0777))
                .isInstanceOf(AccessDeniedException.class).hasMessageContaining("only the owner (alice)");
        assertThatThrownBy(() -> as("alice").setOwner("/shared/owned", "bob", null))
                .isInstanceOf(AccessDeniedException.class).hasMessageContaining("only a superuser");
        assertThatThrownBy(() -> as("alice").setOwner("/shared/owned", null, "admins"))
                .isInstanceOf(AccessDeniedException.class).hasMessageContaining("not a member of group 'admins'");
        FileStatus s = as("alice").getStatus("/shared/owned");
        assertThat(List.of(s.owner(), s.group(), s.permission())).containsExactly("alice", "analysts", 0644);
        assertThat(as("alice").setOwner("/shared/owned", null, "alice").group()).isEqualTo("alice");
        assertThat(as("alice").setPermission("/shared/owned", 0600).permission()).isEqualTo(0600);
        assertThat(as("ops").setOwner("/shared/owned", "bob", null).owner()).isEqualTo("bob");
    }

    @Test
    void aStickyDirectoryKeepsOthersFromDeletingOrRenamingWhatTheyDoNotOwn() throws IOException {
        write(as("alice"), "/tmp/alices", DATA);
        write(as("alice"), "/shared/unsticky", DATA);
        assertThatThrownBy(() -> as("bob").delete("/tmp/alices", false)).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("'/tmp' is sticky");
        assertThatThrownBy(() -> as("bob").rename("/tmp/alices", "/tmp/bobs"))
                .isInstanceOf(AccessDeniedException.class);
        assertThat(as("bob").delete("/shared/unsticky", false)).isTrue(); // a writable directory without the bit
        as("alice").rename("/tmp/alices", "/tmp/still-alices");
        assertThat(as("alice").delete("/tmp/still-alices", false)).isTrue();
    }

    @Test
    void aRecursiveDeleteNeedsEveryNonEmptyDirectoryBelowOpen() throws IOException {
        TarnClient alice = as("alice");
        write(alice, "/shared/tree/locked/f", DATA);
        alice.mkdirs("/shared/tree/empty");
        alice.setPermission("/shared/tree/empty", 0500);
        alice.setPermission("/shared/tree/locked", 0500);
        assertThatThrownBy(() -> alice.delete("/shared/tree", true)).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("access=ALL, inode=\"/shared/tree/locked\"");
        assertThat(read(alice, "/shared/tree/locked/f")).isEqualTo(DATA);
        alice.setPermission("/shared/tree/locked", 0700);
        assertThat(alice.delete("/shared/tree", true)).isTrue(); // the empty read-only one needs nothing
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/home"})
    void onlyASuperuserCreatesUnderDirectoriesItOwns(String parent) throws IOException {
        String path = parent.equals("/") ? "/carols" : parent + "/carol";
        assertThatThrownBy(() -> as("carol").mkdirs(path)).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("user=carol, access=WRITE_EXECUTE, inode=\"" + parent + "\"");
        assertThat(as("dave").mkdirs(path)).isTrue();
        assertThat(admin().getStatus(path).owner()).isEqualTo("dave");
        assertThat(admin().delete(path, false)).isTrue();
    }

    @Test
    void refusalsAreAudited() throws IOException {
        ListAppender<ILoggingEvent> audit = new ListAppender<>();
        audit.start();
        Logger auditLogger = (Logger) LoggerFactory.getLogger("tarn.audit");
        auditLogger.addAppender(audit);
        try {
            assertThatThrownBy(() -> as("carol").delete("/home/alice", true)).isInstanceOf(AccessDeniedException.class);
            assertThat(audit.list).extracting(ILoggingEvent::getFormattedMessage)
                    .contains("user=carol ip=127.0.0.1 cmd=DELETE path=/home/alice result=ACCESS_DENIED");
        } finally {
            auditLogger.detachAppender(audit);
        }
    }

    @Test
    void withPermissionsOffModesAreKeptButNotChecked() throws IOException {
        KeyFile secret = KeyFile.newClusterSecret();
        Path clusterSecret = dir.resolve("off.secret");
        secret.write(clusterSecret);
        try (MiniCluster off = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                .set(TarnKeys.SECURITY_SECRET_FILE, clusterSecret.toString())
                .set(TarnKeys.SECURITY_PERMISSIONS, false).start();
             TarnClient alice = TarnClient.connect(off.config().toBuilder().set(TarnKeys.CLIENT_USER, "alice").build());
             TarnClient bob = TarnClient.connect(off.config().toBuilder().set(TarnKeys.CLIENT_USER, "bob").build())) {
            alice.mkdirs("/private", new Ownership("alice", "", 0700));
            write(alice, "/private/f", DATA);
            assertThat(bob.getStatus("/private").permission()).isEqualTo(0700);
            assertThat(read(bob, "/private/f")).isEqualTo(DATA);
            assertThat(bob.delete("/private", true)).isTrue();
        }
    }
}
