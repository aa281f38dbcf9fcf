package io.tarn.it.dfsio;

import java.util.HashMap;
import java.util.Map;

/**
 * One TestDFSIO run's figures, as TestDFSIO itself reports them in its result file.
 *
 * <p>TestDFSIO counts megabytes as MiB. {@code throughput} is the total size over the sum of the
 * per-file I/O times; {@code averageIoRate} the mean of the per-file rates; {@code execSeconds}
 * the wall time of the whole MapReduce job, start-up and commit included.
 *
 * @param files         files the run wrote or read
 * @param megabytes     MiB processed in total
 * @param throughput    MiB/s, total size over summed per-file times
 * @param averageIoRate MiB/s, mean of the per-file rates
 * @param execSeconds   wall time of the job
 */
public record DfsioFigures(long files, double megabytes, double throughput, double averageIoRate, double execSeconds) {

    /**
     * Parses one result block ("----- TestDFSIO ----- : write", "Number of files: 2", ...).
     *
     * @throws IllegalArgumentException when a figure is missing: TestDFSIO's format has changed
     */
    public static DfsioFigures parse(String resultText) {
        Map<String, String> fields = new HashMap<>();
        for (String line : resultText.split("\\R")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                fields.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
            }
        }
        return new DfsioFigures(
                Long.parseLong(field(fields, "Number of files", resultText)),
                number(fields, "Total MBytes processed", resultText),
                number(fields, "Throughput mb/sec", resultText),
                number(fields, "Average IO rate mb/sec", resultText),
                number(fields, "Test exec time sec", resultText));
    }

    private static double number(Map<String, String> fields, String name, String text) {
        // TestDFSIO formats with the default locale's DecimalFormat; accept a decimal comma too.
        return Double.parseDouble(field(fields, name, text).replace(',', '.'));
    }

    private static String field(Map<String, String> fields, String name, String text) {
        String v = fields.get(name);
        if (v == null) {
            throw new IllegalArgumentException("no '" + name + "' in TestDFSIO's result:\n" + text);
        }
        return v;
    }
}
