package io.tarn.namenode.namespace;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.FileType;
import io.tarn.namenode.Fixture;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Lock-free creates against deletes and renames, hammered from several threads. */
class ConcurrencyTest {
    private final Fixture fx = new Fixture();
    private final Namespace ns = fx.nn.namespace();

    /**
     * Each round: one thread creates /d/f while another deletes /d non-recursively. Exactly the legal
     * outcomes may occur: the create wins (the delete fails DIRECTORY_NOT_EMPTY, the file is listed),
     * or the delete wins (the create fails, no file anywhere). Never both failing, never an orphan
     * file in a deleted directory.
     */
    @Test
    void createRacingRmdirNeverOrphansAFile() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        AtomicInteger createWon = new AtomicInteger();
        AtomicInteger deleteWon = new AtomicInteger();
        try {
            for (int round = 0; round < 3_000; round++) {
                ns.mkdirs("/d");
                CyclicBarrier start = new CyclicBarrier(2);
                Future<ErrorCode> create = pool.submit(() -> {
                    start.await();
                    return outcome(() -> ns.create("/d/f", FileType.FILE, false, false, 0, 1));
                });
                Future<ErrorCode> delete = pool.submit(() -> {
                    start.await();
                    return outcome(() -> ns.delete("/d", false));
                });
                ErrorCode c = create.get();
                ErrorCode d = delete.get();
                if (c == ErrorCode.OK) {
                    assertThat(d).isEqualTo(ErrorCode.DIRECTORY_NOT_EMPTY);
                    assertThat(ns.getFile("/d/f").isFile()).isTrue();
                    createWon.incrementAndGet();
                    ns.delete("/d", true);
                } else {
                    assertThat(d).isEqualTo(ErrorCode.OK);
                    assertThat(c).isIn(ErrorCode.PARENT_NOT_FOUND);
                    deleteWon.incrementAndGet();
                }
                assertThat(ns.list("/", "", 10).entries()).isEmpty();
                assertThat(ns.fileCount()).isZero();
                assertThat(ns.directoryCount()).isEqualTo(1);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(createWon.get() + deleteWon.get()).isEqualTo(3_000);
    }

    /** Many writers create files in one directory while another thread deletes it recursively, over and over. */
    @Test
    void createsRacingRecursiveDeleteLeaveNoOrphans() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            for (int round = 0; round < 300; round++) {
                ns.mkdirs("/d");
                CyclicBarrier start = new CyclicBarrier(3);
                List<Future<Integer>> writers = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    int writer = w;
                    writers.add(pool.submit(() -> {
                        start.await();
                        int created = 0;
                        for (int i = 0; i < 50; i++) {
                            String path = "/d/s" + (i % 3) + "/f" + writer + "-" + i;
                            if (outcome(() -> ns.create(path, FileType.FILE,
                                    false, true, 0, writer + 1)) == ErrorCode.OK) {
                                created++;
                            }
                        }
                        return created;
                    }));
                }
                start.await();
                ErrorCode d = outcome(() -> ns.delete("/d", true));
                assertThat(d).isIn(ErrorCode.OK);
                for (Future<Integer> f : writers) {
                    f.get();
                }
                // Whatever survived is reachable from the root and counted exactly.
                long reachable = countFiles("/");
                assertThat(ns.fileCount()).isEqualTo(reachable);
                ns.delete("/", true);
                assertThat(ns.fileCount()).isZero();
                assertThat(ns.directoryCount()).isEqualTo(1);
                assertThat(fx.nn.leases().fileCount()).isZero();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** Files of one directory renamed back and forth while readers look them up: never lost, never doubled. */
    @Test
    void renamesNeverLoseOrDuplicateAFile() throws Exception {
        ns.mkdirs("/a");
        ns.mkdirs("/b");
        for (int i = 0; i < 20; i++) {
            ns.create("/a/f" + i, FileType.FILE, false, false, 0, 1);
        }
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> mover = pool.submit(() -> {
                for (int r = 0; r < 200; r++) {
                    for (int i = 0; i < 20; i++) {
                        String from = (r % 2 == 0 ? "/a/f" : "/b/f") + i;
                        ns.rename(from, r % 2 == 0 ? "/b" : "/a");
                    }
                }
                return null;
            });
            Future<?> creator = pool.submit(() -> {
                for (int i = 0; i < 2_000; i++) {
                    ns.create("/a/g" + i, FileType.FILE, false, false, 0, 2);
                }
                return null;
            });
            mover.get();
            creator.get();
        } finally {
            pool.shutdownNow();
        }
        assertThat(ns.list("/a", "", 10_000).entries()).hasSize(2_020);
        assertThat(ns.list("/b", "", 10_000).entries()).isEmpty();
        assertThat(ns.fileCount()).isEqualTo(2_020);
    }

    private long countFiles(String dir) throws TarnException {
        long n = 0;
        for (FileStatus s : ns.list(dir, "", Namespace.MAX_LIST_PAGE).entries()) {
            n += s.isFile() ? 1 : countFiles(dir.equals("/") ? "/" + s.name() : dir + "/" + s.name());
        }
        return n;
    }

    private interface Op {
        void run() throws Exception;
    }

    private static ErrorCode outcome(Op op) throws Exception {
        try {
            op.run();
            return ErrorCode.OK;
        } catch (TarnException e) {
            return e.code();
        }
    }
}
