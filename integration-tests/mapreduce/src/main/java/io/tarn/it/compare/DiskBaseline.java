package io.tarn.it.compare;

import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The disk's limit for writes that must be durable before they are acknowledged, as a group
 * journal's are: one writer appending {@code size}-byte blocks to a file in {@code dir}, each followed
 * by {@code fdatasync}, for a fixed time. Measured with fio ({@code --rw=write --fdatasync=1
 * --ioengine=sync}) when {@code fio} is on the PATH, and always with a Java loop doing the same
 * ({@link FileChannel#write} then {@link FileChannel#force force(false)}), which also gives latencies.
 */
final class DiskBaseline {
    private static final Pattern WRITE_SECTION = Pattern.compile("\"write\"\\s*:\\s*\\{");
    private static final Pattern IOPS = Pattern.compile("\"iops\"\\s*:\\s*([0-9.eE+-]+)");
    private static final Pattern BW_BYTES = Pattern.compile("\"bw_bytes\"\\s*:\\s*([0-9]+)");

    private DiskBaseline() {
    }

    /** Writes per second and bytes per second of one measurement. */
    record Rate(double opsPerSecond, double bytesPerSecond) {
    }

    /**
     * fio's figures for {@code size}-byte writes each followed by fdatasync, for {@code seconds}; empty
     * when fio is not installed.
     */
    static Optional<Rate> fio(Path dir, int size, double seconds) throws IOException, InterruptedException {
        Path scratch = Files.createTempDirectory(dir, "tarn-fio-");
        try {
            List<String> command = fioCommand(scratch, size, seconds);
            Process p;
            try {
                p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            } catch (IOException e) {
                return Optional.empty(); // no fio on the PATH
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor((long) seconds + 60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroy();
                throw new IOException("fio failed: " + String.join(" ", command) + "\n" + abbreviate(out));
            }
            return Optional.of(parseFio(out));
        } finally {
            try (Stream<Path> files = Files.list(scratch)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(scratch);
        }
    }

    /** The fio command line for {@code size}-byte writes with fdatasync after each, in {@code dir}. */
    static List<String> fioCommand(Path dir, int size, double seconds) {
        return List.of("fio", "--name=fdatasync-" + size, "--directory=" + dir,
                "--rw=write", "--bs=" + size, "--size=" + Math.max(64L << 20, 256L * size), "--ioengine=sync",
                "--fdatasync=1", "--time_based", "--runtime=" + Math.max(1, Math.round(seconds)),
                "--output-format=json");
    }

    /** The write side's IOPS and bytes per second from fio's JSON output. */
    static Rate parseFio(String json) throws IOException {
        Matcher section = WRITE_SECTION.matcher(json);
        if (!section.find()) {
            throw new IOException("no write section in fio's output: " + abbreviate(json));
        }
        String write = json.substring(section.end());
        Matcher iops = IOPS.matcher(write);
        Matcher bw = BW_BYTES.matcher(write);
        if (!iops.find() || !bw.find()) {
            throw new IOException("no iops or bw_bytes in fio's write section: " + abbreviate(json));
        }
        return new Rate(Double.parseDouble(iops.group(1)), Double.parseDouble(bw.group(1)));
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    /** Rate and latencies of the Java loop: writes per second, bytes per second, p50 and p99 in µs. */
    record JavaLoop(double opsPerSecond, double bytesPerSecond, double p50Micros, double p99Micros) {
    }

    /** The Java write + force(false) loop, {@code size} bytes per write, for {@code seconds}. */
    static JavaLoop javaLoop(Path dir, int size, double seconds) throws IOException {
        Path file = Files.createTempFile(dir, "tarn-fsync-", ".dat");
        byte[] bytes = new byte[size];
        new Random(7).nextBytes(bytes);
        ByteBuffer data = ByteBuffer.allocateDirect(size).put(bytes).flip();
        Histogram latencies = new Histogram(3);
        long limit = Math.max(64L << 20, 256L * size);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            long position = 0;
            long ops = 0;
            long begin = System.nanoTime();
            long end = begin + (long) (seconds * 1e9);
            long now = begin;
            while (now < end) {
                ByteBuffer b = data.duplicate();
                while (b.hasRemaining()) {
                    position += ch.write(b, position);
                }
                ch.force(false);
                long done = System.nanoTime();
                latencies.recordValue(done - now);
                ops++;
                now = done;
                if (position >= limit) {
                    position = 0; // overwrite from the start, as fio wraps within --size
                }
            }
            double elapsed = (now - begin) / 1e9;
            return new JavaLoop(ops / elapsed, ops * (double) size / elapsed,
                    latencies.getValueAtPercentile(50) / 1e3, latencies.getValueAtPercentile(99) / 1e3);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
