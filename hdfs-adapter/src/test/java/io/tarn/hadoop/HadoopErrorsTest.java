package io.tarn.hadoop;

import io.tarn.common.error.AccessDeniedException;
import io.tarn.common.error.DirectoryNotEmptyException;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.FileExistsException;
import io.tarn.common.error.NotADirectoryException;
import io.tarn.common.error.TarnException;
import io.tarn.common.error.TarnFileNotFoundException;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.security.AccessControlException;
import org.junit.jupiter.api.Test;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HadoopErrorsTest {

    @Test
    void existingTargetBecomesFileAlreadyExists() {
        IOException e = HadoopErrors.translate(new FileExistsException("'/a' exists"), "/a");
        assertThat(e).isInstanceOf(FileAlreadyExistsException.class).hasMessageContaining("/a");
        assertThat(e.getCause()).isInstanceOf(FileExistsException.class);
    }

    @Test
    void nonEmptyDirectoryBecomesPathIsNotEmptyDirectory() {
        IOException e = HadoopErrors.translate(new DirectoryNotEmptyException("not empty"), "/d");
        assertThat(e).isInstanceOf(PathIsNotEmptyDirectoryException.class).hasMessageContaining("/d");
    }

    @Test
    void fileInThePathBecomesParentNotDirectory() {
        IOException e = HadoopErrors.translate(new NotADirectoryException("'/f' is a file"), "/f/x");
        assertThat(e).isInstanceOf(ParentNotDirectoryException.class);
    }

    @Test
    void aPermissionDenialBecomesAccessControlException() {
        AccessDeniedException denied = new AccessDeniedException("Permission denied: user=bob, access=READ");
        IOException e = HadoopErrors.translate(denied, "/f");
        assertThat(e).isInstanceOf(AccessControlException.class).hasMessage(denied.getMessage()).hasCause(denied);
    }

    @Test
    void notFoundStaysFileNotFound() {
        TarnFileNotFoundException nf = new TarnFileNotFoundException(ErrorCode.FILE_NOT_FOUND, "gone");
        assertThat(HadoopErrors.translate(nf, "/x")).isSameAs(nf).isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void otherFailuresPassUnchanged() {
        IOException plain = new IOException("disk on fire");
        TarnException busy = new TarnException(ErrorCode.SERVER_BUSY, "busy");
        assertThat(HadoopErrors.translate(plain, "/x")).isSameAs(plain);
        assertThat(HadoopErrors.translate(busy, "/x")).isSameAs(busy);
    }

    @Test
    void directoryWhereAFileWasWantedDependsOnTheOperation() {
        TarnException isDir = new TarnException(ErrorCode.IS_A_DIRECTORY, "is a directory");
        assertThat(HadoopErrors.notAFile(isDir, "/d")).isInstanceOf(FileNotFoundException.class).hasCause(isDir);
        assertThat(HadoopErrors.directoryExists(isDir, "/d")).isInstanceOf(FileAlreadyExistsException.class)
                .hasCause(isDir);
    }

    @Test
    void awaitRethrowsTheCarriedException() {
        FileExistsException cause = new FileExistsException("exists");
        assertThatThrownBy(() -> HadoopErrors.await(CompletableFuture.failedFuture(cause))).isSameAs(cause);
        assertThatThrownBy(() -> HadoopErrors.await(CompletableFuture.failedFuture(new IllegalStateException("bug"))))
                .isInstanceOf(IOException.class).hasCauseInstanceOf(IllegalStateException.class);
    }
}
