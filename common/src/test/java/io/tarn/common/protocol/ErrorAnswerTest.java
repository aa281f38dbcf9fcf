package io.tarn.common.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.common.error.ErrorDetail.MovedTo;
import io.tarn.common.error.ErrorDetail.Redirect;
import io.tarn.common.error.TarnException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Error answers: the message, then where to go instead, read by clients old and new. */
class ErrorAnswerTest {
    private static ByteBuf written(String message, ErrorDetail detail) {
        ByteBuf b = Unpooled.buffer();
        ErrorAnswer.write(b, message, detail);
        return b;
    }

    @Test
    void detailsFollowTheMessageAndComeBackAsTheyWere() {
        for (ErrorDetail d : new ErrorDetail[] {new MovedTo(Long.MIN_VALUE), new MovedTo(42),
                new Redirect(0, "127.0.0.1:9060"), new Redirect(65_535, "[::1]:1"), new Redirect(3, "")}) {
            ByteBuf b = written("moved", d);
            assertThat(Wire.readString(b)).isEqualTo("moved");
            assertThat(ErrorAnswer.readDetail(b)).isEqualTo(d);
            assertThat(b.isReadable()).isFalse();
        }
    }

    @Test
    void anAnswerWithoutDetailEndsAfterItsMessage() {
        ByteBuf b = written("no such file", null);
        assertThat(Wire.readString(b)).isEqualTo("no such file");
        assertThat(b.isReadable()).as("as every error answer before details existed").isFalse();
        assertThat(ErrorAnswer.readDetail(b)).isNull();
    }

    @Test
    void anUnknownKindOrACutDetailIsNoneAndTheRestIsSkipped() {
        ByteBuf unknown = Unpooled.buffer();
        Wire.writeString(unknown, "newer server");
        unknown.writeByte(99).writeLong(7).writeInt(1);
        Wire.readString(unknown);
        assertThat(ErrorAnswer.readDetail(unknown)).isNull();
        assertThat(unknown.isReadable()).isFalse();

        ByteBuf cut = written("moved", new MovedTo(42));
        cut.writerIndex(cut.writerIndex() - 3);
        Wire.readString(cut);
        assertThat(ErrorAnswer.readDetail(cut)).isNull();
        assertThat(cut.isReadable()).isFalse();
    }

    @Test
    void aDetailTravelsInTheTypedExceptionButNotIntoSubtypesThatHaveNone() {
        TarnException moved = (TarnException) TarnException.of(ErrorCode.MOVED, "m", new MovedTo(5));
        assertThat(moved.detail()).isEqualTo(new MovedTo(5));
        assertThat(moved.code()).isEqualTo(ErrorCode.MOVED);
        assertThat(TarnException.of(ErrorCode.FILE_NOT_FOUND, "f", null))
                .isInstanceOf(java.io.FileNotFoundException.class);
        assertThat(((TarnException) TarnException.of(ErrorCode.INVALID_PATH, "p")).detail()).isNull();
    }
}
