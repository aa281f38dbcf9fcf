package io.tarn.common.config;

import java.net.InetSocketAddress;

/** A {@code host:port} pair as written in configuration; IPv6 hosts are written in brackets. */
public record HostPort(String host, int port) {

    public HostPort {
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("host is empty");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
    }

    /** Parses {@code host:port} or {@code [v6addr]:port}. */
    public static HostPort parse(String text) {
        String t = text.trim();
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException("expected host:port, got '" + text + "'");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port is not a number in '" + text + "'");
        }
        return new HostPort(host, port);
    }

    /** An unresolved socket address for this pair (resolution happens when connecting). */
    public InetSocketAddress toSocketAddress() {
        return InetSocketAddress.createUnresolved(host, port);
    }

    /** True when the host means "every interface". */
    public boolean isWildcard() {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("*");
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
