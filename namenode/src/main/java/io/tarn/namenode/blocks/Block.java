package io.tarn.namenode.blocks;

/**
 * One allocated block: where it lives and which allocation of that place it is.
 *
 * <p>{@code generation} distinguishes successive allocations of the same place (the datanode
 * refuses older ones); {@code incarnation} is the datanode's incarnation when the block was
 * allocated: once the datanode comes back without its data, the block is lost and freeing it again
 * is ignored. Immutable.
 *
 * @param datanode    the datanode holding the block
 * @param incarnation the datanode's incarnation at allocation
 * @param regionId    the datanode's own id of the region (one of the {@link RegionSet} this namenode manages)
 * @param regionBlock block index within the region
 * @param generation  allocation generation of this place
 */
public record Block(DatanodeInfo datanode, int incarnation, int regionId, int regionBlock, int generation) {
}
