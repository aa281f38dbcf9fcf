package io.tarn.hadoop;

import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.BiFunction;

/**
 * The iterator behind {@link TarnFileSystem#listLocatedStatus}: entries of one listing with the
 * block locations of every file, located {@value #PAGE} files at a time by one
 * {@link BlockLocator#locateAll} call, so a split planner walking a large directory waits for a few
 * round trips per page, not one per file. A file deleted after the listing was taken is left out.
 */
final class LocatedListing implements RemoteIterator<LocatedFileStatus> {
    /** Files whose blocks are located together. */
    static final int PAGE = 128;

    private final List<Listing.Entry> entries;
    private final BlockLocator locator;
    private final BiFunction<io.tarn.common.fs.FileStatus, Path, FileStatus> convert; // qualified: name clash
    private final ArrayDeque<LocatedFileStatus> ready = new ArrayDeque<>();
    private int next;

    LocatedListing(List<Listing.Entry> entries, BlockLocator locator,
                   BiFunction<io.tarn.common.fs.FileStatus, Path, FileStatus> convert) { // qualified: name clash
        this.entries = entries;
        this.locator = locator;
        this.convert = convert;
    }

    @Override
    public boolean hasNext() throws IOException {
        while (ready.isEmpty() && next < entries.size()) {
            locatePage();
        }
        return !ready.isEmpty();
    }

    @Override
    public LocatedFileStatus next() throws IOException {
        if (!hasNext()) {
            throw new NoSuchElementException("no more entries");
        }
        return ready.pollFirst();
    }

    private void locatePage() throws IOException {
        List<Listing.Entry> page = entries.subList(next, Math.min(entries.size(), next + PAGE));
        List<BlockLocator.Span> spans = new ArrayList<>(page.size());
        for (Listing.Entry e : page) {
            var s = e.status();
            spans.add(s.isFile() ? new BlockLocator.Span(s.fileId(), s.size(), s.blockSize(), 0, s.size())
                    : new BlockLocator.Span(s.fileId(), 0, 0, 0, 0));
        }
        List<BlockLocator.Located> located = locator.locateAll(spans);
        for (int i = 0; i < page.size(); i++) {
            Listing.Entry e = page.get(i);
            BlockLocator.Located l = located.get(i);
            if (l.failure() instanceof FileNotFoundException) {
                continue;
            }
            if (l.failure() != null) {
                throw HadoopErrors.translate(l.failure(), e.path().toUri().getPath());
            }
            FileStatus status = convert.apply(e.status(), e.path());
            BlockLocation[] blocks = e.status().isFile() ? l.blocks() : null;
            ready.addLast(new LocatedFileStatus(status, blocks));
        }
        next += page.size();
    }
}
