package io.tarn.common.config;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

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

    /** Parses {@code host:port} or {@code [v6addr]:port}; an IPv6 address must be in brackets. */
    public static HostPort parse(String text) {
        String t = text.trim();
        String host;
        String port;
        if (t.startsWith("[")) {
            int close = t.indexOf("]:");
            if (close < 0) {
                throw new IllegalArgumentException("expected [ipv6]:port, got '" + text + "'");
            }
            host = t.substring(1, close);
            port = t.substring(close + 2);
        } else {
            int colon = t.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("expected host:port, got '" + text + "'");
            }
            host = t.substring(0, colon);
            port = t.substring(colon + 1);
            if (host.indexOf(':') >= 0 || host.indexOf('[') >= 0 || host.indexOf(']') >= 0) {
                throw new IllegalArgumentException("an IPv6 address needs brackets, as in [::1]:9060; got '"
                        + text + "'");
            }
        }
        if (host.isEmpty() || port.isEmpty()) {
            throw new IllegalArgumentException("expected host:port, got '" + text + "'");
        }
        try {
            return new HostPort(host, Integer.parseInt(port));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("port is not a number in '" + text + "'");
        }
    }

    /** Parses a comma-separated list of {@code host:port} pairs, in order. */
    public static List<HostPort> parseList(String text) {
        List<HostPort> out = new ArrayList<>();
        for (List<HostPort> group : parseGroups(text)) {
            out.add(group.get(0));
        }
        return List.copyOf(out);
    }

    /**
     * Parses a comma-separated list of entries, each one {@code host:port} or a group of members
     * separated by {@code |} ({@code h1:p|h2:p|h3:p}).
     */
    public static List<List<HostPort>> parseGroups(String text) {
        List<List<HostPort>> out = new ArrayList<>();
        for (String part : text.split(",", -1)) {
            List<HostPort> members = new ArrayList<>();
            for (String m : part.split("\\|", -1)) {
                members.add(parse(m));
            }
            out.add(List.copyOf(members));
        }
        return List.copyOf(out);
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
