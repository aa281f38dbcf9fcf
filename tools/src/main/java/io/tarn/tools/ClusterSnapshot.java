package io.tarn.tools;

import io.tarn.common.config.HostPort;
import io.tarn.common.protocol.AdminProtocol.DatanodeStatus;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Every namenode of a cluster at one moment, in partition order, answering or not. */
record ClusterSnapshot(List<NamenodeView> namenodes) {
    ClusterSnapshot {
        namenodes = List.copyOf(namenodes);
    }

    /** Every configured namenode down: none could tell the partition map ({@code errors} by address). */
    static ClusterSnapshot allDown(List<HostPort> configured, List<String> errors) {
        List<NamenodeView> views = new ArrayList<>();
        for (int i = 0; i < configured.size(); i++) {
            views.add(NamenodeView.down(i, configured.get(i).toString(), errors.get(i)));
        }
        return new ClusterSnapshot(views);
    }

    List<NamenodeView> down() {
        return namenodes.stream().filter(v -> !v.up()).toList();
    }

    boolean allUp() {
        return down().isEmpty();
    }

    /** The namenode whose view of the datanodes is shown: the first that answered (partition 0 normally). */
    Optional<NamenodeView> viewer() {
        return namenodes.stream().filter(NamenodeView::up).findFirst();
    }

    /**
     * Null when every namenode answers and sees at least {@code datanodes} datanodes alive (each
     * datanode registers with every namenode); otherwise what is missing, for {@code tarn status --wait}.
     */
    String notReady(int datanodes) {
        for (NamenodeView v : namenodes) {
            if (!v.up()) {
                return v.name() + ": " + v.error();
            }
            long alive = v.status().datanodes().stream().filter(DatanodeStatus::alive).count();
            if (alive < datanodes) {
                return v.name() + " sees " + alive + " of " + datanodes + " datanodes alive";
            }
        }
        return null;
    }
}
