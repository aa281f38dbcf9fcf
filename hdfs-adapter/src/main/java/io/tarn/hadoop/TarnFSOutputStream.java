package io.tarn.hadoop;

import io.tarn.client.TarnOutputStream;
import org.apache.hadoop.fs.FSExceptionMessages;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.Syncable;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Locale;

/**
 * The Hadoop face of a {@link TarnOutputStream}, wrapped by {@code FSDataOutputStream} (which counts
 * the bytes written).
 *
 * <p>{@link #hflush()} is Tarn's {@code hsync}: Hadoop promises that after hflush a new reader sees
 * the bytes, and in Tarn only a length published to the namenode does that (Tarn's own
 * {@code hflush} stores the bytes on the datanode but leaves new readers at the old length).
 * {@link #hsync()} does the same, which keeps the data in datanode memory, not on a disk: the
 * stream therefore declares {@code hflush} but not {@code hsync}, so that software needing
 * disk durability (a write-ahead log) does not mistake Tarn for it. Once closed, writes, hflush and
 * hsync throw; flush and closing again do nothing.
 */
final class TarnFSOutputStream extends OutputStream implements Syncable, StreamCapabilities {
    private final TarnOutputStream out;
    private final String path;
    private boolean closed;

    TarnFSOutputStream(TarnOutputStream out, String path) {
        this.out = out;
        this.path = path;
    }

    @Override
    public void write(int b) throws IOException {
        checkOpen();
        out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        checkOpen();
        out.write(b, off, len);
    }

    /**
     * Sends buffered bytes towards their datanode without waiting. Does nothing once closed: writers
     * layered on top (a {@code BufferedWriter}, say) often flush again while closing.
     */
    @Override
    public void flush() throws IOException {
        if (!closed) {
            out.flush();
        }
    }

    /** Waits until every byte written so far is stored and visible to new readers. */
    @Override
    public void hflush() throws IOException {
        checkOpen();
        out.hsync();
    }

    /** As {@link #hflush()}: the bytes are in datanode memory, the length on the namenode. */
    @Override
    public void hsync() throws IOException {
        checkOpen();
        out.hsync();
    }

    /** Only {@code hflush}: see the class comment for why not {@code hsync}. */
    @Override
    @SuppressWarnings("deprecation") // HFLUSH is deprecated as a probe for Syncable, not as a capability
    public boolean hasCapability(String capability) {
        return StreamCapabilities.HFLUSH.equals(capability.toLowerCase(Locale.ENGLISH));
    }

    /** Stores the remaining bytes and publishes the file's final length. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        out.close();
    }

    @Override
    public String toString() {
        return "TarnFSOutputStream{" + path + ", written=" + out.position() + (closed ? ", closed" : "") + "}";
    }

    private void checkOpen() throws IOException {
        if (closed) {
            throw new IOException(FSExceptionMessages.STREAM_IS_CLOSED + ": " + path);
        }
    }
}
