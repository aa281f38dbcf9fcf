package io.tarn.common.error;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ErrorCodeTest {

    /**
     * The wire contract: every code this build knows, with its number. A change here breaks clients
     * of other versions, so this table may only ever grow at the end.
     */
    private static final Map<ErrorCode, Integer> WIRE = new LinkedHashMap<>();

    static {
        WIRE.put(ErrorCode.OK, 0);
        WIRE.put(ErrorCode.UNKNOWN, 1);
        WIRE.put(ErrorCode.INTERNAL, 2);
        WIRE.put(ErrorCode.MALFORMED_REQUEST, 3);
        WIRE.put(ErrorCode.UNSUPPORTED_VERSION, 4);
        WIRE.put(ErrorCode.UNKNOWN_OPCODE, 5);
        WIRE.put(ErrorCode.TIMEOUT, 6);
        WIRE.put(ErrorCode.CONNECTION_LOST, 7);
        WIRE.put(ErrorCode.SERVER_BUSY, 8);
        WIRE.put(ErrorCode.INVALID_ARGUMENT, 9);
        WIRE.put(ErrorCode.INVALID_PATH, 10);
        WIRE.put(ErrorCode.WRONG_PARTITION, 11);
        WIRE.put(ErrorCode.NOT_SUPPORTED, 12);
        WIRE.put(ErrorCode.AT_COORDINATOR, 13);
        WIRE.put(ErrorCode.RETRY, 14);
        WIRE.put(ErrorCode.MOVED, 15);
        WIRE.put(ErrorCode.FILE_NOT_FOUND, 20);
        WIRE.put(ErrorCode.FILE_EXISTS, 21);
        WIRE.put(ErrorCode.NOT_A_DIRECTORY, 22);
        WIRE.put(ErrorCode.IS_A_DIRECTORY, 23);
        WIRE.put(ErrorCode.DIRECTORY_NOT_EMPTY, 24);
        WIRE.put(ErrorCode.PARENT_NOT_FOUND, 25);
        WIRE.put(ErrorCode.RENAME_INVALID, 26);
        WIRE.put(ErrorCode.FILE_CLOSED, 27);
        WIRE.put(ErrorCode.BLOCK_NOT_FOUND, 28);
        WIRE.put(ErrorCode.LEASE_CONFLICT, 40);
        WIRE.put(ErrorCode.LEASE_EXPIRED, 41);
        WIRE.put(ErrorCode.NO_SPACE, 50);
        WIRE.put(ErrorCode.DATANODE_DEAD, 51);
        WIRE.put(ErrorCode.UNKNOWN_DATANODE, 52);
        WIRE.put(ErrorCode.STALE_GENERATION, 53);
        WIRE.put(ErrorCode.INVALID_TOKEN, 54);
        WIRE.put(ErrorCode.OUT_OF_RANGE, 55);
        WIRE.put(ErrorCode.BLOCK_NOT_WRITTEN, 56);
        WIRE.put(ErrorCode.DATA_LOST, 57);
        WIRE.put(ErrorCode.TOKEN_EXPIRED, 58);
        WIRE.put(ErrorCode.INVALID_REPLICATION, 60);
        WIRE.put(ErrorCode.REPLICATION_FIXED, 61);
        WIRE.put(ErrorCode.NOT_ENOUGH_DATANODES, 62);
        WIRE.put(ErrorCode.REPLICATION_UNAVAILABLE, 63);
        WIRE.put(ErrorCode.UNKNOWN_GROUP, 70);
        WIRE.put(ErrorCode.NOT_LEADER, 71);
        WIRE.put(ErrorCode.GROUP_UNAVAILABLE, 72);
        WIRE.put(ErrorCode.NAMESPACE_READ_ONLY, 80);
        WIRE.put(ErrorCode.UNAUTHENTICATED, 90);
        WIRE.put(ErrorCode.ACCESS_DENIED, 91);
    }

    @Test
    void keyWireNumbers() {
        assertThat(ErrorCode.OK.code()).isZero();
        assertThat(ErrorCode.FILE_NOT_FOUND.code()).isEqualTo(20);
        assertThat(ErrorCode.NO_SPACE.code()).isEqualTo(50);
        assertThat(ErrorCode.STALE_GENERATION.code()).isEqualTo(53);
    }

    @Test
    void everyCodeKeepsItsWireNumber() {
        assertThat(ErrorCode.values()).as("every code is in the wire table")
                .containsExactlyInAnyOrderElementsOf(WIRE.keySet());
        WIRE.forEach((c, n) -> assertThat(c.code()).as("%s", c).isEqualTo(n));
    }

    @Test
    void codesAreUnique() {
        assertThat(Arrays.stream(ErrorCode.values()).map(ErrorCode::code)).doesNotHaveDuplicates();
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void ofDecodesEveryKnownCode(ErrorCode c) {
        assertThat(ErrorCode.of(c.code())).isSameAs(c);
    }

    @ParameterizedTest
    @EnumSource(ErrorCode.class)
    void everyCodeHasADescription(ErrorCode c) {
        assertThat(c.description()).isNotBlank();
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, -20, Integer.MIN_VALUE, 16, 19, 29, 39, 42, 49, 59, 100, 1000, Integer.MAX_VALUE})
    void unknownNumbersDecodeAsUnknown(int code) {
        assertThat(ErrorCode.of(code)).isSameAs(ErrorCode.UNKNOWN);
    }

    @Test
    void everyNumberDecodesToItsCodeOrUnknown() {
        for (int n = -5; n < 300; n++) {
            ErrorCode c = ErrorCode.of(n);
            assertThat(c.code() == n || c == ErrorCode.UNKNOWN).as("of(%d) = %s", n, c).isTrue();
        }
    }
}
