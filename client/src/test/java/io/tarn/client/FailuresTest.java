package io.tarn.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.NoSpaceException;
import io.tarn.common.error.TarnException;
import java.io.Closeable;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** How a stream reports a failure again: a new exception of the same kind each time. */
class FailuresTest {

    @Test
    void aFailureReportedAgainIsANewExceptionOfTheSameKind() {
        IOException first = TarnException.of(ErrorCode.NO_SPACE, "writing /f: no region free");
        IOException again = Failures.again(first);
        assertThat(again).isNotSameAs(first).isInstanceOf(NoSpaceException.class)
                .hasMessage(first.getMessage()).hasCause(first);
        IOException plain = new IOException("disk gone");
        assertThat(Failures.again(plain)).isNotSameAs(plain).hasMessage("disk gone").hasCause(plain);
    }

    /**
     * A write fails, and close() in try-with-resources reports the failure again: with the same
     * instance Java would throw IllegalArgumentException ("Self-suppression not permitted") instead
     * of the failure, as a benchmark's writer once saw.
     */
    @Test
    void tryWithResourcesSeesTheFailureWithTheCloseFailureSuppressed() {
        IOException stored = TarnException.of(ErrorCode.NO_SPACE, "writing /f: no region free");
        Throwable thrown = catchThrowable(() -> {
            try (Closeable stream = () -> {
                throw Failures.again(stored);
            }) {
                throw stored;
            }
        });
        assertThat(thrown).isSameAs(stored);
        assertThat(thrown.getSuppressed()).hasSize(1);
        assertThat(thrown.getSuppressed()[0]).isInstanceOf(NoSpaceException.class);
    }
}
