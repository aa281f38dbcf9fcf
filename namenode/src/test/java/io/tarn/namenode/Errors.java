package io.tarn.namenode;

import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.TarnError;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** Asserts that a call fails with a given wire error code; returns the message for further checks. */
public final class Errors {
    private Errors() {
    }

    public static String failsWith(ErrorCode code, ThrowingCallable call) {
        Throwable t = catchThrowable(call);
        assertThat(t).as("expected %s", code).isInstanceOf(TarnError.class);
        assertThat(((TarnError) t).code()).as(t.getMessage()).isEqualTo(code);
        return t.getMessage();
    }
}
