package io.tarn.tools;

import io.tarn.common.config.ConfigException;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.security.KeyFile;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code tarn secret}: writes key files for {@code tarn.security.authentication = secret}: a new
 * cluster secret for the daemons, or, from one, the client key every job of the cluster may use or
 * one user's key (docs/security.md). Files are written readable by their owner only.
 */
@Command(name = "secret", mixinStandardHelpOptions = true,
        description = {"Write a key file for tarn.security.authentication = secret: a new cluster secret (the "
                + "daemons' key; whoever holds it is a daemon), or, derived from the cluster secret, the client key "
                + "(any user name, never a daemon) or one user's key (that user only). The file is readable by its "
                + "owner only; pass it to processes as tarn.security.secret.file (fs.tarn.security.secret.file in "
                + "Hadoop and Spark)."})
final class SecretCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The key file to write.")
    private Path file;

    @ArgGroup(exclusive = true)
    private Derived derived;

    static final class Derived {
        @Option(names = "--client", description = "Write the client key of the cluster secret.")
        boolean client;

        @Option(names = "--user", paramLabel = "NAME", description = "Write the key of user NAME.")
        String user;
    }

    @Option(names = "--from", paramLabel = "FILE",
            description = "The cluster secret to derive --client or --user keys from (default: "
                    + "tarn.security.secret.file).")
    private Path from;

    @Option(names = "--force", description = "Replace FILE if it exists (a new cluster secret locks out every "
            + "process holding the old one or a key derived from it).")
    private boolean force;

    @Override
    public Integer call() throws IOException {
        TarnCli cli = TarnCli.of(spec);
        KeyFile key;
        if (derived == null) {
            if (from != null) {
                throw new ConfigException("--from goes with --client or --user: a new cluster secret is random");
            }
            key = KeyFile.newClusterSecret();
        } else {
            Path source = from;
            if (source == null) {
                String configured = cli.config().get(TarnKeys.SECURITY_SECRET_FILE);
                if (configured.isEmpty()) {
                    throw new ConfigException("--client and --user derive from the cluster secret: name it with "
                            + "--from FILE or " + TarnKeys.SECURITY_SECRET_FILE);
                }
                source = Path.of(configured);
            }
            KeyFile secret = KeyFile.load(source, from != null ? "--from" : TarnKeys.SECURITY_SECRET_FILE.name());
            if (secret.kind() != KeyFile.Kind.CLUSTER) {
                throw new ConfigException(source + " holds a " + secret + ", not the cluster secret: only the "
                        + "cluster secret derives keys");
            }
            if (derived.user != null) {
                String problem = KeyFile.checkUser(derived.user);
                if (problem != null) {
                    throw new ConfigException("--user: " + problem);
                }
                key = secret.userKey(derived.user);
            } else {
                key = secret.clientKey();
            }
        }
        if (!force && Files.exists(file)) {
            throw new ConfigException(file + " exists: pass --force to replace it");
        }
        key.write(file);
        cli.out().println("tarn secret: wrote the " + key + " to " + file + " (mode 600)");
        cli.out().flush();
        return 0;
    }
}
