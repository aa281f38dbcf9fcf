package io.tarn.namenode.namespace;

import io.tarn.namenode.blocks.Block;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A sender's blocks that files moved to other namenodes hold: allocated here (only this namenode
 * allocates and frees its regions), but no file here refers to them. They stay allocated until the
 * namenode holding the file gives them back (FREE_BLOCKS). A journal replay rebuilds free lists from
 * the blocks files hold, so it must count these too, or it would hand out places that moved files
 * still use.
 *
 * <p>Kept in the journal (MOVE_COMMIT, BLOCKS_RETURNED, LENT records) and in checkpoints.
 */
public final class LentBlocks {
    /** A block's place: datanode id, region and block number. */
    public record Place(int datanodeId, int regionId, int regionBlock) {
        static Place of(Block b) {
            return new Place(b.datanode().id(), b.regionId(), b.regionBlock());
        }
    }

    private final Map<Place, Block> blocks = new ConcurrentHashMap<>();

    /** Lends this namenode's own blocks among {@code held} (a moved file's; foreign ones are not ours). */
    void lend(Block[] held) {
        for (Block b : held) {
            if (!b.foreign() && !b.replicated()) {
                blocks.put(Place.of(b), b);
            }
        }
    }

    /** A lent block given back (or come home with its file): true when it was lent. */
    boolean giveBack(Place place) {
        return blocks.remove(place) != null;
    }

    /** Gives back every block of {@code held} that was lent; returns them. */
    List<Block> giveBackAll(Block[] held) {
        List<Block> back = new ArrayList<>();
        for (Block b : held) {
            if (!b.foreign() && !b.replicated() && blocks.remove(Place.of(b)) != null) {
                back.add(b);
            }
        }
        return back;
    }

    /** Replay: one lent block as a LENT record states it. */
    void restore(Block b) {
        blocks.put(Place.of(b), b);
    }

    Collection<Block> all() {
        return blocks.values();
    }

    int size() {
        return blocks.size();
    }
}
