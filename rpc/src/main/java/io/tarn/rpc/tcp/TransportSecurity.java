package io.tarn.rpc.tcp;

import io.tarn.common.config.AuthenticationMode;
import io.tarn.common.config.ConfigException;
import io.tarn.common.config.TarnConfig;
import io.tarn.common.config.TarnKeys;
import io.tarn.common.security.KeyFile;
import io.tarn.common.security.SecretHandshake;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * How a transport's connections authenticate, read once from the configuration: the mode, the key
 * ({@code tarn.security.secret.file}, loaded and checked when the transport is made, so a missing or
 * exposed key fails the process at start-up and not at its first call), the user name clients give
 * and how long a server waits for a connection to authenticate.
 */
final class TransportSecurity {
    static final TransportSecurity NONE = new TransportSecurity(AuthenticationMode.NONE, null, "",
            TimeUnit.SECONDS.toNanos(10));

    final AuthenticationMode mode;
    /** Null when the mode is none. */
    final KeyFile key;
    final String user;
    final long authTimeoutNanos;

    private TransportSecurity(AuthenticationMode mode, KeyFile key, String user, long authTimeoutNanos) {
        this.mode = mode;
        this.key = key;
        this.user = user;
        this.authTimeoutNanos = authTimeoutNanos;
    }

    static TransportSecurity of(TarnConfig config) {
        AuthenticationMode mode = config.get(TarnKeys.SECURITY_AUTHENTICATION);
        long timeout = TimeUnit.MILLISECONDS.toNanos(config.get(TarnKeys.SECURITY_AUTH_TIMEOUT));
        String user = config.get(TarnKeys.CLIENT_USER);
        if (user.isEmpty()) {
            user = System.getProperty("user.name", "");
        }
        if (mode == AuthenticationMode.NONE) {
            return new TransportSecurity(mode, null, user, timeout);
        }
        String file = config.get(TarnKeys.SECURITY_SECRET_FILE);
        if (file.isEmpty()) {
            throw new ConfigException(TarnKeys.SECURITY_AUTHENTICATION + " = secret needs "
                    + TarnKeys.SECURITY_SECRET_FILE + ": the key file 'tarn secret' writes (bin/tarn start makes "
                    + "one in its run directory)");
        }
        KeyFile key = KeyFile.load(Path.of(file), TarnKeys.SECURITY_SECRET_FILE.name());
        if (key.kind() != KeyFile.Kind.USER) {
            String problem = KeyFile.checkUser(user);
            if (problem != null) {
                throw new ConfigException("cannot authenticate: " + problem + "; set " + TarnKeys.CLIENT_USER);
            }
        }
        return new TransportSecurity(mode, key, key.kind() == KeyFile.Kind.USER ? key.user() : user, timeout);
    }

    boolean on() {
        return mode == AuthenticationMode.SECRET;
    }

    /** The client's side of a new connection's handshake. */
    SecretHandshake.Client newClient() {
        return new SecretHandshake.Client(key, user);
    }

    /** The server's side of a new connection's handshake. */
    SecretHandshake.Server newServer() {
        return new SecretHandshake.Server(key);
    }

    /** Throws when this process cannot serve: authenticating servers need the cluster secret. */
    void checkCanServe() {
        if (on() && key.kind() != KeyFile.Kind.CLUSTER) {
            throw new ConfigException("a Tarn server needs the cluster secret in "
                    + TarnKeys.SECURITY_SECRET_FILE + ", but it holds a " + key + " (a client's key)");
        }
    }
}
