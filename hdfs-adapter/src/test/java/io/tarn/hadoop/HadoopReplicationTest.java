package io.tarn.hadoop;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ReplicationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Hadoop's factor as Tarn's: 1 or less is 1, 2 and 3 are 3 strictly, above 3 a hint falling back
 * to 1 when the namenode answers NOT_ENOUGH_DATANODES. The namenode is stood in for by a call that
 * answers as it would on a cluster of {@code alive} datanodes (the real answers are in the ITs).
 */
class HadoopReplicationTest {
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(HadoopReplication.class);
    private final List<Integer> asked = new ArrayList<>();
    private Level level;

    @BeforeEach
    void capture() {
        logged.start();
        logger.addAppender(logged);
        level = logger.getLevel();
        logger.setLevel(Level.DEBUG);
    }

    @AfterEach
    void release() {
        logger.detachAppender(logged);
        logger.setLevel(level);
    }

    /** A create as a namenode with {@code alive} datanodes answers it: the factor it got. */
    private HadoopReplication.Call<Integer> clusterOf(int alive) {
        return factor -> {
            asked.add(factor);
            if (factor > alive) {
                throw new ReplicationException(ErrorCode.NOT_ENOUGH_DATANODES, "cannot place '/f': replication "
                        + factor + " needs " + factor + " live datanodes; " + alive + " are alive");
            }
            return factor;
        };
    }

    private List<ILoggingEvent> warnings() {
        return logged.list.stream().filter(e -> e.getLevel() == Level.WARN).toList();
    }

    @Test
    void oneOrLessIsOneTwoAndThreeAreThreeAboveIsAHint() {
        for (short r : new short[] {Short.MIN_VALUE, -1, 0, 1}) {
            assertThat(HadoopReplication.factor(r)).as("factor %d", r).isEqualTo(1);
            assertThat(HadoopReplication.isHint(r)).isFalse();
        }
        for (short r : new short[] {2, 3}) {
            assertThat(HadoopReplication.factor(r)).isEqualTo(3);
            assertThat(HadoopReplication.isHint(r)).isFalse();
        }
        for (short r : new short[] {4, 10, Short.MAX_VALUE}) {
            assertThat(HadoopReplication.factor(r)).as("tried first").isEqualTo(3);
            assertThat(HadoopReplication.isHint(r)).isTrue();
        }
    }

    @Test
    void aRequestForTwoOrThreeFailsWithTheNamenodesMessage() {
        HadoopReplication rule = new HadoopReplication("tarn://nn:9060");
        assertThatThrownBy(() -> rule.apply((short) 2, "/f", clusterOf(2)))
                .isInstanceOf(ReplicationException.class)
                .hasMessageContaining("replication 3 needs 3 live datanodes; 2 are alive");
        assertThat(asked).containsExactly(3);
        assertThat(warnings()).isEmpty();
    }

    @Test
    void aHintGetsThreeWhereThreeArePlacedAtOneCall() throws IOException {
        HadoopReplication rule = new HadoopReplication("tarn://nn:9060");
        assertThat(rule.apply((short) 10, "/f", clusterOf(3))).isEqualTo(3);
        assertThat(rule.apply((short) 1, "/g", clusterOf(3))).isEqualTo(1);
        assertThat(asked).containsExactly(3, 1);
        assertThat(logged.list).isEmpty();
    }

    @Test
    void aHintFallsBackToOneWarningOncePerFileSystem() throws IOException {
        HadoopReplication rule = new HadoopReplication("tarn://nn:9060");
        assertThat(rule.apply((short) 10, "/job/split", clusterOf(1))).isEqualTo(1);
        assertThat(rule.apply((short) 4, "/job/other", clusterOf(1))).isEqualTo(1);
        assertThat(asked).containsExactly(3, 1, 3, 1);
        assertThat(warnings()).hasSize(1);
        assertThat(warnings().get(0).getFormattedMessage()).contains("tarn://nn:9060", "replication 10",
                "/job/split", "1 instead of 3", "needs 3 live datanodes; 1 are alive", "logged once per file system");
        assertThat(logged.list).hasSize(2);
        assertThat(logged.list.get(1).getLevel()).isEqualTo(Level.DEBUG);

        new HadoopReplication("tarn://other:9060").apply((short) 10, "/f", clusterOf(2));
        assertThat(warnings()).as("another file system warns once too").hasSize(2);
    }

    @Test
    void aHintPassesOnOtherFailures() {
        HadoopReplication rule = new HadoopReplication("tarn://nn:9060");
        assertThatThrownBy(() -> rule.apply((short) 10, "/f", factor -> {
            throw new ReplicationException(ErrorCode.REPLICATION_FIXED, "holds data already");
        })).hasMessage("holds data already");
        assertThat(warnings()).isEmpty();
    }
}
