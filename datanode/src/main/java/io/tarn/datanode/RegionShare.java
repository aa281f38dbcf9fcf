package io.tarn.datanode;

/**
 * The regions of a datanode that one namenode manages. A datanode serves every namenode of the
 * cluster and divides its regions among them round-robin: region {@code r} belongs to partition
 * {@code r mod N}, so partition {@code p} gets {@code p, p+N, p+2N, ...}. The owner of any block
 * follows from its region id alone, on the datanode (which key checks a token) and in the cluster
 * (which namenode frees a block). With one namenode, its share is every region.
 *
 * @param partition which namenode (its index in {@code tarn.namenode.address})
 * @param stride    how many namenodes share the datanode (N)
 * @param count     how many regions this namenode gets
 */
public record RegionShare(int partition, int stride, int count) {

    public RegionShare {
        if (stride < 1 || partition < 0 || partition >= stride || count < 0) {
            throw new IllegalArgumentException("no share " + partition + " of " + stride + " with " + count
                    + " regions");
        }
    }

    /** Partition {@code partition}'s share of {@code regionCount} regions among {@code namenodes} namenodes. */
    public static RegionShare of(int partition, int namenodes, int regionCount) {
        int count = partition < regionCount ? (regionCount - partition + namenodes - 1) / namenodes : 0;
        return new RegionShare(partition, namenodes, count);
    }

    /** The partition owning {@code region} among {@code namenodes} namenodes. */
    public static int owner(int region, int namenodes) {
        return region % namenodes;
    }

    /** The id of the first region of the share (the partition's own index). */
    public int firstRegion() {
        return partition;
    }
}
