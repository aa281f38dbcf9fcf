package io.tarn.it.mapreduce;

import io.tarn.dist.LocalCluster;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.examples.terasort.TeraGen;
import org.apache.hadoop.examples.terasort.TeraSort;
import org.apache.hadoop.examples.terasort.TeraValidate;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * TeraGen, TeraSort and TeraValidate (Hadoop's examples) on 1,000,000 rows = 100 MB, with the
 * local job runner and tarn:// as the default file system, through the shaded adapter: input,
 * output, TeraSort's partition file and TeraValidate's report live on Tarn. (The local runner keeps
 * its staging area and spills on local disk whatever the default file system is.)
 *
 * <p>Proves that MapReduce's file-system protocol works on Tarn: split computation from file status
 * and block locations (a split starting mid-file included), output committers (task attempt
 * directories, renames, _SUCCESS), the distributed cache (TeraSort's partition list, localized from
 * tarn://), and that 100 MB come back sorted and intact: TeraValidate finds no misordered key and
 * its checksum equals the one computed here from TeraGen's generator, with no file system involved.
 */
class TeraSortMapReduceIT {
    private static final long ROWS = 1_000_000;
    private static final long BYTES = ROWS * TeraGenExpectation.RECORD_BYTES;

    @TempDir
    java.nio.file.Path localDir;

    @Test
    void teraGenSortValidateOnTarn() throws Exception {
        try (LocalCluster tarn = LocalCluster.start(LocalCluster.home(), 2,
                Map.of("tarn.datanode.dram.capacity", "1g"))) {
            Configuration conf = jobConf(tarn);
            Path input = new Path("/terasort/input");
            Path output = new Path("/terasort/output");
            Path report = new Path("/terasort/validate");

            assertThat(ToolRunner.run(new Configuration(conf), new TeraGen(), args(Long.toString(ROWS), input)))
                    .as("TeraGen exit code").isZero();
            FileSystem fs = FileSystem.get(conf);
            assertThat(fs.getUri().getScheme()).isEqualTo("tarn");
            assertThat(partBytes(fs, input)).as("bytes TeraGen wrote").isEqualTo(BYTES);

            assertThat(ToolRunner.run(new Configuration(conf), new TeraSort(), args(input, output)))
                    .as("TeraSort exit code").isZero();
            assertThat(fs.exists(new Path(output, "_SUCCESS"))).isTrue();
            assertThat(partBytes(fs, output)).as("bytes TeraSort wrote").isEqualTo(BYTES);

            assertThat(ToolRunner.run(new Configuration(conf), new TeraValidate(), args(output, report)))
                    .as("TeraValidate exit code").isZero();
            List<String> lines = readParts(fs, report);
            assertThat(lines).as("TeraValidate report: a clean run has only its checksum line").hasSize(1);
            assertThat(lines.get(0)).startsWith("checksum\t");
            BigInteger reported = new BigInteger(lines.get(0).substring("checksum\t".length()).trim(), 16);
            assertThat(reported).as("checksum of the sorted output vs. TeraGen's generator")
                    .isEqualTo(TeraGenExpectation.checksumOfRows(ROWS));
        }
    }

    /**
     * Small on purpose. The local runner makes TeraGen write one 100 MB file (it forces one map);
     * TeraSort reads it as two 50 MiB splits (Tarn's 1 MiB blocks would otherwise give 100), the
     * second one starting mid-file, in two maps and two reduces at a time with a 64 MB sort buffer.
     */
    private Configuration jobConf(LocalCluster tarn) throws IOException {
        Configuration conf = LocalJobConf.create(tarn.uri(), localDir, tarn.clientKeys());
        conf.setInt("mapreduce.job.maps", 2);
        conf.setInt("mapreduce.job.reduces", 2);
        conf.setInt("mapreduce.local.map.tasks.maximum", 2);
        conf.setInt("mapreduce.local.reduce.tasks.maximum", 2);
        conf.setLong("mapreduce.input.fileinputformat.split.minsize", 50L << 20);
        conf.setInt("mapreduce.task.io.sort.mb", 64);
        return conf;
    }

    private static String[] args(Object... values) {
        String[] out = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i].toString();
        }
        return out;
    }

    /** Total length of a job output directory's part files. */
    private static long partBytes(FileSystem fs, Path dir) throws IOException {
        long total = 0;
        for (FileStatus s : fs.listStatus(dir, p -> p.getName().startsWith("part-"))) {
            total += s.getLen();
        }
        return total;
    }

    private static List<String> readParts(FileSystem fs, Path dir) throws IOException {
        List<String> lines = new ArrayList<>();
        for (FileStatus s : fs.listStatus(dir, p -> p.getName().startsWith("part-"))) {
            try (BufferedReader in = new BufferedReader(
                    new InputStreamReader(fs.open(s.getPath()), StandardCharsets.UTF_8))) {
                in.lines().forEach(lines::add);
            }
        }
        return lines;
    }
}
