package io.tarn.common.protocol;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.tarn.common.protocol.AdminProtocol.BlockKeys;
import io.tarn.common.protocol.ShortCircuitProtocol.Grant;
import io.tarn.common.testing.Decoders;

/**
 * Coverage-guided fuzzing (Jazzer) of what a datanode reads from clients and clients from a
 * datanode: the block access header of READ_BLOCK, WRITE_BLOCK and the short-circuit requests, the
 * group access header of GROUP_READ and GROUP_WRITE, the short-circuit grant, and the block keys a
 * namenode hands a datanode. Each is read (and encodes back to an equal value) or refused as
 * malformed; anything else is a finding. Inputs checked in under
 * {@code src/test/resources/io/tarn/common/protocol/DatanodeBodiesFuzzTestInputs/}.
 */
class DatanodeBodiesFuzzTest {

    /** The fields of a block access header, as the datanode reads them in place. */
    private record BlockAccess(int region, int block, int generation, long token, long stamp, int offset,
                               int length) {
        static BlockAccess read(ByteBuf b) {
            DatanodeProtocol.Access a = new DatanodeProtocol.Access().wrap(b);
            return new BlockAccess(a.regionId(), a.blockIndex(), a.generation(), a.token(), a.tokenStamp(),
                    a.offset(), a.length());
        }

        void write(ByteBuf b) {
            DatanodeProtocol.writeAccess(b, region, block, generation, token, stamp, offset, length);
        }
    }

    /** The fields of a group access header. */
    private record GroupAccess(long group, int slot, int generation, long token, long stamp, int offset, int length,
                               long client, long sequence, long firstUnacked) {
        static GroupAccess read(ByteBuf b) {
            GroupProtocol.Access a = new GroupProtocol.Access().wrap(b);
            return new GroupAccess(a.groupId(), a.slot(), a.generation(), a.token(), a.tokenStamp(), a.offset(),
                    a.length(), a.clientId(), a.sequence(), a.firstUnacked());
        }

        void write(ByteBuf b) {
            GroupProtocol.writeAccess(b, group, slot, generation, token, stamp, offset, length, client, sequence,
                    firstUnacked);
        }
    }

    @FuzzTest(maxDuration = "20s")
    void datanodeBodiesAreReadOrRefused(FuzzedDataProvider data) {
        int which = data.consumeInt(0, 3);
        byte[] bytes = data.consumeRemainingAsBytes();
        switch (which) {
            case 0 -> Decoders.readOrRefuse("BlockAccess", BlockAccess::read, (v, b) -> v.write(b), bytes);
            case 1 -> Decoders.readOrRefuse("GroupAccess", GroupAccess::read, (v, b) -> v.write(b), bytes);
            case 2 -> Decoders.readOrRefuse("Grant", Grant::read, (v, b) -> v.write(b), bytes);
            default -> Decoders.readOrRefuse("BlockKeys", BlockKeys::decode, (v, b) -> v.encode(b), bytes);
        }
    }
}
