package io.tarn.client;

import io.tarn.common.config.TarnKeys;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail.MovedTo;
import io.tarn.common.error.TarnError;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileIds;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.Partitions;
import io.tarn.common.protocol.NamenodeProtocol;
import io.tarn.common.protocol.NamenodeProtocol.SetAttributesRequest;
import io.tarn.minicluster.MiniCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Which namenode the {@link NamespaceRouter} sends a request to, against three real namenodes: a
 * path to the namenode owning its last component, a file id to the namenode whose partition is in
 * it, directory creation to partition 0 (any other answers WRONG_PARTITION), and where it goes next
 * after an answer that sends it elsewhere: AT_COORDINATOR (a directory change, resent to partition
 * 0) and MOVED (a file renamed to another namenode's name, followed there with its new id).
 */
class NamespaceRouterTest {
    private static final int NAMENODES = 3;
    static MiniCluster cluster;
    static TarnClient client;
    static NamespaceRouter router;

    @BeforeAll
    static void start() throws IOException {
        cluster = MiniCluster.builder().namenodes(NAMENODES).datanodes(1)
                .set(TarnKeys.BLOCK_SIZE, 64L << 10).start();
        client = TarnClient.connect(cluster.config());
        router = client.router();
        client.mkdirs("/r"); // the client learns the partition map
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A name with {@code prefix} that hashes to partition {@code p}. */
    private static String nameOf(int p, String prefix) {
        for (int i = 0; ; i++) {
            if (Partitions.ofName(prefix + i, NAMENODES) == p) {
                return prefix + i;
            }
        }
    }

    private static <T> T get(CompletableFuture<T> f) throws Exception {
        return f.get(10, TimeUnit.SECONDS);
    }

    /** The error code {@code f} fails with. */
    private static ErrorCode failureCode(CompletableFuture<?> f) throws Exception {
        try {
            get(f);
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(TarnError.class);
            return ((TarnError) e.getCause()).code();
        }
        throw new AssertionError("succeeded, expected to fail");
    }

    private static void write(String path, byte[] data) throws IOException {
        try (TarnOutputStream out = client.create(path)) {
            out.write(data);
        }
    }

    @Test
    void theMapListsTheNamenodesInPartitionOrder() throws Exception {
        NamenodeClient[] nns = get(router.all());
        assertThat(nns).hasSize(NAMENODES);
        for (int p = 0; p < NAMENODES; p++) {
            assertThat(nns[p].remote()).as("partition %d", p)
                    .endsWith(":" + cluster.namenode(p).address().getPort());
        }
        assertThat(router.known()).isSameAs(nns);
        assertThat(router.several()).isTrue();
    }

    @Test
    void aPathGoesToTheNamenodeOwningItsLastComponent() throws Exception {
        for (int p = 0; p < NAMENODES; p++) {
            String path = "/r/" + nameOf(p, "owned-");
            NamenodeClient chosen = get(router.atOwner(path, CompletableFuture::completedFuture));
            assertThat(chosen).as(path).isSameAs(router.known()[p]);
            long before = cluster.namenode(p).fileCount();
            client.create(path).close();
            assertThat(cluster.namenode(p).fileCount()).as("files at namenode %d", p).isEqualTo(before + 1);
            assertThat(FileIds.partition(client.getStatus(path).fileId())).isEqualTo(p);
        }
        NamenodeClient root = get(router.atOwner("/", CompletableFuture::completedFuture));
        assertThat(root).as("the root").isSameAs(router.known()[0]);
    }

    @Test
    void aFileIdGoesToTheNamenodeThatCreatedIt() throws Exception {
        for (int p = 0; p < NAMENODES; p++) {
            String path = "/r/" + nameOf(p, "by-id-");
            write(path, new byte[] {1, 2, 3});
            long id = client.getStatus(path).fileId();
            NamenodeClient chosen = get(router.following(new FileRef(id), (nn, fileId) ->
                    CompletableFuture.completedFuture(nn)));
            assertThat(chosen).as(path).isSameAs(router.known()[p]);
            assertThat(get(router.readBlocks(new FileRef(id), 0, 4))).as("the blocks of %s", path).hasSize(1);
        }
        long elsewhere = FileIds.file(NAMENODES + 4, 1, 1);
        NamenodeClient chosen = get(router.following(new FileRef(elsewhere), (nn, fileId) ->
                CompletableFuture.completedFuture(nn)));
        assertThat(chosen).as("an id of no partition of this cluster").isSameAs(router.known()[0]);
        assertThat(failureCode(router.readBlock(new FileRef(elsewhere), 0))).isEqualTo(ErrorCode.FILE_NOT_FOUND);
    }

    @Test
    void aMovedFileIsFollowedToItsNewNamenodeWithItsNewId() throws Exception {
        String from = "/r/" + nameOf(1, "moving-");
        String to = "/r/" + nameOf(2, "moved-");
        byte[] data = {4, 5, 6, 7};
        write(from, data);
        long oldId = client.getStatus(from).fileId();
        FileRef ref = new FileRef(oldId);
        client.rename(from, to);
        long newId = client.getStatus(to).fileId();
        assertThat(FileIds.partition(newId)).isEqualTo(2);
        assertThat(failureCode(router.known()[1].getBlocks(oldId, 0, 1))).as("the old namenode, asked directly")
                .isEqualTo(ErrorCode.MOVED);

        // The namenode counts every request it serves, datanode heartbeats and its peers' calls
        // too, which may land in the window: the fewest over a few tries is the router's own count.
        long fewest = Long.MAX_VALUE;
        for (int attempt = 0; attempt < 5 && fewest > 1; attempt++) {
            ref = new FileRef(oldId);
            long oldNamenodeOps = cluster.namenode(1).service().operations();
            List<BlockRef> blocks = get(router.readBlocks(ref, 0, 1));
            assertThat(blocks).hasSize(1);
            fewest = Math.min(fewest, cluster.namenode(1).service().operations() - oldNamenodeOps);
        }
        assertThat(fewest).as("one call answered MOVED with the new id: no WHERE_MOVED after it").isEqualTo(1);
        assertThat(ref.id()).as("the reference took the new id").isEqualTo(newId);
        NamenodeClient next = get(router.following(ref, (nn, fileId) -> CompletableFuture.completedFuture(nn)));
        assertThat(next).as("later calls go straight to the new namenode").isSameAs(router.known()[2]);
        try (InputStream in = client.open(to)) {
            assertThat(in.readAllBytes()).isEqualTo(data);
        }
    }

    @Test
    void aDirectoryChangeIsResentToTheCoordinatorAndAFileChangeIsNot() throws Exception {
        String dir = "/r/" + nameOf(2, "dir-");
        String file = "/r/" + nameOf(2, "file-");
        client.mkdirs(dir);
        client.create(file).close();
        for (String path : new String[] {dir, file}) {
            SetAttributesRequest r = new SetAttributesRequest(path, NamenodeProtocol.SET_PERMISSION,
                    Ownership.UNSPECIFIED.withPermission(0700), -1, -1);
            AtomicReference<NamenodeClient> answered = new AtomicReference<>();
            FileStatus s = get(router.atOwnerOrCoordinator(path, nn -> nn.setAttributes(r).thenApply(st -> {
                answered.set(nn);
                return st;
            })));
            assertThat(s.permission()).isEqualTo(0700);
            assertThat(answered.get()).as(path).isSameAs(router.known()[path.equals(dir) ? 0 : 2]);
        }
        SetAttributesRequest r = new SetAttributesRequest(dir, NamenodeProtocol.SET_PERMISSION,
                Ownership.UNSPECIFIED.withPermission(0750), -1, -1);
        assertThat(failureCode(router.known()[2].setAttributes(r))).as("the directory's own namenode, asked directly")
                .isEqualTo(ErrorCode.AT_COORDINATOR);
    }

    @Test
    void aWrongPartitionAnswerIsResentOnceToTheNamenodeItNames() throws Exception {
        String dir = "/r/" + nameOf(1, "redirected-");
        Ownership ownership = new Ownership("tester", "", Ownership.DEFAULT_PERMISSION);
        List<NamenodeClient> asked = new CopyOnWriteArrayList<>();
        FileStatus made = get(router.atOwner(dir, nn -> {
            asked.add(nn);
            return nn.mkdirs(dir, ownership);
        }));
        assertThat(made.isDirectory()).isTrue();
        assertThat(asked).as("the path's namenode, then the one its WRONG_PARTITION named")
                .containsExactly(router.known()[1], router.known()[0]);
    }

    @Test
    void aFileThatKeepsMovingFailsTheCallAfterTheLimit() throws Exception {
        FileRef ref = new FileRef(FileIds.file(1, 0, 5));
        AtomicInteger calls = new AtomicInteger();
        CompletableFuture<Object> f = router.following(ref, (nn, fileId) -> {
            calls.incrementAndGet();
            return CompletableFuture.failedFuture(new TarnException(ErrorCode.MOVED, "moved again",
                    new MovedTo(FileIds.file((int) (fileId % 2) + 1, 0, 5))));
        });
        assertThat(failureCode(f)).isEqualTo(ErrorCode.MOVED);
        assertThat(calls.get()).isEqualTo(NamespaceRouter.MAX_MOVES + 1);
        assertThat(catchThrowable(f::join)).hasRootCauseMessage("file " + FileIds.format(ref.id()) + " moved "
                + NamespaceRouter.MAX_MOVES + " times between namenodes while one call followed it (renamed back "
                + "and forth?); moved again");
    }

    @Test
    void directoriesAreCreatedThroughTheCoordinator() throws Exception {
        String dir = "/r/" + nameOf(1, "made-");
        Ownership ownership = new Ownership("tester", "", Ownership.DEFAULT_PERMISSION);
        assertThat(failureCode(router.known()[1].mkdirs(dir, ownership))).as("another namenode, asked directly")
                .isEqualTo(ErrorCode.WRONG_PARTITION);
        AtomicReference<NamenodeClient> asked = new AtomicReference<>();
        FileStatus made = get(router.atCoordinator(nn -> {
            asked.set(nn);
            return nn.mkdirs(dir, ownership);
        }));
        assertThat(asked.get()).isSameAs(router.known()[0]);
        assertThat(made.isDirectory()).isTrue();
        assertThat(client.getStatus(dir).isDirectory()).isTrue();
    }
}
