package io.tarn.spark.shuffle;

import org.apache.spark.SparkConf;

import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;

/**
 * How often, and after how long a pause, the reader tries again a read of a map's output that
 * failed for a reason that may pass (a timeout, a connection lost, a datanode restarting) before it
 * gives the map up as lost with a fetch failure. A missing file, a file shorter than its index, or
 * an index that is not one are not retried: reading them again cannot help.
 */
record ReadRetries(int retries, long waitMillis) {
    /** Spark setting: retries of a failed read of a map's output before a fetch failure. */
    static final String RETRIES_KEY = "spark.shuffle.tarn.read.retries";
    /** Spark setting: the pause before each retry. */
    static final String WAIT_KEY = "spark.shuffle.tarn.read.retryWait";

    static ReadRetries of(SparkConf conf) {
        int retries = conf.getInt(RETRIES_KEY, 3);
        if (retries < 0) {
            throw new IllegalArgumentException(RETRIES_KEY + " must be 0 or more, got " + retries);
        }
        return new ReadRetries(retries, conf.getTimeAsMs(WAIT_KEY, "1s"));
    }

    /** True when another try of what failed with {@code e}, the {@code failures}th time, may succeed. */
    boolean worthAnother(IOException e, int failures) {
        return failures <= retries && !(e instanceof FileNotFoundException || e instanceof EOFException
                || e instanceof ShuffleIndex.CorruptIndexException);
    }

    /** Waits before the next try; a task killed meanwhile ends with the interruption. */
    void pause() throws InterruptedException {
        Thread.sleep(waitMillis);
    }
}
