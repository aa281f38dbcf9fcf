package io.tarn.namenode;

import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.ErrorDetail.MovedTo;
import io.tarn.common.error.ErrorDetail.Redirect;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Partitions;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.CloseRequest;
import io.tarn.common.protocol.NamenodeProtocol.CreateRequest;
import io.tarn.common.protocol.NamenodeProtocol.DeleteRequest;
import io.tarn.common.protocol.NamenodeProtocol.GetBlockRequest;
import io.tarn.common.protocol.NamenodeProtocol.MkdirsRequest;
import io.tarn.common.protocol.NamenodeProtocol.PathRequest;
import io.tarn.common.protocol.NamenodeProtocol.RenameRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.common.protocol.NamenodeProtocol.SetReplicationRequest;
import io.tarn.common.protocol.Opcode;
import io.tarn.rpc.RpcClient;
import io.tarn.rpc.RpcClient.BodyWriter;
import io.tarn.rpc.RpcClient.ResponseDecoder;
import io.tarn.rpc.Transport;
import io.tarn.rpc.Transports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The routing decisions of two namenodes on loopback ports, as a client sees them over the wire:
 * namenode 0 runs directory changes through its coordinator and moves a file renamed to a name
 * the other owns; namenode 1 answers a directory change AT_COORDINATOR and a directory creation
 * WRONG_PARTITION, with the messages clients have always had, and changes nothing.
 */
class RoutingOverTheWireTest {
    private static final long CLIENT = 0x5EED;
    private static final Ownership OWN = new Ownership("ann", "staff", 0750);

    private final List<Namenode> namenodes = new ArrayList<>();
    private final String[] addresses = new String[2];
    private Transport transport;
    private RpcClient[] rpc;

    @BeforeEach
    void start() throws Exception {
        TarnConfig base = TarnConfig.builder()
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.BLOCK_SIZE, 64L << 10)
                .set(TarnKeys.RPC_IO_THREADS, 1)
                .set(TarnKeys.RPC_TIMEOUT, 10_000L)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.NONE)
                .build();
        for (int attempt = 1; namenodes.isEmpty(); attempt++) {
            for (int p = 0; p < 2; p++) {
                addresses[p] = "127.0.0.1:" + freePort();
            }
            try {
                for (int p = 0; p < 2; p++) {
                    namenodes.add(Namenode.start(base.toBuilder()
                            .set(TarnKeys.NAMENODE_ADDRESS, String.join(",", addresses))
                            .set(TarnKeys.NAMENODE_PARTITION, p).build()));
                }
            } catch (IOException e) {
                namenodes.forEach(Namenode::close); // a port picked free was taken meanwhile: new ports
                namenodes.clear();
                if (attempt == 5) {
                    throw e;
                }
            }
        }
        transport = Transports.create(base);
        rpc = new RpcClient[] {transport.connect(namenodes.get(0).address()),
                transport.connect(namenodes.get(1).address())};
    }

    @AfterEach
    void stop() {
        if (transport != null) {
            transport.close();
        }
        namenodes.forEach(Namenode::close);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** A name that hashes to {@code p} of 2. */
    private static String nameOf(int p, String prefix) {
        for (int i = 0; ; i++) {
            if (Partitions.ofName(prefix + i, 2) == p) {
                return prefix + i;
            }
        }
    }

    private <T> T call(int nn, int opcode, BodyWriter body, ResponseDecoder<T> decoder) throws Exception {
        try {
            return rpc[nn].call(opcode, body, decoder).get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw (Exception) e.getCause();
        }
    }

    private FileStatus status(int nn, int opcode, BodyWriter body) throws Exception {
        return call(nn, opcode, body, NamenodeProtocol::decodeStatus);
    }

    private void ok(int nn, int opcode, BodyWriter body) throws Exception {
        int bytes = call(nn, opcode, body, b -> b.readableBytes());
        assertThat(bytes).as("empty answer to %s", Opcode.name(opcode)).isZero();
    }

    /** The error {@code nn} answers: its code and message, as one string. */
    private String error(int nn, int opcode, BodyWriter body) {
        Throwable t = catchThrowable(() -> call(nn, opcode, body, b -> null));
        assertThat(t).as("an error answer to %s", Opcode.name(opcode)).isInstanceOf(TarnError.class);
        return ((TarnError) t).code() + ": " + t.getMessage();
    }

    /** Where the error {@code nn} answers says to go instead. */
    private ErrorDetail detail(int nn, int opcode, BodyWriter body) {
        Throwable t = catchThrowable(() -> call(nn, opcode, body, b -> null));
        assertThat(t).as("an error answer to %s", Opcode.name(opcode)).isInstanceOf(TarnException.class);
        return ((TarnException) t).detail();
    }

    private FileStatus getFile(int nn, String path) throws Exception {
        return status(nn, Opcode.GET_FILE, b -> new PathRequest(path).encode(b));
    }

    private String describe(int p) {
        return "namenode " + p + " (" + addresses[p] + ")";
    }

    private static BodyWriter mtime(String path, long time) {
        return b -> new SetAttributesRequest(path, NamenodeProtocol.SET_MTIME, Ownership.UNSPECIFIED, time, 0)
                .encode(b);
    }

    @Test
    void onlyTheCoordinatorCreatesDirectories() throws Exception {
        String refused = "WRONG_PARTITION: directories are created through " + describe(0) + ", not " + describe(1);
        assertThat(error(1, Opcode.MKDIRS, b -> new MkdirsRequest("/d", OWN).encode(b))).isEqualTo(refused);
        assertThat(detail(1, Opcode.MKDIRS, b -> new MkdirsRequest("/d", OWN).encode(b)))
                .as("where to go instead").isEqualTo(new Redirect(0, addresses[0]));
        assertThat(error(1, Opcode.CREATE, b -> new CreateRequest("/d", FileType.DIRECTORY, 0, 0, CLIENT, "", OWN)
                .encode(b))).isEqualTo(refused);
        assertThat(error(0, Opcode.GET_FILE, b -> new PathRequest("/d").encode(b))).startsWith("FILE_NOT_FOUND");

        assertThat(status(0, Opcode.MKDIRS, b -> new MkdirsRequest("/d", OWN).encode(b)).isDirectory()).isTrue();
        assertThat(getFile(1, "/d").ownership()).as("made on every namenode before the answer").isEqualTo(OWN);
        assertThat(status(0, Opcode.CREATE, b -> new CreateRequest("/d/e", FileType.DIRECTORY, 0, 0, CLIENT, "", OWN)
                .encode(b)).isDirectory()).isTrue();
        assertThat(getFile(1, "/d/e").isDirectory()).isTrue();
    }

    @Test
    void directoryChangesRunAtTheCoordinatorAndAreRefusedElsewhere() throws Exception {
        status(0, Opcode.MKDIRS, b -> new MkdirsRequest("/d/sub", OWN).encode(b));
        long mtime = getFile(1, "/d").modificationTime();
        String elsewhere = "' goes through " + describe(0);
        assertThat(error(1, Opcode.SET_ATTR, mtime("/d", 42)))
                .isEqualTo("AT_COORDINATOR: changing the attributes of directory '/d" + elsewhere);
        assertThat(detail(1, Opcode.SET_ATTR, mtime("/d", 42))).isEqualTo(new Redirect(0, addresses[0]));
        assertThat(error(1, Opcode.DELETE, b -> new DeleteRequest("/d", true).encode(b)))
                .isEqualTo("AT_COORDINATOR: deleting directory '/d" + elsewhere);
        assertThat(error(1, Opcode.RENAME, b -> new RenameRequest("/d", "/e").encode(b)))
                .isEqualTo("AT_COORDINATOR: renaming directory '/d" + elsewhere);
        assertThat(getFile(1, "/d/sub").isDirectory()).as("nothing changed").isTrue();
        assertThat(getFile(0, "/d").modificationTime()).isEqualTo(mtime);

        assertThat(status(0, Opcode.SET_ATTR, mtime("/d", 42)).modificationTime()).isEqualTo(42);
        assertThat(getFile(1, "/d").modificationTime()).as("changed everywhere").isEqualTo(42);
        ok(0, Opcode.RENAME, b -> new RenameRequest("/d", "/e").encode(b));
        assertThat(getFile(1, "/e/sub").isDirectory()).isTrue();
        ok(0, Opcode.DELETE, b -> new DeleteRequest("/e", true).encode(b));
        for (int nn = 0; nn < 2; nn++) {
            int n = nn;
            assertThat(error(n, Opcode.GET_FILE, b -> new PathRequest("/e").encode(b))).startsWith("FILE_NOT_FOUND");
        }
        assertThat(error(0, Opcode.DELETE, b -> new DeleteRequest("/missing", true).encode(b)))
                .as("a real error is still answered as one").startsWith("FILE_NOT_FOUND");
    }

    @Test
    void filesStayWithTheirNamenodeOrMoveWhenRenamedToTheOthersName() throws Exception {
        status(0, Opcode.MKDIRS, b -> new MkdirsRequest("/d", OWN).encode(b));
        String mine = "/d/" + nameOf(1, "f");
        assertThat(error(0, Opcode.CREATE, b -> new CreateRequest(mine, FileType.FILE, 0, 0, CLIENT, "",
                Ownership.UNSPECIFIED).encode(b))).isEqualTo("WRONG_PARTITION: '" + mine + "' belongs to "
                + describe(1) + ", not to " + describe(0) + ": the client's partition map is out of date");
        assertThat(detail(0, Opcode.CREATE, b -> new CreateRequest(mine, FileType.FILE, 0, 0, CLIENT, "",
                Ownership.UNSPECIFIED).encode(b))).isEqualTo(new Redirect(1, addresses[1]));
        FileStatus f = status(1, Opcode.CREATE, b -> new CreateRequest(mine, FileType.FILE, 0, 0, CLIENT, "",
                Ownership.UNSPECIFIED).encode(b));
        status(1, Opcode.CLOSE, b -> new CloseRequest(f.fileId(), CLIENT, 0).encode(b));
        assertThat(status(1, Opcode.SET_ATTR, mtime(mine, 42)).modificationTime()).as("a file: here").isEqualTo(42);

        String same = "/d/" + nameOf(1, "g");
        ok(1, Opcode.RENAME, b -> new RenameRequest(mine, same).encode(b));
        assertThat(getFile(1, same).fileId()).isEqualTo(f.fileId());

        String away = "/d/" + nameOf(0, "h");
        ok(1, Opcode.RENAME, b -> new RenameRequest(same, away).encode(b));
        FileStatus moved = getFile(0, away);
        assertThat(moved.modificationTime()).isEqualTo(42);
        assertThat(error(1, Opcode.GET_FILE, b -> new PathRequest(same).encode(b))).startsWith("FILE_NOT_FOUND");
        long newId = call(1, Opcode.WHERE_MOVED, b -> b.writeLong(f.fileId()), b -> b.readLong());
        assertThat(newId).as("the old namenode tells where it went").isEqualTo(moved.fileId());
        assertThat(detail(1, Opcode.GET_BLOCK, b -> new GetBlockRequest(f.fileId(), 0, false, CLIENT, "", -1)
                .encode(b))).as("and says so in MOVED itself").isEqualTo(new MovedTo(moved.fileId()));
        ok(0, Opcode.DELETE, b -> new DeleteRequest(away, false).encode(b));
        assertThat(namenodes.get(0).fileCount() + namenodes.get(1).fileCount()).isZero();
    }

    @Test
    void aDirectoryReplicationDefaultIsSetThroughTheCoordinatorAndSeenByEveryNamenode() throws Exception {
        status(0, Opcode.MKDIRS, b -> new MkdirsRequest("/r/sub", OWN).encode(b));
        assertThat(error(1, Opcode.SET_REPLICATION, b -> new SetReplicationRequest("/r", 3).encode(b)))
                .isEqualTo("AT_COORDINATOR: setting the replication of directory '/r' goes through " + describe(0));
        assertThat(status(0, Opcode.SET_REPLICATION, b -> new SetReplicationRequest("/r", 3).encode(b))
                .replication()).isEqualTo(3);
        for (int nn = 0; nn < 2; nn++) {
            assertThat(getFile(nn, "/r").replication()).as("namenode %d", nn).isEqualTo(3);
            int n = nn;
            Integer inherited = call(n, Opcode.GET_REPLICATION, b -> new PathRequest("/r/sub/x").encode(b),
                    b -> Integer.valueOf(b.readUnsignedByte()));
            assertThat(inherited).as("inherited at namenode %d", nn).isEqualTo(3);
        }
        // A file created below it at either namenode gets 3, which needs three live datanodes (none here).
        for (int p = 0; p < 2; p++) {
            String path = "/r/sub/" + nameOf(p, "f");
            int n = p;
            assertThat(error(n, Opcode.CREATE, b -> new CreateRequest(path, FileType.FILE, 0, 0, CLIENT, "",
                    Ownership.UNSPECIFIED).encode(b))).isEqualTo("NOT_ENOUGH_DATANODES: cannot place '" + path
                    + "': replication 3 needs 3 live datanodes; 0 are alive; start more datanodes, or use "
                    + "replication 1");
        }
        String one = "/r/sub/" + nameOf(1, "g");
        FileStatus f = status(1, Opcode.CREATE, b -> new CreateRequest(one, FileType.FILE, 0, 0, CLIENT, "",
                Ownership.UNSPECIFIED, 1).encode(b));
        assertThat(f.replication()).isEqualTo(1);
        assertThat(status(1, Opcode.SET_REPLICATION, b -> new SetReplicationRequest(one, 1).encode(b))
                .replication()).as("a file: at the namenode that owns it").isEqualTo(1);
        assertThat(error(0, Opcode.SET_REPLICATION, b -> new SetReplicationRequest("/r", 2).encode(b)))
                .startsWith("INVALID_REPLICATION: cannot give '/r' replication 2");
        status(0, Opcode.SET_REPLICATION, b -> new SetReplicationRequest("/r", 0).encode(b));
        assertThat(getFile(1, "/r").replication()).as("removed everywhere").isZero();
    }
}
