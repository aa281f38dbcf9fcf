package io.tarn.client;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnException;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.Ownership;
import io.tarn.common.fs.TarnPath;
import io.tarn.common.protocol.NamenodeProtocol.ListResponse;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The namespace operations whose answer, with several namenodes, takes more than one routed request,
 * so that a namespace partitioned over namenodes answers as one namenode would (docs/partitioning.md):
 * a directory's status and listing are gathered from every namenode and merged, and a create or
 * rename whose namenode answers PARENT_NOT_FOUND (it sees neither directories being made nor other
 * namenodes' files) makes the parents through partition 0, or finds the file standing where a parent
 * should be.
 *
 * <p>Called by {@link TarnClient}'s asynchronous operations: {@code getStatusAsync} when its
 * single-namenode fast path does not apply, {@code createAsync} only once the create failed (its
 * first attempt is TarnClient's own, kept as shallow as it always was, see {@link Backoff#retrying}),
 * the listing and rename always; sends its requests through the {@link NamespaceRouter}. With one
 * namenode each operation sends the requests it always did.
 * Guarantees: the same answers and error codes as with one namenode; a namenode that does not
 * answer leaves its share of a directory's times out rather than failing the lookup. Thread-safe
 * and stateless.
 */
final class PartitionedNamespace {
    /** Entries asked of a namenode per LIST request. */
    private static final int LIST_PAGE = 4096;

    private final NamespaceRouter router;

    PartitionedNamespace(NamespaceRouter router) {
        this.router = router;
    }

    /**
     * The status of a path, from the namenode owning its name (a file being renamed to another
     * namenode's name answers RETRY for a moment). A directory is asked of every namenode, each of
     * which records the changes it makes in it.
     */
    CompletableFuture<FileStatus> status(String path) {
        return router.atOwner(path, nn -> nn.getFile(path)).thenCompose(s -> s.isDirectory()
                ? directoryEverywhere(path, s) : CompletableFuture.completedFuture(s));
    }

    /**
     * A directory's status with the latest modification time of every namenode's copy: {@code first}
     * (the answer of the namenode owning the name) merged with the others'.
     */
    private CompletableFuture<FileStatus> directoryEverywhere(String path, FileStatus first) {
        return router.all().thenCompose(nns -> {
            int answered;
            try {
                answered = Namenodes.forPath(path, nns.length);
            } catch (TarnException e) {
                return CompletableFuture.failedFuture(e);
            }
            List<CompletableFuture<FileStatus>> each = new ArrayList<>(nns.length - 1);
            for (int p = 0; p < nns.length; p++) {
                if (p != answered) {
                    each.add(nns[p].getFile(path));
                }
            }
            return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0])).handle((v, e) -> {
                FileStatus merged = first;
                for (CompletableFuture<FileStatus> f : each) {
                    FileStatus s = f.isCompletedExceptionally() ? null : f.join();
                    if (s != null && s.isDirectory() && s.fileId() == first.fileId()) {
                        merged = merged.mergeTimes(s);
                    }
                }
                return merged; // a namenode that did not answer leaves its share out
            });
        });
    }

    /**
     * After the create of a file at the namenode owning its name ({@code create}, through
     * {@link NamespaceRouter#atOwner}) failed with {@code e}. With several namenodes, that namenode
     * neither creates directories nor sees files of other namenodes on the way: on PARENT_NOT_FOUND,
     * the parents are made through partition 0 ({@code createParents}) and the create is tried once
     * more, or the client finds out whether a file stands in the way, which makes it NOT_A_DIRECTORY
     * as with one namenode. Any other failure is the answer.
     */
    CompletableFuture<FileStatus> afterFailedCreate(String path, Function<NamenodeClient,
            CompletableFuture<FileStatus>> create, Ownership ownership, boolean createParents, Throwable e) {
        Throwable cause = Failures.unwrap(e);
        if (!parentMissingOnOneOfSeveral(cause)) {
            return CompletableFuture.failedFuture(cause);
        }
        if (!createParents) {
            return fileInTheWay("cannot create '" + path + "'", path, cause);
        }
        String parent;
        try {
            parent = TarnPath.parent(TarnPath.normalize(path));
        } catch (TarnException bad) {
            return CompletableFuture.failedFuture(bad);
        }
        Ownership dirs = new Ownership(ownership.owner(), ownership.group(), Ownership.DEFAULT_PERMISSION);
        return router.atCoordinator(nn -> nn.mkdirs(parent, dirs)).handle((d, de) -> {
            if (de == null) {
                return router.atOwner(path, create);
            }
            Throwable why = Failures.unwrap(de);
            if (Failures.hasCode(why, ErrorCode.FILE_EXISTS)) {
                // A file stands where a parent directory should be.
                return CompletableFuture.<FileStatus>failedFuture(TarnException.of(ErrorCode.NOT_A_DIRECTORY,
                        "cannot create '" + path + "': " + why.getMessage()));
            }
            return CompletableFuture.<FileStatus>failedFuture(why);
        }).thenCompose(f -> f);
    }

    /**
     * Renames at the namenode owning {@code src} (partition 0 for a directory); a PARENT_NOT_FOUND
     * from one of several namenodes becomes NOT_A_DIRECTORY when a file stands where a parent of
     * {@code dst} should be.
     */
    CompletableFuture<Void> rename(String src, String dst) {
        return router.atOwnerOrCoordinator(src, nn -> nn.rename(src, dst)).handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.<Void>completedFuture(null);
            }
            Throwable cause = Failures.unwrap(e);
            if (!parentMissingOnOneOfSeveral(cause)) {
                return CompletableFuture.<Void>failedFuture(cause);
            }
            return this.<Void>fileInTheWay("cannot rename '" + src + "' to '" + dst + "'", dst, cause);
        }).thenCompose(f -> f);
    }

    /** PARENT_NOT_FOUND from one of several namenodes, which does not see the other namenodes' files. */
    private boolean parentMissingOnOneOfSeveral(Throwable cause) {
        return router.several() && Failures.hasCode(cause, ErrorCode.PARENT_NOT_FOUND);
    }

    /**
     * After a create or rename to {@code child} answered {@link #parentMissingOnOneOfSeveral}:
     * NOT_A_DIRECTORY ("{@code what}: ...") when one of its parents is a file, as with one namenode,
     * else {@code notFound} itself.
     */
    private <T> CompletableFuture<T> fileInTheWay(String what, String child, Throwable notFound) {
        List<String> parents;
        try {
            parents = TarnPath.components(TarnPath.parent(TarnPath.normalize(child)));
        } catch (TarnException bad) {
            return CompletableFuture.failedFuture(notFound);
        }
        return fileInTheWay(what, parents, 0, notFound);
    }

    /** {@link #fileInTheWay(String, String, Throwable)} from {@code parents}' {@code i}-th on, one lookup each. */
    private <T> CompletableFuture<T> fileInTheWay(String what, List<String> parents, int i, Throwable notFound) {
        if (i == parents.size()) {
            return CompletableFuture.failedFuture(notFound);
        }
        String prefix = "/" + String.join("/", parents.subList(0, i + 1));
        return status(prefix).handle((s, e) -> {
            if (e != null) {
                return CompletableFuture.<T>failedFuture(notFound);
            }
            if (!s.isDirectory()) {
                return CompletableFuture.<T>failedFuture(TarnException.of(ErrorCode.NOT_A_DIRECTORY,
                        what + ": '" + prefix + "' is a file, not a directory"));
            }
            return this.<T>fileInTheWay(what, parents, i + 1, notFound);
        }).thenCompose(f -> f);
    }

    /**
     * Every entry of a directory, sorted by name. With several namenodes, each lists its own files
     * (partition 0 the subdirectories too) and the lists are merged; a file lists as itself, from the
     * one namenode that holds it.
     */
    CompletableFuture<List<FileStatus>> list(String path) {
        return router.all().thenCompose(nns -> {
            if (nns.length == 1) {
                return listFrom(nns[0], path, "", new ArrayList<>());
            }
            List<CompletableFuture<List<FileStatus>>> parts = new ArrayList<>(nns.length);
            for (NamenodeClient nn : nns) {
                parts.add(listFrom(nn, path, "", new ArrayList<>()));
            }
            return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]))
                    .handle((v, e) -> merge(parts));
        });
    }

    /**
     * The union of the partitions' listings. A partition that does not know the path (it holds
     * neither the directory's files nor the file) answers FILE_NOT_FOUND; only when all do is the
     * path missing. Every partition lists the subdirectories: they appear once, with the latest
     * modification time any namenode recorded.
     */
    private static List<FileStatus> merge(List<CompletableFuture<List<FileStatus>>> parts) {
        List<FileStatus> all = new ArrayList<>();
        Throwable notFound = null;
        int answered = 0;
        for (CompletableFuture<List<FileStatus>> part : parts) {
            try {
                all.addAll(part.join());
                answered++;
            } catch (CompletionException e) {
                Throwable cause = Failures.unwrap(e);
                if (!Failures.hasCode(cause, ErrorCode.FILE_NOT_FOUND)) {
                    throw new CompletionException(cause);
                }
                notFound = cause;
            }
        }
        if (answered == 0) {
            throw new CompletionException(notFound);
        }
        all.sort(Comparator.comparing(FileStatus::name));
        List<FileStatus> merged = new ArrayList<>(all.size());
        for (FileStatus s : all) {
            int last = merged.size() - 1;
            if (last >= 0 && merged.get(last).name().equals(s.name()) && s.isDirectory()
                    && merged.get(last).isDirectory()) {
                merged.set(last, merged.get(last).mergeTimes(s));
            } else {
                merged.add(s);
            }
        }
        return merged;
    }

    /** The entries of {@code path} at one namenode after {@code startAfter}, page after page. */
    private CompletableFuture<List<FileStatus>> listFrom(NamenodeClient nn, String path, String startAfter,
                                                         List<FileStatus> acc) {
        return nn.list(path, startAfter, LIST_PAGE).thenCompose((ListResponse page) -> {
            acc.addAll(page.entries());
            if (!page.hasMore() || page.entries().isEmpty()) {
                return CompletableFuture.completedFuture(acc);
            }
            return listFrom(nn, path, page.entries().get(page.entries().size() - 1).name(), acc);
        });
    }
}
