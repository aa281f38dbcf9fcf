package io.tarn.namenode;

import io.tarn.common.config.ExpiringDirectories;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.namenode.namespace.Namespace;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.tarn.common.protocol.NamenodeProtocol.SET_MTIME;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code tarn.namenode.expire.dirs} on a namenode service with a manual clock: a subdirectory left
 * alone past its time to live goes with everything below it, one renewed (its time set) or written
 * in stays, files and other directories are never touched, and the maintenance does it.
 */
class DirectoryExpiryTest {
    private static final long TTL = 60_000;
    private final Fixture fx = new Fixture();
    private final Namespace ns = fx.nn.namespace();

    @BeforeEach
    void setUp() throws Exception {
        fx.datanode(1, "h", 1, 0, 1, 64, false);
        fx.nn.expireDirectories(ExpiringDirectories.parse("/spark-shuffle=60s, /jobs/tmp=2m"));
    }

    private boolean exists(String path) {
        try {
            ns.entry(path);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    @Test
    void idleSubdirectoriesGoAndRenewedOnesStay() throws Exception {
        ns.mkdirs("/spark-shuffle/app-dead/0");
        fx.create("/spark-shuffle/app-dead/0/shuffle_0_1_0.data", 7);
        ns.mkdirs("/spark-shuffle/app-live");
        ns.mkdirs("/spark-shuffle/app-busy");
        fx.create("/spark-shuffle/loose-file", 7);
        ns.mkdirs("/elsewhere/app");

        fx.clock.advance(TTL / 2);
        assertThat(fx.nn.expireNow()).isZero();
        ns.setAttributes(new SetAttributesRequest("/spark-shuffle/app-live", SET_MTIME, Ownership.UNSPECIFIED,
                fx.clock.millis(), 0)); // the driver renews
        fx.clock.advance(TTL / 2 + 1);
        fx.create("/spark-shuffle/app-busy/marker", 7); // written in directly: modified now

        assertThat(fx.nn.expireNow()).isEqualTo(1);
        assertThat(exists("/spark-shuffle/app-dead")).isFalse();
        assertThat(exists("/spark-shuffle/app-dead/0/shuffle_0_1_0.data")).isFalse();
        assertThat(exists("/spark-shuffle/app-live")).isTrue();
        assertThat(exists("/spark-shuffle/app-busy/marker")).isTrue();
        assertThat(exists("/spark-shuffle/loose-file")).isTrue(); // files are not expired
        assertThat(exists("/spark-shuffle")).isTrue();
        assertThat(exists("/elsewhere/app")).isTrue();

        fx.clock.advance(TTL + 1);
        fx.nn.runMaintenance(); // the periodic maintenance expires them too
        assertThat(exists("/spark-shuffle/app-live")).isFalse();
        assertThat(exists("/spark-shuffle/app-busy")).isFalse();
        assertThat(exists("/spark-shuffle/loose-file")).isTrue();
        assertThat(exists("/elsewhere/app")).isTrue();
    }

    @Test
    void eachRuleHasItsOwnTimeToLiveAndAMissingDirectoryIsNoError() throws Exception {
        ns.mkdirs("/jobs/tmp/a");
        fx.clock.advance(TTL + 1);
        assertThat(fx.nn.expireNow()).isZero(); // 61 s of 2 min; /spark-shuffle does not exist
        fx.clock.advance(TTL);
        assertThat(fx.nn.expireNow()).isEqualTo(1);
        assertThat(exists("/jobs/tmp/a")).isFalse();
        assertThat(exists("/jobs/tmp")).isTrue();
    }

    @Test
    void manySubdirectoriesAreListedPageByPage() throws Exception {
        for (int i = 0; i < 2_500; i++) {
            ns.mkdirs("/spark-shuffle/app-" + i);
        }
        fx.clock.advance(TTL + 1);
        assertThat(fx.nn.expireNow()).isEqualTo(2_500);
        assertThat(ns.list("/spark-shuffle", "", 10).entries()).isEmpty();
    }

    @Test
    void badSettingsAreRefusedWithTheReason() {
        assertThat(ExpiringDirectories.parse("")).isEmpty();
        assertThat(ExpiringDirectories.parse(" /a//b/ = 90s ")).containsExactly(
                new ExpiringDirectories.Rule("/a/b", 90_000));
        assertThatThrownBy(() -> ExpiringDirectories.parse("/a")).hasMessageContaining("directory=duration");
        assertThatThrownBy(() -> ExpiringDirectories.parse("a=1m")).hasMessageContaining("not an absolute path");
        assertThatThrownBy(() -> ExpiringDirectories.parse("/=1m")).hasMessageContaining("below it");
        assertThatThrownBy(() -> ExpiringDirectories.parse("/a=10ms")).hasMessageContaining("at least 1000 ms");
        assertThatThrownBy(() -> ExpiringDirectories.parse("/a=soon")).hasMessageContaining("not a duration");
        assertThatThrownBy(() -> ExpiringDirectories.parse("/a=1m,/a/=2m")).hasMessageContaining("named twice");
    }
}
