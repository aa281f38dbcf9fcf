package io.tarn.tools;

import io.tarn.common.config.ConfigException;
import io.tarn.common.config.DataSize;
import io.tarn.common.config.HostPort;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

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
            description = "Namenodes per partition: 1, or a replicated group of 3 or 5 (one partition only).")
    private Integer replicas;

    @Override
    public Integer call() {
        TarnCli cli = TarnCli.of(spec);
        try {
            cli.out().println(plan(cli.config(), namenodes, datanodes, replicas));
            cli.out().flush();
            return 0;
        } catch (ConfigException e) {
            cli.err().println("tarn start: " + e.getMessage());
            cli.err().flush();
            return TarnCli.EXIT_USAGE;
        }
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
            if (namenodes != null && namenodes != 1 || groups.size() > 1) {
                throw new ConfigException("a replicated group of " + r + " namenodes serves a namespace of one "
                        + "partition in this build: leave out -n (or give -n 1) and list one entry in "
                        + TarnKeys.NAMENODE_ADDRESS);
            }
            List<HostPort> members = groups.get(0).size() == r ? groups.get(0)
                    : addresses(config.toBuilder().set(TarnKeys.NAMENODE_ADDRESS,
                            groups.get(0).get(0).toString()).build(), r);
            String list = members.stream().map(HostPort::toString).collect(Collectors.joining("|"));
            config.toBuilder().set(TarnKeys.NAMENODE_ADDRESS.name(), list).build(); // the key's own checks
            checkBind(config, members.size());
            checkDatanodePorts(config, members, datanodes);
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
