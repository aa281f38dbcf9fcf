package io.tarn.hadoop;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;

/**
 * Hadoop's {@code AbstractFileSystem} for {@code tarn://} URIs, so that {@code FileContext} (used by
 * YARN and MapReduce's job history, among others) reaches Tarn. Configure it with
 * {@code fs.AbstractFileSystem.tarn.impl = io.tarn.hadoop.TarnFs}; every call goes to a
 * {@link TarnFileSystem} of its own. Hadoop never closes these, so their Tarn clients are shared,
 * one per cluster and configuration ({@link SharedClients}).
 */
public class TarnFs extends DelegateToFileSystem {

    /** Called by {@code AbstractFileSystem.createFileSystem} reflectively. */
    public TarnFs(URI theUri, Configuration conf) throws IOException, URISyntaxException {
        super(theUri, new TarnFileSystem(SharedClients::get, false), conf, TarnFileSystem.SCHEME, true);
    }
}
