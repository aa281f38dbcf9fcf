package io.tarn.common.error;

/** Implemented by every Tarn exception: exposes the wire error code, so callers never parse messages. */
public interface TarnError {
    ErrorCode code();
}
