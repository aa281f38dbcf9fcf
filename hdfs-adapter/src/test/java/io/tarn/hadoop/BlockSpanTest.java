package io.tarn.hadoop;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BlockSpanTest {
    private static final long BLOCK = 100;

    private static BlockLocator.Span span(long size, long start, long len) {
        return new BlockLocator.Span(7, size, BLOCK, start, len);
    }

    @Test
    void wholeFileCoversEveryBlock() {
        assertThat(span(350, 0, 350).blockCount()).isEqualTo(4);
        assertThat(span(300, 0, 300).blockCount()).isEqualTo(3);
    }

    @Test
    void rangeIsClippedToTheFile() {
        BlockLocator.Span s = span(350, 150, 10_000);
        assertThat(s.firstBlock()).isEqualTo(1);
        assertThat(s.blockCount()).isEqualTo(3);
    }

    @Test
    void rangeInsideOneBlock() {
        assertThat(span(350, 120, 50).blockCount()).isEqualTo(1);
        assertThat(span(350, 199, 2).blockCount()).isEqualTo(2);
    }

    @Test
    void zeroLengthStillNamesTheBlockHoldingStart() {
        BlockLocator.Span s = span(350, 250, 0);
        assertThat(s.firstBlock()).isEqualTo(2);
        assertThat(s.blockCount()).isEqualTo(1);
    }

    @Test
    void nothingAtOrPastTheEndOrForDirectories() {
        assertThat(span(350, 350, 10).blockCount()).isZero();
        assertThat(span(0, 0, 0).blockCount()).isZero();
        assertThat(new BlockLocator.Span(7, 0, 0, 0, 0).blockCount()).isZero();
    }
}
