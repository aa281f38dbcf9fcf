package io.tarn.tools.chaos;

import io.tarn.client.TarnClient;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.fs.BlockRef;
import io.tarn.common.fs.FileStatus;
import io.tarn.common.fs.GroupMember;

import java.io.IOException;
import java.util.Arrays;
import java.util.Collection;

/**
 * Compares, at quiescence, the replicas of every block of the given files: each member of the
 * block's group is read directly ({@link TarnClient#readReplica}) over the block's written length,
 * and all must hold the same bytes. A member that cannot be read (it lost the block, or is down)
 * counts as a difference, named in the detail. A block that differs is compared again for up to
 * five seconds first: a follower applies the last writes with the next heartbeat.
 */
final class GroupReplicaCheck implements ReplicaCheck {
    private static final int SETTLE_ATTEMPTS = 50;
    private static final long SETTLE_PAUSE_MS = 100;

    @Override
    public Result compare(Collection<String> paths, TarnConfig clientConfig) throws IOException {
        int blocks = 0;
        StringBuilder differences = new StringBuilder();
        try (TarnClient client = TarnClient.connect(clientConfig)) {
            for (String path : paths) {
                FileStatus status = client.getStatus(path);
                long size = status.size();
                for (int b = 0; (long) b * status.blockSize() < size; b++) {
                    int length = (int) Math.min(status.blockSize(), size - (long) b * status.blockSize());
                    BlockRef ref = client.getBlock(status.fileId(), b);
                    if (!ref.replicated()) {
                        continue;
                    }
                    blocks++;
                    String found = compareBlock(client, ref, length);
                    // A follower applies the last entries when the next heartbeat tells it they are
                    // committed: give a difference a few seconds to settle before reporting it.
                    for (int attempt = 0; found != null && attempt < SETTLE_ATTEMPTS; attempt++) {
                        sleep();
                        found = compareBlock(client, ref, length);
                    }
                    if (found != null) {
                        note(differences, path + " block " + b + ": " + found);
                    }
                }
            }
        }
        if (differences.length() > 0) {
            return new Result(Status.DIFFERENT, differences.toString());
        }
        return new Result(Status.IDENTICAL, "every replica of " + blocks + " replicated blocks holds the same bytes");
    }

    /** Null when every member holds the same bytes, else what differs. */
    private static String compareBlock(TarnClient client, BlockRef ref, int length) {
        byte[] first = null;
        StringBuilder found = new StringBuilder();
        for (GroupMember m : ref.group().members()) {
            byte[] copy;
            try {
                copy = client.readReplica(ref, m.memberId(), length);
            } catch (IOException e) {
                note(found, "member " + m.memberId() + " at " + m.address() + " unreadable: " + e.getMessage());
                continue;
            }
            if (first == null) {
                first = copy;
            } else if (!Arrays.equals(first, copy)) {
                note(found, "member " + m.memberId() + " at " + m.address() + " differs");
            }
        }
        return found.length() == 0 ? null : found.toString();
    }

    private static void sleep() throws IOException {
        try {
            Thread.sleep(SETTLE_PAUSE_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while comparing replicas", e);
        }
    }

    private static void note(StringBuilder out, String line) {
        if (out.length() < 4000) {
            out.append(out.length() == 0 ? "" : "; ").append(line);
        }
    }
}
