package io.tarn.namenode.blocks;

/**
 * The regions of one datanode that this namenode manages: {@code count} region ids from
 * {@code first}, every {@code stride}-th. A datanode serving N namenodes gives partition p the
 * regions {@code p, p+N, p+2N, ...}; with one namenode that is every region ({@code 0, 1, 2, ...}).
 *
 * <p>The namenode numbers the regions it manages densely ({@code 0..count-1}, its <em>local</em>
 * index) for its free list and generations, and hands out the <em>real</em> ids in block references,
 * so the datanode never translates. Immutable.
 *
 * @param first  id of the first region
 * @param stride distance between consecutive ids (1 or more)
 * @param count  how many regions
 */
public record RegionSet(int first, int stride, int count) {

    public RegionSet {
        long last = first + (long) Math.max(count - 1, 0) * stride;
        if (first < 0 || stride < 1 || count < 0 || last > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("no region set of " + count + " regions from " + first + " every "
                    + stride);
        }
    }

    /** Every region of a datanode: {@code 0..count-1}. */
    public static RegionSet all(int count) {
        return new RegionSet(0, 1, count);
    }

    /** The real id of the region with local index {@code local} ({@code 0 <= local < count}). */
    public int id(int local) {
        return first + local * stride;
    }

    /** The local index of region {@code id}, or -1 when this set does not hold it. */
    public int local(int id) {
        int offset = id - first;
        if (offset < 0 || offset % stride != 0 || offset / stride >= count) {
            return -1;
        }
        return offset / stride;
    }

    /** "regions 1, 3, .., 7 (4)" for logs and messages. */
    @Override
    public String toString() {
        if (count == 0) {
            return "no regions";
        }
        if (count == 1) {
            return "region " + first;
        }
        String ids = count == 2 ? first + ", " + id(1) : first + ", " + id(1) + ", .., " + id(count - 1);
        return "regions " + ids + " (" + count + ")";
    }
}
