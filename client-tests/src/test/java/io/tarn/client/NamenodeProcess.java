package io.tarn.client;

import io.tarn.common.config.NamespaceJournalMode;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.config.TransportKind;
import io.tarn.namenode.Namenode;

import java.nio.file.Path;

/**
 * A namenode in a process of its own, for tests that kill it with kill -9: {@code main(journalDir,
 * port, blockSize)} starts it with {@code tarn.namenode.journal = disk} on 127.0.0.1:port (0: any),
 * prints {@code listening <port>} and runs until killed. {@code main(journalDir, port, blockSize,
 * addresses, partition)} starts partition {@code partition} of the namenodes at {@code addresses}
 * (tarn.namenode.address) on its port there; {@code main(journalDir, port, blockSize, addresses,
 * partition, member)} starts member {@code member} of that partition's replicated group.
 */
public final class NamenodeProcess {
    private NamenodeProcess() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String address = "127.0.0.1:" + Integer.parseInt(args[1]);
        TarnConfig.Builder b = TarnConfig.builder();
        if (args.length > 3) {
            b.set(TarnKeys.NAMENODE_ADDRESS, args[3]).set(TarnKeys.NAMENODE_PARTITION, Integer.parseInt(args[4]));
            if (args.length > 5) {
                b.set(TarnKeys.NAMENODE_MEMBER, Integer.parseInt(args[5]));
            }
        } else {
            b.set(TarnKeys.NAMENODE_ADDRESS, address).set(TarnKeys.NAMENODE_BIND, address);
        }
        TarnConfig config = b
                .set(TarnKeys.TRANSPORT, TransportKind.TCP)
                .set(TarnKeys.BLOCK_SIZE, Long.parseLong(args[2]))
                .set(TarnKeys.RPC_IO_THREADS, 1)
                .set(TarnKeys.NAMENODE_JOURNAL, NamespaceJournalMode.DISK)
                .set(TarnKeys.NAMENODE_JOURNAL_DIR, dir.toString())
                .build();
        Namenode nn = Namenode.start(config);
        System.out.println("listening " + nn.address().getPort());
        System.out.flush();
        Thread.currentThread().join();
    }
}
