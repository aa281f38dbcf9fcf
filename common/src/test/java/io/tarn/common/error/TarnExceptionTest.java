package io.tarn.common.error;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class TarnExceptionTest {

    /** The documented most specific type per code; codes not listed map to plain TarnException. */
    private static final Map<ErrorCode, Class<? extends IOException>> SPECIFIC = new EnumMap<>(ErrorCode.class);

    static {
        SPECIFIC.put(ErrorCode.FILE_NOT_FOUND, TarnFileNotFoundException.class);
        SPECIFIC.put(ErrorCode.PARENT_NOT_FOUND, TarnFileNotFoundException.class);
        SPECIFIC.put(ErrorCode.FILE_EXISTS, FileExistsException.class);
        SPECIFIC.put(ErrorCode.DIRECTORY_NOT_EMPTY, DirectoryNotEmptyException.class);
        SPECIFIC.put(ErrorCode.NOT_A_DIRECTORY, NotADirectoryException.class);
        SPECIFIC.put(ErrorCode.LEASE_CONFLICT, LeaseException.class);
        SPECIFIC.put(ErrorCode.LEASE_EXPIRED, LeaseException.class);
        SPECIFIC.put(ErrorCode.NO_SPACE, NoSpaceException.class);
        SPECIFIC.put(ErrorCode.DATANODE_DEAD, DatanodeUnavailableException.class);
        SPECIFIC.put(ErrorCode.UNKNOWN_DATANODE, DatanodeUnavailableException.class);
        SPECIFIC.put(ErrorCode.DATA_LOST, DatanodeUnavailableException.class);
        SPECIFIC.put(ErrorCode.GROUP_UNAVAILABLE, DatanodeUnavailableException.class);
        SPECIFIC.put(ErrorCode.INVALID_REPLICATION, ReplicationException.class);
        SPECIFIC.put(ErrorCode.REPLICATION_FIXED, ReplicationException.class);
        SPECIFIC.put(ErrorCode.NOT_ENOUGH_DATANODES, ReplicationException.class);
        SPECIFIC.put(ErrorCode.REPLICATION_UNAVAILABLE, ReplicationException.class);
        SPECIFIC.put(ErrorCode.STALE_GENERATION, StaleGenerationException.class);
        SPECIFIC.put(ErrorCode.TIMEOUT, RpcTimeoutException.class);
        SPECIFIC.put(ErrorCode.UNAUTHENTICATED, AuthenticationException.class);
        SPECIFIC.put(ErrorCode.ACCESS_DENIED, AccessDeniedException.class);
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void ofReturnsTheMostSpecificTypeCarryingCodeAndMessage(ErrorCode code) {
        IOException e = TarnException.of(code, "detail for " + code);
        assertThat(e).isExactlyInstanceOf(SPECIFIC.getOrDefault(code, TarnException.class));
        assertThat(e).isInstanceOf(TarnError.class).hasMessage("detail for " + code);
        assertThat(((TarnError) e).code()).isSameAs(code);
        assertThat(TarnException.codeOf(e)).isSameAs(code);
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void missingMessageFallsBackToTheDescription(ErrorCode code) {
        assertThat(TarnException.of(code, null)).hasMessage(code.description());
        assertThat(TarnException.of(code, "")).hasMessage(code.description());
    }

    @Test
    void fileNotFoundIsAJavaFileNotFoundException() {
        IOException e = TarnException.of(ErrorCode.FILE_NOT_FOUND, "/dätä/文件");
        assertThat(e).isInstanceOf(FileNotFoundException.class).hasMessage("/dätä/文件");
        assertThat(((TarnFileNotFoundException) e).code()).isEqualTo(ErrorCode.FILE_NOT_FOUND);

        IOException parent = TarnException.of(ErrorCode.PARENT_NOT_FOUND, "/a");
        assertThat(parent).isInstanceOf(FileNotFoundException.class);
        assertThat(TarnException.codeOf(parent)).isEqualTo(ErrorCode.PARENT_NOT_FOUND);
    }

    @Test
    void everyOtherSpecificTypeIsATarnException() {
        for (ErrorCode code : ErrorCode.values()) {
            if (code == ErrorCode.FILE_NOT_FOUND || code == ErrorCode.PARENT_NOT_FOUND) {
                continue;
            }
            IOException e = TarnException.of(code, "m");
            assertThat(e).as("%s", code).isInstanceOf(TarnException.class);
            assertThat(((TarnException) e).code()).isSameAs(code);
        }
    }

    @Test
    void specificSubtypesSetTheirCode() {
        assertThat(new FileExistsException("x").code()).isEqualTo(ErrorCode.FILE_EXISTS);
        assertThat(new DirectoryNotEmptyException("x").code()).isEqualTo(ErrorCode.DIRECTORY_NOT_EMPTY);
        assertThat(new NotADirectoryException("x").code()).isEqualTo(ErrorCode.NOT_A_DIRECTORY);
        assertThat(new NoSpaceException("x").code()).isEqualTo(ErrorCode.NO_SPACE);
        assertThat(new StaleGenerationException("x").code()).isEqualTo(ErrorCode.STALE_GENERATION);
        assertThat(new RpcTimeoutException("x").code()).isEqualTo(ErrorCode.TIMEOUT);
        assertThat(new LeaseException(ErrorCode.LEASE_EXPIRED, "x").code()).isEqualTo(ErrorCode.LEASE_EXPIRED);
        assertThat(new DatanodeUnavailableException(ErrorCode.DATA_LOST, "x").code()).isEqualTo(ErrorCode.DATA_LOST);
        assertThat(new TarnFileNotFoundException(ErrorCode.FILE_NOT_FOUND, null))
                .hasMessage("no such file or directory");
    }

    @Test
    void causeIsKept() {
        Throwable cause = new IllegalStateException("boom");
        TarnException e = new TarnException(ErrorCode.INTERNAL, "wrapped", cause);
        assertThat(e).hasMessage("wrapped").hasCause(cause);
        assertThat(e.code()).isEqualTo(ErrorCode.INTERNAL);
        assertThat(new TarnException(ErrorCode.INTERNAL, null, cause)).hasMessage("internal server error")
                .hasCause(cause);
    }

    @Test
    void codeOfForeignThrowablesIsInternal() {
        assertThat(TarnException.codeOf(new IOException("x"))).isEqualTo(ErrorCode.INTERNAL);
        assertThat(TarnException.codeOf(new RuntimeException())).isEqualTo(ErrorCode.INTERNAL);
        assertThat(TarnException.codeOf(new FileNotFoundException("plain"))).isEqualTo(ErrorCode.INTERNAL);
        assertThat(TarnException.codeOf(new UncheckedIOException(new NoSpaceException("x"))))
                .as("the code of a wrapped cause is not looked up").isEqualTo(ErrorCode.INTERNAL);
        assertThat(TarnException.codeOf(null)).isEqualTo(ErrorCode.INTERNAL);
    }
}
