package io.tarn.it.spark;

import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.io.BytesWritable;
import org.apache.hadoop.io.NullWritable;
import org.apache.hadoop.mapreduce.RecordWriter;
import org.apache.hadoop.mapreduce.TaskAttemptContext;
import org.apache.hadoop.mapreduce.lib.output.FileOutputFormat;

import java.io.IOException;

/**
 * Writes each value's bytes back to back, nothing else: the fixed-length record files that Spark's
 * {@code binaryRecords} (Hadoop's FixedLengthInputFormat) reads. Goes through FileOutputFormat's
 * committer, so task attempt directories and renames happen on the target file system.
 */
public final class RawRecordOutputFormat extends FileOutputFormat<NullWritable, BytesWritable> {

    @Override
    public RecordWriter<NullWritable, BytesWritable> getRecordWriter(TaskAttemptContext job) throws IOException {
        Path file = getDefaultWorkFile(job, "");
        FSDataOutputStream out = file.getFileSystem(job.getConfiguration()).create(file, false);
        return new RecordWriter<>() {
            @Override
            public void write(NullWritable key, BytesWritable value) throws IOException {
                out.write(value.getBytes(), 0, value.getLength());
            }

            @Override
            public void close(TaskAttemptContext context) throws IOException {
                out.close();
            }
        };
    }
}
