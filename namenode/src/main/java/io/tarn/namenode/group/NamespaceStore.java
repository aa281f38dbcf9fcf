package io.tarn.namenode.group;

import io.tarn.namenode.NamenodeService;
import io.tarn.namenode.journal.SequencedLog;
import io.tarn.namenode.namespace.NamespaceReplay;
import io.tarn.replication.BlockRange;
import io.tarn.replication.Checkpoint;
import io.tarn.replication.CheckpointMeta;
import io.tarn.replication.LogEntry;
import io.tarn.replication.StateImage;
import io.tarn.replication.WriteCommand;
import io.tarn.replication.host.ByteImage;
import io.tarn.replication.host.BytesPayload;
import io.tarn.replication.host.ChunkedImage;
import io.tarn.replication.host.GroupStore;
import io.tarn.replication.host.RestorableImage;
import io.netty.buffer.ByteBuf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A namenode group member's namespace as the group's replica state ({@link GroupStore}): each
 * committed entry carries namespace records (journal frames, {@link GroupLog}), which a follower
 * applies to its namespace as a namenode replays its journal at start-up ({@link NamespaceReplay}),
 * so that it is a hot standby, ready to serve once it leads. The leader applied its own records
 * when they took effect; it skips them here.
 *
 * <p><b>Checkpoints.</b> The leader's namespace runs ahead of what the group committed, so no
 * member's live namespace is the image of an applied index on every member. A capture is instead
 * an image built when first read (by the journal's image thread, in the background): a blank
 * namespace replays the image before and the records applied since, and is written out as a
 * {@link GroupImage}, as the single namenode's checkpoints are made.
 *
 * <p>Called on the group's loop thread only, as {@link GroupStore} requires.
 */
public final class NamespaceStore implements GroupStore {

    /** The namespace a member keeps, as the store needs it. */
    public interface Member {
        /**
         * Replaces this follower's namespace with an empty one (to install a checkpoint from the
         * leader) and returns its replay.
         */
        NamespaceReplay reset();
    }

    private final Member member;
    private final Supplier<NamenodeService> blank;
    /** The follower's replay of the committed records; null once this member leads. */
    private NamespaceReplay replay;
    /** The leader's log, whose records this member applied itself; null while it follows. */
    private SequencedLog leading;
    /** The last namespace record applied from the group. */
    private long appliedSeq;
    /** The image of the last checkpoint (captured or restored), and the entries applied since. */
    private StateImage base = GroupImage.EMPTY;
    private List<BytesPayload> since = new ArrayList<>();

    /**
     * @param member the namenode whose namespace this is
     * @param replay the replay of its namespace, fresh (nothing applied yet)
     * @param blank  makes an empty namespace like the member's, off to the side, for images
     */
    public NamespaceStore(Member member, NamespaceReplay replay, Supplier<NamenodeService> blank) {
        this.member = member;
        this.replay = replay;
        this.blank = blank;
    }

    /** The last namespace record applied from the group (the leader's own included). */
    public long appliedSeq() {
        return appliedSeq;
    }

    /** Whether this member leads: its namespace takes mutations and records them to {@code leading}. */
    public boolean leading() {
        return leading != null;
    }

    /**
     * This member leads, and every entry its log holds is applied: ends the follower's replay (free
     * lists, id high-waters) and from now on skips the records {@code log} hands out, which the
     * namespace applies as they take effect. Loop thread, once.
     *
     * @return the replay just ended, for what the namenode does after a replay
     */
    public NamespaceReplay lead(SequencedLog log) {
        if (leading != null) {
            throw new IllegalStateException("this member leads already");
        }
        NamespaceReplay ended = replay;
        ended.finish();
        replay = null;
        leading = log;
        return ended;
    }

    @Override
    public void apply(LogEntry entry) {
        WriteCommand c = entry.command();
        if (c == null || !(c.payload() instanceof BytesPayload payload)) {
            throw new IllegalStateException("entry " + entry.index() + " carries no namespace records");
        }
        since.add(payload);
        SequencedLog log = leading;
        long held = log != null ? Math.max(appliedSeq, log.lastSeq()) : appliedSeq;
        ByteBuf frames = payload.slice(0, payload.length());
        try {
            appliedSeq = Math.max(appliedSeq, SequencedLog.replayFrames(frames, held, (seq, type, body) -> {
                if (replay == null) {
                    throw new IllegalStateException("namespace record " + seq + " of entry " + entry.index()
                            + " was committed by another leader while this member led with records up to " + held);
                }
                replay.replay(seq, type, body);
            }));
        } catch (IOException e) {
            throw new UncheckedIOException("entry " + entry.index() + ": " + e.getMessage(), e);
        } finally {
            frames.release();
        }
    }

    /**
     * Namenode groups are not read through the replication core (members serve lookups
     * themselves), except for reads of nothing, by which a leader confirms that it still leads.
     */
    @Override
    public byte[] read(BlockRange range) {
        if (range.count() != 0) {
            throw new UnsupportedOperationException("a namenode group serves no reads through its replicas");
        }
        return new byte[0];
    }

    @Override
    public StateImage capture(CheckpointMeta meta) {
        if (meta.index() == 0) {
            return GroupImage.EMPTY;
        }
        Capture c = new Capture(base, since, appliedSeq, blank);
        base = c;
        since = new ArrayList<>();
        return c;
    }

    /** Namespace images vary in size. */
    @Override
    public long imageBytes() {
        return -1;
    }

    @Override
    public void restore(Checkpoint checkpoint) {
        if (leading != null) {
            throw new IllegalStateException("a leader cannot install a checkpoint over its namespace");
        }
        NamespaceReplay into = appliedSeq > 0 || replay.applied() > 0 ? member.reset() : replay;
        try {
            appliedSeq = GroupImage.replay(checkpoint.image(), into);
        } catch (IOException e) {
            throw new UncheckedIOException("checkpoint " + checkpoint.meta().index() + ": " + e.getMessage(), e);
        }
        replay = into;
        StateImage image = checkpoint.image();
        if (image instanceof RestorableImage received) {
            // A transfer's staged copy goes once restored: keep the image's bytes for the next capture.
            ByteImage kept = ByteImage.of(received);
            received.restored(kept);
            base = kept;
        } else {
            base = image == null ? GroupImage.EMPTY : image;
        }
        since = new ArrayList<>();
    }

    /**
     * A capture of this member's state after {@code coveredSeq}: the image before and the records
     * applied since, made into an image when first read.
     */
    private static final class Capture implements ChunkedImage {
        private final long coveredSeq;
        private final Supplier<NamenodeService> blank;
        private StateImage base;
        private List<BytesPayload> since;
        private volatile ByteImage built;

        Capture(StateImage base, List<BytesPayload> since, long coveredSeq, Supplier<NamenodeService> blank) {
            this.base = base;
            this.since = since;
            this.coveredSeq = coveredSeq;
            this.blank = blank;
        }

        private ByteImage built() {
            ByteImage b = built;
            if (b == null) {
                synchronized (this) {
                    b = built;
                    if (b == null) {
                        b = build();
                        built = b;
                        base = null; // the image holds them now
                        since = null;
                    }
                }
            }
            return b;
        }

        private ByteImage build() {
            NamenodeService shadow = blank.get();
            NamespaceReplay r = shadow.namespace().replay();
            try {
                long seq = GroupImage.replay(base, r);
                for (BytesPayload p : since) {
                    ByteBuf frames = p.slice(0, p.length());
                    try {
                        seq = Math.max(seq, SequencedLog.replayFrames(frames, seq, r));
                    } finally {
                        frames.release();
                    }
                }
                if (seq != coveredSeq) {
                    throw new IllegalStateException("the records replayed for the checkpoint end at " + seq
                            + ", not at " + coveredSeq);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("building the namespace checkpoint of records up to " + coveredSeq
                        + ": " + e.getMessage(), e);
            }
            r.finish();
            return GroupImage.encode(coveredSeq, shadow.namespace());
        }

        @Override
        public long sizeBytes() {
            return built().sizeBytes();
        }

        @Override
        public ByteBuf slice(long offset, int length) {
            return built().slice(offset, length);
        }

        @Override
        public boolean ownState() {
            return true;
        }
    }
}
