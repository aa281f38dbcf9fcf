package io.tarn.hadoop;

import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.security.KeyFile;
import io.tarn.minicluster.MiniCluster;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.AccessControlException;
import org.apache.hadoop.security.UserGroupInformation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.PrivilegedExceptionAction;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Permission denials reach Hadoop callers as {@link AccessControlException}, as from HDFS: each
 * user is a Hadoop {@link UserGroupInformation} whose FileSystem authenticates (with the cluster's
 * client key) as that user, and the namenode checks what each may do.
 */
class TarnPermissionsIT {
    @TempDir
    static java.nio.file.Path dir;

    private static MiniCluster cluster;
    private static URI uri;
    private static Configuration conf;
    private static final Map<String, FileSystem> FS = new HashMap<>();

    @BeforeAll
    static void start() throws Exception {
        KeyFile secret = KeyFile.newClusterSecret();
        java.nio.file.Path clusterSecret = dir.resolve("cluster.secret");
        secret.write(clusterSecret);
        java.nio.file.Path clientKey = dir.resolve("client.key");
        secret.clientKey().write(clientKey);
        java.nio.file.Path groups = dir.resolve("groups");
        Files.writeString(groups, "alice: alice, etl\nbob: bob\n");
        cluster = MiniCluster.builder().datanodes(1)
                .set(TarnKeys.SECURITY_AUTHENTICATION, AuthenticationMode.SECRET)
                .set(TarnKeys.SECURITY_SECRET_FILE, clusterSecret.toString())
                .set(TarnKeys.SECURITY_GROUPS_FILE, groups.toString()).start();
        uri = URI.create("tarn://127.0.0.1:" + cluster.namenodeAddress().getPort());
        conf = new Configuration();
        conf.set("fs.tarn.security.authentication", "secret");
        conf.set("fs.tarn.security.secret.file", clientKey.toString());
        FileSystem admin = as(System.getProperty("user.name"));
        admin.mkdirs(new Path("/user/alice"));
        admin.setOwner(new Path("/user/alice"), "alice", "alice");
        admin.setPermission(new Path("/user/alice"), new FsPermission((short) 0750));
    }

    @AfterAll
    static void stop() throws IOException {
        for (FileSystem fs : FS.values()) {
            fs.close();
        }
        cluster.close();
    }

    /** A FileSystem for Hadoop user {@code user}. */
    private static FileSystem as(String user) throws IOException, InterruptedException {
        FileSystem fs = FS.get(user);
        if (fs == null) {
            UserGroupInformation ugi = UserGroupInformation.createRemoteUser(user);
            fs = ugi.doAs((PrivilegedExceptionAction<FileSystem>) () -> FileSystem.newInstance(uri, conf));
            FS.put(user, fs);
        }
        return fs;
    }

    @Test
    void everyDenialIsAnAccessControlExceptionAndChangesNothing() throws Exception {
        FileSystem alice = as("alice");
        FileSystem bob = as("bob");
        Path file = new Path("/user/alice/data");
        try (FSDataOutputStream out = alice.create(file)) {
            out.write("alice's".getBytes(StandardCharsets.UTF_8));
        }
        FileStatus st = alice.getFileStatus(file);
        assertThat(st.getOwner()).isEqualTo("alice");
        assertThat(st.getGroup()).isEqualTo("alice");

        assertThatThrownBy(() -> bob.getFileStatus(file)).isInstanceOf(AccessControlException.class)
                .hasMessageContaining("Permission denied: user=bob, access=EXECUTE, inode=\"/user/alice\"");
        assertThatThrownBy(() -> bob.listStatus(new Path("/user/alice"))).isInstanceOf(AccessControlException.class);
        assertThatThrownBy(() -> bob.open(file).read()).isInstanceOf(AccessControlException.class);
        assertThatThrownBy(() -> bob.create(new Path("/user/alice/planted")).close())
                .isInstanceOf(AccessControlException.class);
        assertThatThrownBy(() -> bob.mkdirs(new Path("/user/bob"))).isInstanceOf(AccessControlException.class)
                .hasMessageContaining("access=WRITE_EXECUTE, inode=\"/user\"");
        assertThatThrownBy(() -> bob.delete(file, false)).isInstanceOf(AccessControlException.class);
        assertThatThrownBy(() -> bob.rename(file, new Path("/stolen"))).isInstanceOf(AccessControlException.class);
        assertThatThrownBy(() -> bob.setPermission(file, new FsPermission((short) 0777)))
                .isInstanceOf(AccessControlException.class);
        assertThatThrownBy(() -> bob.setOwner(file, "bob", null)).isInstanceOf(AccessControlException.class);
        assertThatThrownBy(() -> bob.setTimes(file, 1, 1)).isInstanceOf(AccessControlException.class);
        assertThatThrownBy(() -> alice.setOwner(file, "bob", null)).isInstanceOf(AccessControlException.class)
                .hasMessageContaining("only a superuser");
        assertThat(alice.delete(new Path("/"), true)).isFalse(); // as HDFS: the root is never deleted

        // What the owner opens up, others may do; nothing of the refused changed anything.
        alice.setPermission(new Path("/user/alice"), new FsPermission((short) 0755));
        alice.setPermission(file, new FsPermission((short) 0644));
        try (var in = bob.open(file)) {
            assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("alice's");
        }
        assertThatThrownBy(() -> bob.append(file).close()).isInstanceOf(AccessControlException.class);
        assertThat(alice.exists(new Path("/user/alice/planted"))).isFalse();
        assertThat(alice.exists(new Path("/stolen"))).isFalse();
        FileStatus after = alice.getFileStatus(file);
        assertThat(after.getOwner()).isEqualTo("alice");
        assertThat(after.getModificationTime()).isEqualTo(st.getModificationTime());
    }
}
