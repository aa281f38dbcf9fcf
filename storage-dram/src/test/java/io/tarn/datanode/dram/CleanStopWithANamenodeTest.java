package io.tarn.datanode.dram;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.tarn.common.config.DramMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.protocol.DatanodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.namenode.Namenode;
import io.tarn.namenode.NamenodeService;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A DRAM datanode and a real namenode over loopback: a clean stop takes effect on the namenode at
 * once, long before its datanode timeout, and a restart with the kept data brings the blocks back.
 */
@Timeout(60)
class CleanStopWithANamenodeTest {
    private static final int BLOCK = 64 << 10;
    private static final long CLIENT = 0x5EED;
    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dramPath;

    private Transport transport;
    private Namenode namenode;
    private RpcClient namenodeRpc;
    private final Deque<AutoCloseable> cleanup = new ArrayDeque<>();

    @BeforeEach
    void startNamenode() throws IOException {
        TarnConfig config = TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.RPC_IO_THREADS, 2)
                .set(TarnKeys.NAMENODE_ADDRESS, "127.0.0.1:0")
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                // Far beyond the test: whatever marks the datanode dead here, it is not the timeout.
                .set(TarnKeys.DATANODE_TIMEOUT, 600_000L)
                .build();
        transport = Transports.create(config);
        namenode = Namenode.start(config, transport);
        namenodeRpc = transport.connect(namenode.address());
    }

    @AfterEach
    void stopAll() throws Exception {
        while (!cleanup.isEmpty()) {
            cleanup.pop().close();
        }
        namenodeRpc.close();
        namenode.close();
        transport.close();
    }

    private DramDatanode startDatanode(boolean keep) throws Exception {
        TarnConfig config = TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.RPC_TIMEOUT, 5_000L)
                .set(TarnKeys.NAMENODE_ADDRESS, "127.0.0.1:" + namenode.address().getPort())
                .set(TarnKeys.DATANODE_BIND, "127.0.0.1:0")
                .set(TarnKeys.HEARTBEAT_INTERVAL, 50L)
                .set(TarnKeys.BLOCK_SIZE, (long) BLOCK)
                .set(TarnKeys.DRAM_REGION_SIZE, 1L << 20)
                .set(TarnKeys.DRAM_CAPACITY, 1L << 20)
                .set(TarnKeys.DRAM_MODE, DramMode.MMAP)
                .set(TarnKeys.DRAM_PATH, dramPath.toString())
                .set(TarnKeys.DRAM_KEEP, keep)
                .build();
        DramDatanode dn = DramDatanode.start(config, transport);
        cleanup.push(dn);
        assertThat(dn.awaitRegistered(WAIT)).isTrue();
        return dn;
    }

    private NamenodeService nn() {
        return namenode.service();
    }

    /** Creates {@code path} with one block holding {@code data}, written to the datanode over the wire. */
    private long writeFile(String path, byte[] data, DramDatanode dn) throws Exception {
        long fileId = nn().create(new CreateRequest(path, FileType.FILE, NamenodeProtocol.CREATE_PARENTS, 0, CLIENT,
                "", io.tarn.common.fs.Ownership.UNSPECIFIED)).fileId();
        BlockRef w = nn().files().getBlock(fileId, 0, true, CLIENT, "");
        assertThat(w.datanodeId()).isEqualTo(dn.datanodeId());
        RpcClient c = transport.connect(dn.address());
        try {
            c.call(Opcode.WRITE_BLOCK, b -> DatanodeProtocol.writeAccess(b, w.regionId(), w.blockIndex(),
                    w.generation(), w.token(), w.tokenStamp(), 0, data.length), Unpooled.wrappedBuffer(data),
                            body -> null)
                    .get(10, TimeUnit.SECONDS);
        } finally {
            c.close();
        }
        nn().files().close(fileId, CLIENT, data.length);
        return fileId;
    }

    private byte[] readBlock(long fileId, DramDatanode dn, int length) throws Exception {
        BlockRef r = getBlockOverTheWire(fileId);
        RpcClient c = transport.connect(dn.address());
        try {
            return c.call(Opcode.READ_BLOCK, b -> DatanodeProtocol.writeAccess(b, r.regionId(), r.blockIndex(),
                    r.generation(), r.token(), r.tokenStamp(), 0, length), ByteBufUtil::getBytes).get(10,
                            TimeUnit.SECONDS);
        } finally {
            c.close();
        }
    }

    private BlockRef getBlockOverTheWire(long fileId) throws Exception {
        return namenodeRpc.call(Opcode.GET_BLOCK, b -> new GetBlockRequest(fileId, 0, false, 0, "", -1).encode(b),
                NamenodeProtocol::readBlockRef).get(10, TimeUnit.SECONDS);
    }

    /** The error GET_BLOCK of block 0 answers, as "CODE: message". */
    private String getBlockError(long fileId) {
        Throwable t = catchThrowable(() -> getBlockOverTheWire(fileId));
        assertThat(t).isInstanceOf(ExecutionException.class);
        return TarnException.codeOf(t.getCause()) + ": " + t.getCause().getMessage();
    }

    private static byte[] data(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    @Test
    void aStopKeepingTheDataMakesItsBlocksUnavailableAtOnceAndARestartBringsThemBack() throws Exception {
        DramDatanode dn = startDatanode(true);
        int id = dn.datanodeId();
        int port = dn.address().getPort();
        byte[] d = data(5000);
        long f = writeFile("/kept", d, dn);

        dn.close();

        assertThat(nn().datanodes().get(id).alive()).as("dead without waiting for the timeout").isFalse();
        assertThat(getBlockError(f)).startsWith(ErrorCode.DATANODE_DEAD + ": ")
                .contains("datanode " + id).contains("127.0.0.1:" + port).contains("stopped");
        Throwable noSpace = catchThrowable(() -> writeFile("/new", data(10), dn));
        assertThat(TarnException.codeOf(noSpace)).as("nothing allocated on it").isEqualTo(ErrorCode.NO_SPACE);

        DramDatanode again = startDatanode(true);
        assertThat(again.intact()).isTrue();
        assertThat(again.datanodeId()).isEqualTo(id);
        assertThat(nn().datanodes().get(id).alive()).isTrue();
        assertThat(readBlock(f, again, d.length)).isEqualTo(d);
    }

    @Test
    void aStopWithoutTheDataLosesItsBlocksAndFreesItsRegions() throws Exception {
        DramDatanode dn = startDatanode(false);
        int id = dn.datanodeId();
        long f = writeFile("/dropped", data(100), dn);
        assertThat(nn().datanodes().get(id).freeBlocks()).isEqualTo(15);

        dn.close();

        assertThat(nn().datanodes().get(id).alive()).isFalse();
        assertThat(getBlockError(f)).startsWith(ErrorCode.DATA_LOST + ": ").contains("datanode " + id);
        assertThat(nn().datanodes().get(id).freeBlocks()).isEqualTo(16);
    }
}
