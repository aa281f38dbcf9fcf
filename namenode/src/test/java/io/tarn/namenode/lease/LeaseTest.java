package io.tarn.namenode.lease;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.fs.FileStatus;
import io.tarn.namenode.Fixture;
import io.tarn.namenode.blocks.StorageId;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.tarn.common.protocol.NamenodeProtocol.CREATE_OVERWRITE;
import static io.tarn.namenode.Errors.failsWith;
import static org.assertj.core.api.Assertions.assertThat;

/** Write leases, driven by a manual clock. */
class LeaseTest {
    private static final long WRITER = 0xA1;
    private static final long OTHER = 0xB2;
    private final Fixture fx = new Fixture();

    @BeforeEach
    void datanode() throws Exception {
        fx.datanode(1, "h", 1, 0, 1, 16, false);
    }

    /** Advances time with the datanode heartbeating, so only leases can time out. */
    private void advance(long ms) throws Exception {
        fx.clock.advance(ms);
        fx.nn.datanodes().heartbeat(1, new StorageId(0, 1));
    }

    @Test
    void onlyTheHolderWritesAndCloses() throws Exception {
        long f = fx.create("/f", WRITER).fileId();
        assertThat(failsWith(ErrorCode.LEASE_CONFLICT, () -> fx.write(f, 0, OTHER)))
                .contains("/f").contains(Long.toHexString(WRITER));
        failsWith(ErrorCode.LEASE_CONFLICT, () -> fx.nn.files().close(f, OTHER, 0));
        fx.write(f, 0, WRITER);
        FileStatus closed = fx.nn.files().close(f, WRITER, 10);
        assertThat(closed.underConstruction()).isFalse();
        assertThat(fx.nn.leases().fileCount()).isZero();
        // A retried close is answered again; other writes see a closed file.
        assertThat(fx.nn.files().close(f, WRITER, 10).size()).isEqualTo(10);
        failsWith(ErrorCode.FILE_CLOSED, () -> fx.write(f, 1, WRITER));
        failsWith(ErrorCode.FILE_CLOSED, () -> fx.nn.files().close(f, OTHER, 10));
    }

    @Test
    void secondWriterCannotOverwriteAFileUnderConstruction() throws Exception {
        long f = fx.create("/f", WRITER).fileId();
        String msg = failsWith(ErrorCode.LEASE_CONFLICT, () -> fx.create("/f", OTHER, CREATE_OVERWRITE, 0));
        assertThat(msg).contains("/f").contains("being written by client " + Long.toHexString(WRITER));
        assertThat(fx.nn.namespace().getFile("/f").fileId()).isEqualTo(f);
        assertThat(fx.nn.namespace().fileCount()).isEqualTo(1);
        // Once closed, overwriting is fine.
        fx.nn.files().close(f, WRITER, 0);
        assertThat(fx.create("/f", OTHER, CREATE_OVERWRITE, 0).fileId()).isNotEqualTo(f);
    }

    @Test
    void renewedLeasesDoNotExpire() throws Exception {
        long f = fx.create("/f", WRITER).fileId();
        for (int i = 0; i < 5; i++) {
            advance(Fixture.LEASE_TIMEOUT / 2);
            fx.nn.leases().renew(WRITER);
            fx.nn.runMaintenance();
        }
        assertThat(fx.nn.namespace().getFile("/f").underConstruction()).isTrue();
        fx.write(f, 0, WRITER);
    }

    @Test
    void expiredLeaseClosesTheFileAtTheLastReportedDurableSize() throws Exception {
        long f = fx.create("/f", WRITER).fileId();
        fx.nn.files().getBlock(f, 0, true, WRITER, "", -1);
        fx.nn.files().getBlock(f, 1, true, WRITER, "", Fixture.BLOCK);
        fx.nn.files().getBlock(f, 2, true, WRITER, "", 2L * Fixture.BLOCK - 100);
        assertThat(fx.nn.namespace().getFile("/f").size()).as("reported by the writer")
                .isEqualTo(2L * Fixture.BLOCK - 100);
        fx.nn.files().sync(f, WRITER, 2L * Fixture.BLOCK);
        fx.nn.files().sync(f, WRITER, Fixture.BLOCK); // never shrinks
        assertThat(fx.nn.namespace().getFile("/f").size()).isEqualTo(2L * Fixture.BLOCK);
        failsWith(ErrorCode.INVALID_ARGUMENT, () -> fx.nn.files().sync(f, WRITER, 3L * Fixture.BLOCK + 1));
        failsWith(ErrorCode.LEASE_CONFLICT, () -> fx.nn.files().sync(f, OTHER, 1));
        advance(Fixture.LEASE_TIMEOUT + 1);
        fx.nn.runMaintenance();
        FileStatus s = fx.nn.namespace().getFile("/f");
        assertThat(s.underConstruction()).isFalse();
        assertThat(s.size()).isEqualTo(2L * Fixture.BLOCK);
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).as("unreported last block freed").isEqualTo(14);
        assertThat(failsWith(ErrorCode.LEASE_EXPIRED, () -> fx.write(f, 3, WRITER))).contains("expired");
        failsWith(ErrorCode.LEASE_EXPIRED, () -> fx.nn.files().close(f, WRITER, 3L * Fixture.BLOCK));
        assertThat(fx.read(f, 1).datanodeId()).isEqualTo(1);
    }

    @Test
    void anExpiredWritersFileCanBeOverwrittenBeforeTheReaperRuns() throws Exception {
        fx.create("/f", WRITER);
        advance(Fixture.LEASE_TIMEOUT + 1);
        assertThat(fx.create("/f", OTHER, CREATE_OVERWRITE, 0).underConstruction()).isTrue();
    }

    @Test
    void renewCoversAllFilesOfTheClientOnly() throws Exception {
        fx.create("/a", WRITER);
        fx.create("/b", WRITER);
        fx.create("/c", OTHER);
        advance(Fixture.LEASE_TIMEOUT);
        fx.nn.leases().renew(WRITER);
        advance(1);
        fx.nn.runMaintenance();
        assertThat(fx.nn.namespace().getFile("/a").underConstruction()).isTrue();
        assertThat(fx.nn.namespace().getFile("/b").underConstruction()).isTrue();
        assertThat(fx.nn.namespace().getFile("/c").underConstruction()).isFalse();
    }

    @Test
    void deletingAFileUnderConstructionReleasesLeaseAndBlocks() throws Exception {
        long f = fx.create("/f", WRITER).fileId();
        fx.write(f, 0, WRITER);
        fx.nn.namespace().delete("/f", false);
        assertThat(fx.nn.leases().fileCount()).isZero();
        assertThat(fx.nn.datanodes().get(1).freeBlocks()).isEqualTo(16);
        failsWith(ErrorCode.FILE_NOT_FOUND, () -> fx.write(f, 1, WRITER));
    }

    @Test
    void leaseManagerExpiryIsPerClient() {
        LeaseManager lm = new LeaseManager(fx.clock, 100);
        lm.acquire(1, 10);
        lm.acquire(1, 11);
        fx.clock.advance(60);
        lm.acquire(2, 20);
        fx.clock.advance(60);
        assertThat(lm.isLive(1)).isFalse();
        assertThat(lm.isLive(2)).isTrue();
        var expired = lm.expire();
        assertThat(expired).singleElement().satisfies(e -> {
            assertThat(e.clientId()).isEqualTo(1);
            assertThat(e.fileIds()).containsExactlyInAnyOrder(10L, 11L);
            assertThat(e.silenceMs()).isEqualTo(120);
        });
        assertThat(lm.fileCount()).isEqualTo(1);
        lm.release(2, 20);
        assertThat(lm.fileCount()).isZero();
        assertThat(lm.expire()).isEmpty();
    }
}
