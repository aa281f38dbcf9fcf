package io.tarn.tools;

import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.ConfigException;
import io.tarn.common.config.DataSize;
import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.security.KeyFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code tarn start-plan}, hidden: what {@code bin/tarn start} runs before it starts anything. It
 * checks that N namenodes and D datanodes fit the configuration and prints the
 * {@code tarn.namenode.address} list the daemons get; a configuration that does not fit is refused
 * with {@code tarn start: <reason>} naming the keys to change, and exit code 2.
 *
 * <p>The list: {@code tarn.namenode.address} as it is when it already lists N namenodes (N defaults
 * to the number it lists), else N entries on the host of its single entry, at its port + 0..N-1.
 * With R namenodes per partition ({@code --replicas}), N entries of R members separated by
 * {@code |}: as configured when it lists them, else member m of partition p at the port + p * R + m.
 */
@Command(name = "start-plan", hidden = true, mixinStandardHelpOptions = true,
        description = {"Used by bin/tarn start: check that --namenodes N namenodes and --datanodes D DRAM datanodes "
                + "on this host fit the configuration, and print the tarn.namenode.address list they use."})
final class StartPlanCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--namenodes", paramLabel = "N",
            description = "Namenodes to start (default: as many as tarn.namenode.address lists).")
    private Integer namenodes;

    @Option(names = "--datanodes", paramLabel = "D", defaultValue = "1",
            description = "Datanodes to start (default: ${DEFAULT-VALUE}).")
    private int datanodes;

    @Option(names = "--replicas", paramLabel = "R",
            description = "Namenodes per partition: 1, or a replicated group of 3 or 5.")
    private Integer replicas;

    @Option(names = "--secret-file", paramLabel = "FILE",
            description = "Where to write a new cluster secret when the configuration leaves authentication to "
                    + "tarn start; its options follow the address list, one a line.")
    private Path secretFile;

    @Override
    public Integer call() throws IOException {
        TarnCli cli = TarnCli.of(spec);
        try {
            TarnConfig config = cli.config();
            cli.out().println(plan(config, namenodes, datanodes, replicas));
            for (String option : security(config, secretFile)) {
                cli.out().println(option);
            }
            cli.out().flush();
            return 0;
        } catch (ConfigException e) {
            cli.err().println("tarn start: " + e.getMessage());
            cli.err().flush();
            return TarnCli.EXIT_USAGE;
        }
    }

    /**
     * The options that make the cluster authenticate: unless {@code tarn.security.authentication} is
     * set to none, a cluster of tarn start authenticates (the mode's option when it is not set), with
     * the configured key file, else a new cluster secret written to {@code file} (its option).
     */
    static List<String> security(TarnConfig config, Path file) throws IOException {
        boolean modeSet = config.isSet(TarnKeys.SECURITY_AUTHENTICATION);
        if (file == null || modeSet && config.get(TarnKeys.SECURITY_AUTHENTICATION) == AuthenticationMode.NONE) {
            return List.of();
        }
        List<String> options = new ArrayList<>();
        if (!modeSet) {
            options.add("-D" + TarnKeys.SECURITY_AUTHENTICATION + "=secret");
        }
        if (config.get(TarnKeys.SECURITY_SECRET_FILE).isEmpty()) {
            KeyFile.newClusterSecret().write(file);
            options.add("-D" + TarnKeys.SECURITY_SECRET_FILE + "=" + file.toAbsolutePath());
        }
        return options;
    }

    /** The address list of the namenodes, after checking that they and the datanodes fit the configuration. */
    static String plan(TarnConfig config, Integer namenodes, int datanodes) {
        return plan(config, namenodes, datanodes, null);
    }

    /**
     * The address list, with {@code replicas} namenodes per partition (null: as configured): a
     * replicated group's members are separated by {@code |}, on its entry's host at its port + 0..R-1.
     */
    static String plan(TarnConfig config, Integer namenodes, int datanodes, Integer replicas) {
        if (datanodes < 1) {
            throw new ConfigException("-d must be at least 1, got " + datanodes);
        }
        List<List<HostPort>> groups = config.namenodeGroups();
        int r = replicas != null ? replicas : groups.get(0).size();
        if (r != 1 && r != 3 && r != 5) {
            throw new ConfigException("-r must be 1, 3 or 5 namenodes per partition, got " + r);
        }
        if (r > 1) {
            List<List<HostPort>> planned = groups(config, namenodes == null ? groups.size() : namenodes, r);
            String list = planned.stream().map(g -> g.stream().map(HostPort::toString)
                    .collect(Collectors.joining("|"))).collect(Collectors.joining(","));
            config.toBuilder().set(TarnKeys.NAMENODE_ADDRESS.name(), list).build(); // the key's own checks
            List<HostPort> all = planned.stream().flatMap(List::stream).toList();
            checkBind(config, all.size());
            checkRegions(config, planned.size());
            checkDatanodePorts(config, all, datanodes);
            return list;
        }
        List<HostPort> addresses = addresses(config, namenodes);
        String list = addresses.stream().map(HostPort::toString).collect(Collectors.joining(","));
        config.toBuilder().set(TarnKeys.NAMENODE_ADDRESS.name(), list).build(); // the key's own checks (at most 256)
        checkBind(config, addresses.size());
        checkRegions(config, addresses.size());
        checkDatanodePorts(config, addresses, datanodes);
        return list;
    }

    /**
     * N partitions served by groups of R: as tarn.namenode.address lists them when it lists N groups
     * of R, else numbered from its single entry: member m of partition p at its port + p * R + m.
     */
    private static List<List<HostPort>> groups(TarnConfig config, int n, int r) {
        if (n < 1) {
            throw new ConfigException("-n must be at least 1, got " + n);
        }
        List<List<HostPort>> configured = config.namenodeGroups();
        if (configured.size() == n && configured.stream().allMatch(g -> g.size() == r)) {
            return configured;
        }
        if (configured.size() > 1 || configured.get(0).size() > 1) {
            throw new ConfigException(TarnKeys.NAMENODE_ADDRESS + " = " + config.get(TarnKeys.NAMENODE_ADDRESS)
                    + " does not list " + n + " partition(s) of " + r + " members, which -n " + n + " -r " + r
                    + " asks for: list them (members separated by '|', partitions by ','), or one address to number "
                    + "the others' ports from it");
        }
        HostPort first = configured.get(0).get(0);
        int count = n * r;
        if (first.port() == 0 || first.port() + count - 1 > 65535) {
            throw new ConfigException(TarnKeys.NAMENODE_ADDRESS + " = " + first + ": " + n + " partition(s) of " + r
                    + " namenodes listen on its port + 0.." + (count - 1) + ", so it needs a port between 1 and "
                    + (65536 - count));
        }
        List<List<HostPort>> out = new ArrayList<>();
        for (int p = 0; p < n; p++) {
            List<HostPort> members = new ArrayList<>();
            for (int m = 0; m < r; m++) {
                members.add(new HostPort(first.host(), first.port() + p * r + m));
            }
            out.add(members);
        }
        return out;
    }

    private static List<HostPort> addresses(TarnConfig config, Integer requested) {
        List<HostPort> configured = config.namenodes();
        int n = requested == null ? configured.size() : requested;
        if (n < 1) {
            throw new ConfigException("-n must be at least 1, got " + n);
        }
        if (n == configured.size()) {
            return configured;
        }
        if (configured.size() > 1) {
            throw new ConfigException(TarnKeys.NAMENODE_ADDRESS + " lists " + configured.size() + " namenodes but -n "
                    + n + " asks for " + n + ": list " + n + " (or one, to number the others' ports from it), or "
                    + "leave out -n");
        }
        HostPort first = configured.get(0);
        if (first.port() == 0 || first.port() + n - 1 > 65535) {
            throw new ConfigException(TarnKeys.NAMENODE_ADDRESS + " = " + first + ": " + n + " namenodes listen on "
                    + "its port + 0.." + (n - 1) + ", so it needs a port between 1 and " + (65536 - n));
        }
        List<HostPort> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new HostPort(first.host(), first.port() + i));
        }
        return out;
    }

    private static void checkBind(TarnConfig config, int namenodes) {
        String bind = config.get(TarnKeys.NAMENODE_BIND);
        if (namenodes > 1 && !bind.isEmpty()) {
            throw new ConfigException(TarnKeys.NAMENODE_BIND + " = " + bind + ": with " + namenodes + " namenodes each "
                    + "listens on its own entry of " + TarnKeys.NAMENODE_ADDRESS + "; leave " + TarnKeys.NAMENODE_BIND
                    + " empty");
        }
    }

    /** Region r of a datanode serves namenode r mod N, so every datanode needs N regions or more. */
    private static void checkRegions(TarnConfig config, int namenodes) {
        long capacity = config.get(TarnKeys.DRAM_CAPACITY);
        long region = config.get(TarnKeys.DRAM_REGION_SIZE);
        long regions = capacity / region;
        if (regions < namenodes) {
            throw new ConfigException(namenodes + " namenodes need at least " + namenodes + " DRAM regions per "
                    + "datanode (region r serves namenode r mod " + namenodes + "), but " + TarnKeys.DRAM_CAPACITY
                    + " = " + DataSize.format(capacity) + " / " + TarnKeys.DRAM_REGION_SIZE + " = "
                    + DataSize.format(region) + " gives " + regions + ": raise " + TarnKeys.DRAM_CAPACITY + " to "
                    + DataSize.format(namenodes * region) + " or more, or lower " + TarnKeys.DRAM_REGION_SIZE);
        }
    }

    /** Datanode i listens on the port of tarn.datanode.bind + i: none of them may be a namenode's. */
    private static void checkDatanodePorts(TarnConfig config, List<HostPort> namenodes, int datanodes) {
        HostPort bind = HostPort.parse(config.get(TarnKeys.DATANODE_BIND));
        if (bind.port() == 0) {
            return; // every datanode picks a free port
        }
        if (bind.port() + datanodes - 1 > 65535) {
            throw new ConfigException(TarnKeys.DATANODE_BIND + " = " + bind + ": " + datanodes + " datanodes listen on "
                    + "its port + 0.." + (datanodes - 1) + ", which passes 65535");
        }
        for (int p = 0; p < namenodes.size(); p++) {
            int i = namenodes.get(p).port() - bind.port();
            if (i >= 0 && i < datanodes) {
                throw new ConfigException(TarnKeys.DATANODE_BIND + " = " + bind + ": datanode " + i
                        + " would listen on port " + namenodes.get(p).port() + ", which namenode " + p + " uses ("
                        + TarnKeys.NAMENODE_ADDRESS + "); move " + TarnKeys.DATANODE_BIND + " to another port");
            }
        }
    }
}
