package io.tarn.namenode.namespace;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.tarn.namenode.journal.EditLog;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The retry cache keeps answers by client id and call id, records each one so that a replay (a
 * follower, a restart, an image) keeps the same answers, forgets them after {@link RetryCache#KEEP_MS}
 * and keeps at most {@link RetryCache#MAX_ENTRIES}, the oldest going first.
 */
class RetryCacheTest {

    /** Keeps what is appended, as a journal would. */
    private static final class Recording implements EditLog {
        final List<ByteBuf> records = new ArrayList<>();

        @Override
        public boolean enabled() {
            return true;
        }

        @Override
        public long append(int type, ByteBuf body) {
            assertThat(type).isEqualTo(RetryCache.RECORD);
            records.add(body);
            return records.size();
        }
    }

    private static String text(ByteBuf b) {
        try {
            return b.toString(StandardCharsets.UTF_8);
        } finally {
            b.release();
        }
    }

    private static ByteBuf bytes(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.UTF_8);
    }

    @Test
    void anAnswerKeptIsRecordedAndReplayedElsewhere() {
        RetryCache leader = new RetryCache();
        Recording log = new Recording();
        RetryCache.Key call = new RetryCache.Key(7, 1);
        assertThat(leader.answer(call)).isNull();
        assertThat(leader.begin(call)).isTrue();
        assertThat(leader.begin(call)).as("the same call twice at once").isFalse();
        leader.keep(call, bytes("status of /f"), log, 1_000);
        leader.end(call);
        assertThat(text(leader.answer(call))).isEqualTo("status of /f");
        assertThat(leader.answer(new RetryCache.Key(7, 2))).isNull();
        assertThat(leader.answer(new RetryCache.Key(8, 1))).isNull();

        RetryCache follower = new RetryCache();
        assertThat(log.records).hasSize(1);
        follower.replay(log.records.get(0), 2_000);
        assertThat(text(follower.answer(call))).isEqualTo("status of /f");

        Recording image = new Recording();
        follower.record(image);
        RetryCache restored = new RetryCache();
        restored.replay(image.records.get(0), 3_000);
        assertThat(text(restored.answer(call))).isEqualTo("status of /f");
    }

    @Test
    void answersGoAfterTheirTimeAndBeyondTheBound() {
        RetryCache cache = new RetryCache();
        cache.keep(new RetryCache.Key(1, 1), bytes("a"), EditLog.NONE, 0);
        cache.keep(new RetryCache.Key(1, 2), bytes("b"), EditLog.NONE, RetryCache.KEEP_MS / 2);
        assertThat(cache.expire(RetryCache.KEEP_MS - 1)).isZero();
        assertThat(cache.expire(RetryCache.KEEP_MS)).isEqualTo(1);
        assertThat(cache.answer(new RetryCache.Key(1, 1))).isNull();
        assertThat(text(cache.answer(new RetryCache.Key(1, 2)))).isEqualTo("b");

        for (long i = 0; i < RetryCache.MAX_ENTRIES + 10; i++) {
            cache.keep(new RetryCache.Key(2, i), bytes("x"), EditLog.NONE, RetryCache.KEEP_MS);
        }
        assertThat(cache.size()).isEqualTo(RetryCache.MAX_ENTRIES);
        assertThat(cache.answer(new RetryCache.Key(2, 0))).as("the oldest went first").isNull();
        assertThat(cache.answer(new RetryCache.Key(2, RetryCache.MAX_ENTRIES + 9))).isNotNull();
    }

    @Test
    void anAnswerTooBigIsNeitherRecordedNorKept() {
        RetryCache cache = new RetryCache();
        Recording log = new Recording();
        cache.keep(new RetryCache.Key(3, 1), Unpooled.wrappedBuffer(new byte[RetryCache.MAX_ANSWER + 1]), log, 0);
        assertThat(log.records).isEmpty();
        assertThat(cache.answer(new RetryCache.Key(3, 1))).isNull();
    }
}
