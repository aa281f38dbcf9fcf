package io.tarn.it.dfsio;

import io.tarn.it.mapreduce.LocalJobConf;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.TestDFSIO;
import org.apache.hadoop.util.ToolRunner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs Hadoop's TestDFSIO (write, then read of the same files) against one file system, with the
 * local job runner in this JVM and one map task per file, all running at once. Both sides of the
 * comparison go through exactly this code; only the default file system differs.
 *
 * <p>After the write it checks that every file has its full length, so a run that "succeeds"
 * without storing the data cannot produce a figure.
 */
final class DfsioBenchmark {
    /** TestDFSIO's base directory on the file system under test. */
    static final String BASE_DIR = "/benchmarks/TestDFSIO";
    private static final long MIB = 1L << 20;

    private DfsioBenchmark() {
    }

    static DfsioResult run(BenchmarkTarget target, DfsioSettings settings, String label) throws Exception {
        Path local = Files.createDirectories(settings.workDir().resolve(label));
        Configuration conf = LocalJobConf.create(target.uri(), local, target.clientKeys());
        conf.setInt("dfs.replication", HdfsTarget.REPLICATION);
        conf.set("test.build.data", BASE_DIR);
        conf.setInt("mapreduce.local.map.tasks.maximum", settings.files());
        try {
            if (settings.warmupMb() > 0) {
                testDfsIo(conf, "-write", settings.files(), settings.warmupMb(), local);
                testDfsIo(conf, "-read", settings.files(), settings.warmupMb(), local);
            }
            DfsioFigures write = testDfsIo(conf, "-write", settings.files(), settings.fileMb(), local);
            checkWritten(conf, settings);
            DfsioFigures read = testDfsIo(conf, "-read", settings.files(), settings.fileMb(), local);
            return new DfsioResult(target.description(), write, read);
        } finally {
            // Drop the cached client for this URI before its servers stop.
            FileSystem.get(target.uri(), conf).close();
        }
    }

    private static DfsioFigures testDfsIo(Configuration conf, String mode, int files, int mb, Path local)
            throws Exception {
        Path resultFile = local.resolve("TestDFSIO" + mode + ".log");
        Files.deleteIfExists(resultFile);
        String[] args = {mode, "-nrFiles", Integer.toString(files), "-size", mb + "MB", "-resFile",
                resultFile.toString()};
        int exit = ToolRunner.run(new Configuration(conf), new TestDFSIO(), args);
        if (exit != 0) {
            throw new IOException("TestDFSIO " + String.join(" ", args) + " exited with " + exit);
        }
        return DfsioFigures.parse(Files.readString(resultFile));
    }

    /** Every data file TestDFSIO wrote has the full size. */
    private static void checkWritten(Configuration conf, DfsioSettings settings) throws IOException {
        FileSystem fs = FileSystem.get(conf);
        for (int i = 0; i < settings.files(); i++) {
            org.apache.hadoop.fs.Path file = // qualified: java.nio's Path is imported
                    new org.apache.hadoop.fs.Path(BASE_DIR + "/io_data/test_io_" + i); // qualified: name clash
            long length = fs.getFileStatus(file).getLen();
            if (length != settings.fileMb() * MIB) {
                throw new IllegalStateException(fs.makeQualified(file) + " has " + length
                        + " bytes after TestDFSIO -write, expected " + settings.fileMb() * MIB);
            }
        }
    }
}
