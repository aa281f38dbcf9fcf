package io.tarn.namenode.namespace;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.namenode.Fixture;
import io.tarn.namenode.ManualClock;
import io.tarn.namenode.NamenodeService;
import io.tarn.common.security.BlockTokens;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * GET_FILE writes an entry's status straight from the inode ({@link Inode#writeStatus}); it must be
 * byte for byte what encoding its {@link Inode#status()} gives, for files and directories.
 */
class WriteStatusTest {
    private static String direct(Inode n) {
        ByteBuf buf = Unpooled.buffer();
        try {
            n.writeStatus(buf);
            return ByteBufUtil.hexDump(buf);
        } finally {
            buf.release();
        }
    }

    private static String viaRecord(Inode n) {
        ByteBuf buf = Unpooled.buffer();
        try {
            NamenodeProtocol.writeStatus(buf, n.status());
            return ByteBufUtil.hexDump(buf);
        } finally {
            buf.release();
        }
    }

    @Test
    void theDirectStatusIsTheRecordsEncoding() throws Exception {
        NamenodeService nn = new NamenodeService(new ManualClock(), Fixture.BLOCK, Fixture.LEASE_TIMEOUT,
                Fixture.DATANODE_TIMEOUT, BlockTokens.random());
        Namespace ns = nn.namespace();
        ns.mkdirs("/d", new Ownership("alice", "staff", 0750));
        ns.create("/d/f", FileType.FILE, false, false, 3, 7, new Ownership("bob", "", 0640));
        ns.setReplication("/d", 3); // a directory's default, in its status
        for (String path : new String[] {"/", "/d", "/d/f", "//d///f/"}) {
            Inode n = ns.entry(path);
            assertThat(direct(n)).as(path).isEqualTo(viaRecord(n));
        }
        assertThat(ns.entry("/d/f").status().underConstruction()).isTrue();
        assertThat(ns.entry("/d").status().replication()).isEqualTo(3);
        assertThat(ns.entry("/d/f").status().replication()).isEqualTo(1);
    }
}
