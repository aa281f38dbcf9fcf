package io.tarn.namenode.blocks;

/**
 * One allocated block: where it lives and which allocation of that place it is.
 *
 * <p>{@code generation} distinguishes successive allocations of the same place (the datanode
 * refuses older ones); {@code incarnation} is the datanode's incarnation when the block was
 * allocated (or, for a foreign block, adopted): once the datanode comes back without its data, the
 * block is lost and freeing it again is ignored. Immutable.
 *
 * @param datanode    the datanode holding the block, as this namenode knows it
 * @param incarnation the datanode's incarnation at allocation or adoption
 * @param regionId    the datanode's own id of the region
 * @param regionBlock block index within the region
 * @param generation  allocation generation of this place
 * @param home        null for a block of this namenode's regions; for a block that came with a file
 *                    renamed from another namenode, that namenode's part (it alone frees the block)
 * @param group       for a block of a file of replication 3, its group (the block is slot
 *                    {@code regionBlock} of it; {@code datanode}, {@code incarnation} and
 *                    {@code regionId} are those of its first member); null for an unreplicated block
 */
public record Block(DatanodeInfo datanode, int incarnation, int regionId, int regionBlock, int generation,
                    Foreign home, GroupInfo group) {

    /** A block of this namenode's own regions. */
    public Block(DatanodeInfo datanode, int incarnation, int regionId, int regionBlock, int generation) {
        this(datanode, incarnation, regionId, regionBlock, generation, null, null);
    }

    /** An unreplicated block, of another namenode's regions when {@code home} is set. */
    public Block(DatanodeInfo datanode, int incarnation, int regionId, int regionBlock, int generation,
                 Foreign home) {
        this(datanode, incarnation, regionId, regionBlock, generation, home, null);
    }

    /** True for a block of a replicated group. */
    public boolean replicated() {
        return group != null;
    }

    /** True for a block another namenode allocated (see {@link Foreign}). */
    public boolean foreign() {
        return home != null;
    }

    /**
     * What a block allocated by another namenode (its home) carries here: the home's partition and
     * epoch (which run of it allocated the block), its id and incarnation of the datanode (for
     * freeing the block there), and the tokens it issued for
     * the block, which this namenode hands out unchanged since only the home's key opens its regions.
     */
    public record Foreign(int partition, long epoch, int datanodeId, int incarnation, long readToken,
                          long writeToken) {
    }
}
