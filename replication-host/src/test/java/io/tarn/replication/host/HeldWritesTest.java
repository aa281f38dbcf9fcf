package io.tarn.replication.host;

import io.tarn.replication.BlockRange;
import io.tarn.replication.WriteCommand;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The writes a leader holds while its window is full, and the line of the ones it bounced. */
class HeldWritesTest {
    private static final int SIZE = 1000;
    private static final long CHARGE = SIZE + HeldWrites.OVERHEAD;

    private static WriteCommand write(long client, long seq) {
        return new WriteCommand(client, seq, seq, new BlockRange(0, SIZE), BytesPayload.copyOf(new byte[SIZE]));
    }

    /** Held writes of a group whose share is {@code writes} writes of {@link #SIZE} bytes. */
    private static HeldWrites holding(int writes) {
        return new HeldWrites(new HeldWrites.Budget(2 * writes * CHARGE));
    }

    @Test
    void writesAreHeldInArrivalOrderUpToTheGroupsShare() {
        HeldWrites held = holding(3);
        for (int i = 1; i <= 3; i++) {
            assertThat(held.tryAdd(write(1, i), 0)).as("write %d", i).isTrue();
        }
        assertThat(held.tryAdd(write(1, 4), 0)).as("beyond the group's share").isFalse();
        assertThat(held.size()).isEqualTo(3);
        assertThat(held.bytes()).isEqualTo(3 * CHARGE);
        for (int i = 1; i <= 3; i++) {
            WriteCommand c = held.takeFirst();
            assertThat(c.sequence()).isEqualTo(i);
            held.done(c);
        }
        assertThat(held.isEmpty()).isTrue();
        assertThat(held.bytes()).isZero();
    }

    @Test
    void aWriteRefusedAgainKeepsItsRoomAndGoesFirst() {
        HeldWrites held = holding(2);
        held.tryAdd(write(1, 1), 0);
        held.tryAdd(write(1, 2), 0);
        WriteCommand first = held.takeFirst();
        assertThat(held.tryAdd(write(1, 3), 0)).as("the write taken out is still charged").isFalse();
        held.putBack(first);
        assertThat(held.takeFirst().sequence()).isEqualTo(1);
    }

    @Test
    void theGroupsOfADatanodeShareOneBudget() {
        HeldWrites.Budget budget = new HeldWrites.Budget(4 * CHARGE);
        HeldWrites a = new HeldWrites(budget);
        HeldWrites b = new HeldWrites(budget);
        assertThat(a.tryAdd(write(1, 1), 0)).isTrue();
        assertThat(a.tryAdd(write(1, 2), 0)).isTrue();
        assertThat(a.tryAdd(write(1, 3), 0)).as("one group takes at most half").isFalse();
        assertThat(b.tryAdd(write(2, 1), 0)).isTrue();
        assertThat(b.tryAdd(write(2, 2), 0)).isTrue();
        assertThat(budget.used()).isEqualTo(4 * CHARGE);
        a.clear();
        assertThat(budget.used()).as("clearing frees the room").isEqualTo(2 * CHARGE);
        assertThat(a.bytes()).isZero();
    }

    @Test
    void aGroupHoldingNothingMayAlwaysHoldOneWrite() {
        HeldWrites.Budget budget = new HeldWrites.Budget(100);
        HeldWrites held = new HeldWrites(budget);
        assertThat(held.tryAdd(write(1, 1), 0)).as("larger than the whole budget").isTrue();
        assertThat(held.tryAdd(write(1, 2), 0)).isFalse();
        HeldWrites other = new HeldWrites(budget);
        assertThat(other.tryAdd(write(2, 1), 0)).as("another group holding nothing").isTrue();
        assertThat(budget.used()).isEqualTo(2 * CHARGE);
        assertThatThrownBy(() -> new HeldWrites.Budget(0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * The room that frees up goes to the writes bounced first: a newer write does not take it from a
     * bounced one whose client has not tried again yet, and a write keeps its place across retries.
     */
    @Test
    void roomThatFreesUpGoesToTheWritesBouncedFirst() {
        HeldWrites held = holding(2);
        held.tryAdd(write(1, 1), 0);
        held.tryAdd(write(1, 2), 0);
        WriteCommand x = write(7, 1);
        WriteCommand y = write(8, 1);
        assertThat(held.tryAdd(x, 10)).isFalse();
        held.bounced(x, 10);
        assertThat(held.tryAdd(y, 20)).isFalse();
        held.bounced(y, 20);
        assertThat(held.waiting()).isEqualTo(2);

        held.done(held.takeFirst()); // one place frees up
        WriteCommand z = write(9, 1);
        assertThat(held.tryAdd(z, 30)).as("a new write finds the room promised to the line").isFalse();
        assertThat(held.tryAdd(y, 30)).as("the second in line waits for the first").isFalse();
        held.bounced(y, 30);
        assertThat(held.tryAdd(x, 40)).as("the first in line takes the room when it comes back").isTrue();
        assertThat(held.waiting()).as("x left the line").isEqualTo(1);

        held.done(held.takeFirst());
        assertThat(held.tryAdd(z, 50)).isFalse();
        assertThat(held.tryAdd(y, 50)).as("y is first now").isTrue();
        assertThat(held.waiting()).isZero();
        held.done(held.takeFirst());
        assertThat(held.tryAdd(z, 60)).as("with nobody in line, whoever comes").isTrue();
    }

    @Test
    void aPlaceNotClaimedInTimeIsGivenUp() {
        HeldWrites held = holding(1);
        held.tryAdd(write(1, 1), 0);
        WriteCommand gone = write(7, 1);
        held.bounced(gone, 0);
        held.done(held.takeFirst());
        assertThat(held.tryAdd(write(9, 1), HeldWrites.KEEP_NANOS)).as("still kept").isFalse();
        assertThat(held.tryAdd(write(9, 1), HeldWrites.KEEP_NANOS + 1)).as("given up").isTrue();
        assertThat(held.waiting()).isZero();
    }

    @Test
    void aRetryKeepsItsPlaceLonger() {
        HeldWrites held = holding(1);
        held.tryAdd(write(1, 1), 0);
        WriteCommand x = write(7, 1);
        held.bounced(x, 0);
        held.bounced(x, HeldWrites.KEEP_NANOS);
        held.done(held.takeFirst());
        assertThat(held.tryAdd(write(9, 1), HeldWrites.KEEP_NANOS + 1)).as("x tried again: still kept").isFalse();
        assertThat(held.tryAdd(x, HeldWrites.KEEP_NANOS + 2)).isTrue();
    }

    @Test
    void aWriteThatWentStraightToTheWindowLeavesTheLine() {
        HeldWrites held = holding(1);
        held.tryAdd(write(1, 1), 0);
        WriteCommand x = write(7, 1);
        held.bounced(x, 0);
        held.done(held.takeFirst());
        held.leaveLine(HeldWrites.key(x));
        assertThat(held.waiting()).isZero();
        assertThat(held.tryAdd(write(9, 1), 1)).isTrue();
    }

    @Test
    void heldWritesNobodyWaitsForAreDroppedWithTheirRoom() {
        HeldWrites.Budget budget = new HeldWrites.Budget(6 * CHARGE);
        HeldWrites held = new HeldWrites(budget);
        for (int i = 1; i <= 3; i++) {
            held.tryAdd(write(1, i), 0);
        }
        held.dropIf(c -> c.sequence() != 2);
        assertThat(held.size()).isEqualTo(1);
        assertThat(held.takeFirst().sequence()).isEqualTo(2);
        assertThat(held.bytes()).isEqualTo(CHARGE);
        assertThat(budget.used()).isEqualTo(CHARGE);
    }

    @Test
    void theLineIsBounded() {
        HeldWrites held = holding(1);
        held.tryAdd(write(1, 1), 0);
        for (int i = 0; i < HeldWrites.MAX_LINE + 10; i++) {
            held.bounced(write(100 + i, 1), 0);
        }
        assertThat(held.waiting()).isEqualTo(HeldWrites.MAX_LINE);
    }
}
