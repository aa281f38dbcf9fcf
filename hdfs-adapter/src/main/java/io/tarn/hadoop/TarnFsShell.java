package io.tarn.hadoop;

import io.tarn.common.config.ConfigException;
import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CommonConfigurationKeysPublic;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.fs.shell.CommandFactory;
import org.apache.hadoop.fs.shell.CommandFormat;
import org.apache.hadoop.fs.shell.FsCommand;
import org.apache.hadoop.fs.shell.Command;
import org.apache.hadoop.fs.shell.PathData;
import org.apache.hadoop.util.ToolRunner;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * {@code tarn fs}: Hadoop's own {@link FsShell} ({@code hdfs dfs}) on the Tarn cluster that
 * {@code tarn-site.conf} names, so every FsShell command and option works unchanged.
 *
 * <p>The default file system becomes {@code tarn://<first namenode of tarn.namenode.address>/}, so
 * {@code /path} means a path in Tarn; other schemes ({@code file:///tmp/x}, {@code hdfs://...})
 * still work, as in {@code hdfs dfs}. Settings come, later ones winning, from {@code tarn-site.conf} (the file
 * given with a leading {@code --config FILE}, which must be readable, else the one named by the
 * {@code tarn.conf} system property, skipped when absent), {@code -Dtarn.*} JVM system
 * properties, and Hadoop's generic options before the command: {@code -D tarn.<key>=value} sets a
 * Tarn key like in every other {@code tarn} command ({@code -D tarn.namenode.address=host:port}
 * picks the cluster), {@code -D fs.tarn.<key>=value} the same key the Hadoop way, other {@code -D}
 * keys are Hadoop's.
 */
public final class TarnFsShell {
    /** Hadoop's generic options that take a value (GenericOptionsParser); only -D is rewritten. */
    private static final Set<String> GENERIC_WITH_VALUE = Set.of("-D", "-fs", "-conf", "-jt", "-files", "-libjars",
            "-archives", "-tokenCacheFile");

    private TarnFsShell() {
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    /**
     * Runs one shell command line, {@code [--config FILE] [generic options] -COMMAND ...}; returns FsShell's
     * exit code (2 for a configuration error, such as a {@code --config} file that cannot be read).
     */
    public static int run(String[] args) throws Exception {
        Configuration conf;
        String[] shellArgs;
        try {
            List<String> afterConfig = new ArrayList<>();
            Path configFile = configFile(args, afterConfig);
            List<String> rest = new ArrayList<>();
            Map<String, String> tarnOptions = tarnOptions(afterConfig.toArray(new String[0]), rest);
            conf = hadoopConfiguration(tarnConfiguration(configFile, tarnOptions));
            shellArgs = rest.toArray(new String[0]);
        } catch (ConfigException e) {
            System.err.println("tarn fs: " + e.getMessage());
            return 2;
        }
        return ToolRunner.run(conf, new Shell(), shellArgs);
    }

    /**
     * The file of a leading {@code --config FILE} (or {@code --config=FILE}), which replaces the one the
     * {@code tarn.conf} system property names, as in every {@code tarn} command; null without one. The
     * other arguments go to {@code rest}.
     */
    static Path configFile(String[] args, List<String> rest) {
        Path file = null;
        int i = 0;
        if (args.length > 0 && args[0].equals("--config")) {
            if (args.length < 2 || args[1].isEmpty()) {
                throw new ConfigException("--config needs a file");
            }
            file = Path.of(args[1]);
            i = 2;
        } else if (args.length > 0 && args[0].startsWith("--config=")) {
            if (args[0].length() == "--config=".length()) {
                throw new ConfigException("--config needs a file");
            }
            file = Path.of(args[0].substring("--config=".length()));
            i = 1;
        }
        rest.addAll(List.of(args).subList(i, args.length));
        return file;
    }

    /** FsShell under its name here: usage lines read "tarn fs", not "hadoop fs". */
    private static final class Shell extends FsShell {
        @Override
        protected String getUsagePrefix() {
            return "Usage: tarn fs [generic options]";
        }

        /** FsShell registers its commands only for its own class, so a subclass does it itself. */
        @Override
        protected void registerCommands(CommandFactory factory) {
            factory.registerCommands(FsCommand.class);
            factory.addClass(Df.class, "-df");
            factory.addClass(Setrep.class, "-setrep");
        }
    }

    /**
     * Hadoop's {@code -df}, except for a file system without capacity, such as a Tarn cluster without a
     * live datanode ({@link ClusterCapacity} counts live datanodes only). Hadoop's Df prints used / capacity
     * as its Use% column, so 0 / 0 came out as {@code NaN%}; this command runs Hadoop's Df (whose class is
     * out of reach: its outer class is package-private), prints {@code 0%} there instead and, for a Tarn
     * cluster, says on standard error that it has no live datanodes.
     */
    public static final class Df extends FsCommand {
        public static final String NAME = "df";
        /** The first five columns of a row of Df's table: Filesystem, Size, Used, Available, Use%. */
        private static final Pattern NAN_PERCENT = Pattern.compile("^(\\S+)((?:\\s+\\S+){3}\\s+)NaN%");

        private Command hadoopDf() {
            CommandFactory factory = new CommandFactory(getConf());
            factory.registerCommands(FsCommand.class);
            return factory.getInstance("-" + NAME, getConf());
        }

        @Override
        public String getUsage() {
            return hadoopDf().getUsage();
        }

        @Override
        public String getDescription() {
            return hadoopDf().getDescription();
        }

        @Override
        public int run(String... argv) {
            Command df = hadoopDf();
            ByteArrayOutputStream table = new ByteArrayOutputStream();
            df.out = new PrintStream(table, true, StandardCharsets.UTF_8);
            df.err = err;
            int code = df.run(argv);
            for (String row : table.toString(StandardCharsets.UTF_8).lines().toList()) {
                Matcher m = NAN_PERCENT.matcher(row);
                if (m.find()) {
                    String fileSystem = m.group(1);
                    row = fileSystem + m.group(2) + "  0%" + row.substring(m.end());
                    if (fileSystem.startsWith(TarnFileSystem.SCHEME + "://")) {
                        displayWarning(fileSystem + ": no live datanodes, so no capacity (see 'tarn status')");
                    }
                }
                out.println(row);
            }
            out.flush();
            return code;
        }
    }

    /**
     * {@code -setrep} for Tarn: on a file, its replication, which Tarn changes only while the file
     * holds no data; on a directory, the default replication of the files created below it from then
     * on (Hadoop's setrep would instead change every file below it, which in Tarn fails for files
     * with data). Hadoop's factor maps as {@link HadoopReplication} says: 1 is 1; 2 or 3 is 3 and
     * fails with fewer than three live datanodes; above 3 is 3 where it can be placed, else 1. Each
     * path's line names the factor it reports afterwards. {@code -R} is accepted, as by Hadoop's;
     * {@code -w} checks again that each path reports that factor (Tarn applies it at once, so there
     * is nothing to wait for).
     */
    public static final class Setrep extends FsCommand {
        public static final String NAME = "setrep";
        public static final String USAGE = "[-R] [-w] <rep> <path> ...";
        public static final String DESCRIPTION = "Set the replication of a file, or of a directory: the default "
                + "of the files created below it from then on (files already there keep theirs). Tarn keeps 1 copy "
                + "of a block or a group of 3: <rep> 1 is 1; 2 or 3 is 3, which fails while fewer than 3 datanodes "
                + "are alive; above 3 is 3 where 3 datanodes are alive, else 1 (with a warning). A file's "
                + "replication changes only while it holds no data.\n"
                + "-w: Check that each path reports the replication set (Tarn applies it at once).\n"
                + "-R: Accepted for compatibility; it has no effect.\n";

        private short replication;
        private boolean check;
        private final Map<PathData, Short> set = new LinkedHashMap<>();

        @Override
        protected void processOptions(LinkedList<String> args) throws IOException {
            CommandFormat cf = new CommandFormat(2, Integer.MAX_VALUE, "R", "w");
            cf.parse(args);
            check = cf.getOpt("w");
            String rep = args.removeFirst();
            try {
                replication = Short.parseShort(rep);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("replication must be a number (1, or 3), not '" + rep + "'");
            }
            if (replication < 1) {
                throw new IllegalArgumentException("replication must be at least 1, not " + replication);
            }
        }

        @Override
        protected void processPath(PathData item) throws IOException {
            if (!item.fs.setReplication(item.path, replication)) {
                throw new IOException("Could not set replication for: " + item);
            }
            short now = item.fs instanceof TarnFileSystem ? item.fs.getFileStatus(item.path).getReplication()
                    : replication;
            String asked = now == HadoopReplication.factor(replication) || !(item.fs instanceof TarnFileSystem) ? ""
                    : " (asked for " + replication + ")"; // a hint given in part: the warning says why
            out.println((item.stat.isDirectory() ? "Default replication " + now + " set for new files in: "
                    : "Replication " + now + " set: ") + item + asked);
            set.put(item, now);
        }

        @Override
        protected void processArguments(LinkedList<PathData> args) throws IOException {
            super.processArguments(args);
            if (!check) {
                return;
            }
            for (Map.Entry<PathData, Short> e : set.entrySet()) {
                PathData item = e.getKey();
                short now = item.fs.getFileStatus(item.path).getReplication();
                if (now != e.getValue() && item.fs instanceof TarnFileSystem) {
                    throw new IOException(item + " reports replication " + now + ", not " + e.getValue());
                }
                out.println("Waiting for " + item + " ... done");
            }
        }
    }

    /**
     * Takes {@code -D tarn.<key>=value} (and {@code -Dtarn.<key>=value}) out of the generic options
     * at the start of {@code args}, returning them in order; everything else goes to {@code rest}
     * untouched.
     */
    static Map<String, String> tarnOptions(String[] args, List<String> rest) {
        Map<String, String> tarn = new LinkedHashMap<>();
        int i = 0;
        while (i < args.length && args[i].startsWith("-") && isGeneric(args[i])) {
            String option = args[i];
            String value = null;
            int used = 1;
            if (option.equals("-D") && i + 1 < args.length) {
                value = args[i + 1];
                used = 2;
            } else if (option.startsWith("-D") && option.length() > 2) {
                value = option.substring(2);
            } else if (GENERIC_WITH_VALUE.contains(option) && i + 1 < args.length) {
                used = 2;
            }
            int eq = value == null ? -1 : value.indexOf('=');
            if (value != null && value.startsWith("tarn.") && eq > 0) {
                tarn.put(value.substring(0, eq), value.substring(eq + 1));
            } else {
                for (int k = 0; k < used; k++) {
                    rest.add(args[i + k]);
                }
            }
            i += used;
        }
        for (; i < args.length; i++) {
            rest.add(args[i]);
        }
        return tarn;
    }

    private static boolean isGeneric(String arg) {
        return GENERIC_WITH_VALUE.contains(arg) || arg.startsWith("-D");
    }

    /**
     * {@code explicitFile} (which must be readable) or else tarn-site.conf (when it exists), -Dtarn.*
     * system properties, then {@code options}.
     */
    static TarnConfig tarnConfiguration(Path explicitFile, Map<String, String> options) {
        TarnConfig.Builder b = TarnConfig.builder();
        String file = System.getProperty("tarn.conf");
        if (explicitFile != null) {
            b.loadFile(explicitFile);
        } else if (file != null && Files.exists(Path.of(file))) {
            b.loadFile(Path.of(file));
        }
        b.applySystemProperties();
        for (Map.Entry<String, String> e : options.entrySet()) {
            b.set(e.getKey(), e.getValue());
        }
        return b.build();
    }

    /**
     * A Hadoop configuration whose default file system is the Tarn cluster of {@code tarn}, carrying
     * every Tarn setting that differs from its default (except the namenode address, which is the URI).
     * A URI names one namenode: when {@code tarn.namenode.address} lists several, the first (partition
     * 0) is named, and the client learns the others from it; when partition 0 is a replicated group,
     * its first member is named and {@code fs.tarn.namenode.members} lists them all.
     */
    static Configuration hadoopConfiguration(TarnConfig tarn) {
        Configuration conf = new Configuration();
        conf.set(CommonConfigurationKeysPublic.FS_DEFAULT_NAME_KEY, "tarn://" + tarn.namenodes().get(0) + "/");
        List<HostPort> group = tarn.namenodeGroups().get(0);
        if (group.size() > 1) {
            // The URI names one member; the client follows the group's leader through all of them.
            conf.set(TarnHadoopConfig.PREFIX + "namenode.members",
                    group.stream().map(HostPort::toString).collect(Collectors.joining("|")));
        }
        Map<String, String> defaults = TarnConfig.defaults().describe();
        for (Map.Entry<String, String> e : tarn.describe().entrySet()) {
            String key = e.getKey();
            if (!key.equals(TarnKeys.NAMENODE_ADDRESS.name()) && !e.getValue().equals(defaults.get(key))) {
                conf.set(TarnHadoopConfig.PREFIX + key.substring("tarn.".length()), e.getValue());
            }
        }
        return conf;
    }
}
