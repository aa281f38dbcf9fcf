package io.tarn.datanode;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RegionShareTest {

    @Test
    void regionsGoRoundRobinToThePartitions() {
        assertThat(RegionShare.of(0, 2, 8)).isEqualTo(new RegionShare(0, 2, 4));
        assertThat(RegionShare.of(1, 2, 8)).isEqualTo(new RegionShare(1, 2, 4));
        assertThat(List.of(RegionShare.of(0, 3, 7).count(), RegionShare.of(1, 3, 7).count(),
                RegionShare.of(2, 3, 7).count())).as("the first partitions get the remainder").containsExactly(3, 2, 2);
        assertThat(RegionShare.of(0, 1, 5)).as("one namenode gets everything").isEqualTo(new RegionShare(0, 1, 5));
        assertThat(RegionShare.of(3, 4, 3).count()).isZero();
        assertThat(RegionShare.of(1, 2, 8).firstRegion()).isEqualTo(1);
    }

    @Test
    void everyRegionHasExactlyOneOwnerAndItIsInThatOwnersShare() {
        int regions = 11;
        int namenodes = 4;
        List<Integer> counted = new ArrayList<>();
        for (int p = 0; p < namenodes; p++) {
            RegionShare share = RegionShare.of(p, namenodes, regions);
            for (int i = 0; i < share.count(); i++) {
                int region = share.firstRegion() + i * share.stride();
                assertThat(RegionShare.owner(region, namenodes)).isEqualTo(p);
                counted.add(region);
            }
        }
        assertThat(counted).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10);
    }

    @Test
    void impossibleSharesAreRejected() {
        assertThatThrownBy(() -> new RegionShare(2, 2, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RegionShare(0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RegionShare(0, 1, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
