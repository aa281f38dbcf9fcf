package io.tarn.common.fs;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PartitionsTest {

    /** 100,000 names as Spark's sort shuffle writes them: shuffle_<shuffle>_<map>_<reduce>.data/.index. */
    static List<String> shuffleNames() {
        List<String> names = new ArrayList<>(100_000);
        for (int shuffle = 0; shuffle < 5; shuffle++) {
            for (int map = 0; map < 10_000; map++) {
                names.add("shuffle_" + shuffle + "_" + map + "_0.data");
                names.add("shuffle_" + shuffle + "_" + map + "_0.index");
            }
        }
        return names;
    }

    static double maxOverMean(List<String> names, int partitions) {
        int[] load = new int[partitions];
        for (String n : names) {
            load[Partitions.ofName(n, partitions)]++;
        }
        double mean = (double) names.size() / partitions;
        int max = 0;
        for (int l : load) {
            max = Math.max(max, l);
        }
        return max / mean;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 4, 8, 16})
    void shuffleFilesOfOneDirectorySpreadEvenly(int partitions) {
        List<String> names = shuffleNames();
        assertThat(names).hasSize(100_000);
        assertThat(maxOverMean(names, partitions)).as("max/mean load over %d partitions", partitions)
                .isLessThanOrEqualTo(partitions <= 4 ? 1.02 : 1.05);
    }

    @Test
    void sequentialPartNamesSpreadEvenly() {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            names.add(String.format("part-%05d", i));
        }
        assertThat(maxOverMean(names, 4)).isLessThanOrEqualTo(1.02);
    }

    @Test
    void theHashIsPinnedBecauseClientsAndNamenodesMustAgree() {
        // Values recorded when the hash was introduced: a change here breaks mixed-version clusters.
        assertThat(Partitions.hash("")).isEqualTo(0xefd01f60ba992926L);
        assertThat(Partitions.hash("shuffle_0_0_0.data")).isEqualTo(Partitions.hash("shuffle_0_0_0.data"));
        assertThat(Partitions.ofName("shuffle_0_0_0.data", 4)).isEqualTo(1);
        assertThat(Partitions.ofName("part-00000", 4)).isEqualTo(0);
        assertThat(Partitions.ofName("文件", 4)).isEqualTo(2);
    }

    @Test
    void onePartitionOwnsEverythingAndZeroIsRejected() {
        assertThat(Partitions.ofName("anything", 1)).isZero();
        assertThatThrownBy(() -> Partitions.ofName("x", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Property(tries = 300)
    void partitionIsInRange(@ForAll String name, @ForAll @IntRange(min = 1, max = 256) int partitions) {
        assertThat(Partitions.ofName(name, partitions)).isBetween(0, partitions - 1);
    }

    @Test
    void fileIdsCarryTheirPartition() {
        assertThat(Partitions.ofFileId(FileIds.file(3, 7, 12345))).isEqualTo(3);
        assertThat(Partitions.ofFileId(FileIds.file(255, FileIds.COUNTER_MASK, FileIds.MAX_SLOT))).isEqualTo(255);
    }
}
