package io.tarn.it.dfsio;

import java.nio.file.Path;

/**
 * What one comparison runs: TestDFSIO with {@code files} files of {@code fileMb} MiB each (written
 * and read with TestDFSIO's default 1,000,000-byte buffer), after an unmeasured warm-up of
 * {@code warmupMb} MiB per file (0: none) on each file system.
 *
 * @param files    files written, then read, in parallel (one map task each)
 * @param fileMb   MiB per file
 * @param warmupMb MiB per file of the warm-up run, which is not reported
 * @param workDir  local directory for the MiniDFSCluster, MapReduce's local files and result files
 */
public record DfsioSettings(int files, int fileMb, int warmupMb, Path workDir) {
    public DfsioSettings {
        if (files < 1 || fileMb < 1 || warmupMb < 0) {
            throw new IllegalArgumentException("files and size must be positive, warm-up at least 0: "
                    + files + ", " + fileMb + ", " + warmupMb);
        }
    }

    /** The command-line options that reproduce these settings (the work directory aside). */
    public String options() {
        return "--files " + files + " --size-mb " + fileMb + " --warmup-mb " + warmupMb;
    }
}
