package io.tarn.datanode.dram;

import io.tarn.common.security.BlockTokens;
import io.tarn.datanode.BlockService;
import io.tarn.datanode.DatanodeMetrics;
import io.tarn.datanode.GenerationTable;
import io.tarn.datanode.Registration;
import org.junit.jupiter.api.BeforeEach;

import java.util.List;

import static io.tarn.datanode.dram.TestStamp.STAMP;

/**
 * What the block-service tests start from: {@link #REGIONS} direct regions of {@link #REGION}
 * bytes and a block service over them, registered with namenode 0 as datanode {@link #DN}, with
 * its token keys and generation table. Subclasses choose the block size and may build the service
 * differently ({@link #newService()}).
 */
abstract class RegisteredBlockServiceFixture {
    static final int REGION = 1 << 20;
    static final int REGIONS = 2;
    static final int DN = 7;

    final BlockTokens tokens = new BlockTokens(0x1234, 0x5678);
    final DatanodeMetrics metrics = new DatanodeMetrics();
    final GenerationTable generations;
    MemoryRegions regions;
    BlockService service;
    private final int blockSize;

    RegisteredBlockServiceFixture(int blockSize) {
        this.blockSize = blockSize;
        this.generations = GenerationTable.inMemory(REGION, REGIONS, blockSize);
    }

    @BeforeEach
    void startRegisteredService() {
        regions = DirectRegions.allocate(REGIONS, REGION);
        service = newService();
        service.register(0, new Registration(DN, blockSize, tokens, generations));
    }

    /** The service under test, not yet registered, over {@link #regions}. */
    BlockService newService() {
        return new BlockService(regions, metrics, List.of("nn:9060"));
    }

    /** A token for {@code mode} ({@link BlockTokens#READ} or {@link BlockTokens#WRITE}) on one block. */
    long token(int region, int block, int generation, int mode) {
        return tokens.issue(DN, region, block, generation, mode, STAMP);
    }
}
