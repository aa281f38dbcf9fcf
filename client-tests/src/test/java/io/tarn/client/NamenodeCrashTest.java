package io.tarn.client;

import io.tarn.common.config.TarnConfig;
import io.tarn.datanode.dram.DramDatanode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * kill -9 of a namenode process (tarn.namenode.journal = disk) in the middle of a storm of creates,
 * renames, deletes and mkdirs from several clients, then a restart on the same journal: every
 * acknowledged mutation is there, with its file's bytes, and nothing else, except that the one
 * mutation each client had in flight when the namenode died may or may not have happened. Twice,
 * so the second restart replays the segments of two runs. The datanodes are real and keep running;
 * they register again with the restarted namenode. With two namenodes, the first round kills
 * namenode 1 and the second namenode 0 (the directory coordinator); renames then move files
 * between the two, directory changes go through namenode 0, and the restarted one takes namenode
 * 0's tree or completes its directory change under way.
 */
class NamenodeCrashTest {
    private static final int BLOCK = CrashStorm.BLOCK;
    private static final int CLIENTS = 4;

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0} namenode(s)")
    @ValueSource(ints = {1, 2})
    void everyAcknowledgedMutationSurvivesKillDashNine(int count) throws Exception {
        List<CrashStorm.NamenodeChild> nn = new ArrayList<>();
        String addresses = null;
        int[] ports = new int[count];
        if (count > 1) {
            StringBuilder list = new StringBuilder();
            for (int p = 0; p < count; p++) {
                try (ServerSocket s = new ServerSocket(0)) {
                    ports[p] = s.getLocalPort();
                }
                list.append(p == 0 ? "" : ",").append("127.0.0.1:").append(ports[p]);
            }
            addresses = list.toString();
        }
        for (int p = 0; p < count; p++) {
            nn.add(new CrashStorm.NamenodeChild(tmp.resolve("journal-" + p), ports[p],
                    tmp.resolve("namenode-" + p + ".log"), addresses, p));
            ports[p] = nn.get(p).port;
        }
        String namenodes = addresses != null ? addresses : "127.0.0.1:" + ports[0];
        List<DramDatanode> datanodes = new ArrayList<>();
        List<TarnClient> clients = new ArrayList<>();
        try {
            TarnConfig config = CrashStorm.config(namenodes, 3_000L);
            CrashStorm.startDatanodes(config, tmp, 2, datanodes);
            Map<String, byte[]> files = new HashMap<>();
            Set<String> dirs = new HashSet<>();
            for (int round = 0; round < 2; round++) {
                CrashStorm.Round storm = new CrashStorm.Round(config, CLIENTS, round, files, dirs, clients);
                storm.awaitAcknowledged(40, 20);
                int victim = count == 1 ? 0 : (round == 0 ? 1 : 0);
                nn.get(victim).kill(); // mid-storm: every worker has a call in flight or about to be
                Thread.sleep(300);
                Set<String> uncertain = new HashSet<>();
                int acknowledged = storm.finish(files, dirs, uncertain);
                assertThat(acknowledged).as("mutations acknowledged before the kill").isGreaterThan(4 * 40);
                System.out.printf("%d namenode(s), round %d: %d mutations acknowledged before kill -9 of namenode %d, "
                        + "%d files and %d directories expected, %d paths uncertain%n", count, round, acknowledged,
                        victim, files.size(), dirs.size(), uncertain.size());

                nn.set(victim, new CrashStorm.NamenodeChild(tmp.resolve("journal-" + victim), ports[victim],
                        tmp.resolve("namenode-" + victim + ".log"), addresses, victim));
                try (TarnClient checker = TarnClient.connect(config)) {
                    CrashStorm.awaitDatanodes(checker, datanodes.size());
                    CrashStorm.verify(checker, CLIENTS, files, dirs, uncertain);
                    CrashStorm.settle(checker, files, dirs, uncertain);
                }
            }
        } finally {
            CrashStorm.closeAll(clients, datanodes, nn);
        }
    }
}
