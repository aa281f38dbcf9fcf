package io.tarn.common.error;

/** The block was freed and reused since its reference was issued; re-open the file. */
public final class StaleGenerationException extends TarnException {
    private static final long serialVersionUID = 1L;

    public StaleGenerationException(String message) {
        super(ErrorCode.STALE_GENERATION, message);
    }
}
