package io.tarn.common.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.InetSocketAddress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HostPortTest {

    @ParameterizedTest(name = "{0} -> host {1}, port {2}")
    @CsvSource(delimiter = '|', value = {
            "127.0.0.1:9060                  | 127.0.0.1                | 9060",
            "0.0.0.0:0                       | 0.0.0.0                  | 0",
            "10.1.2.3:65535                  | 10.1.2.3                 | 65535",
            "localhost:9060                  | localhost                | 9060",
            "nn-1.rack7.example.com:80       | nn-1.rack7.example.com   | 80",
            "'  datanode3:9070  '            | datanode3                | 9070",
            "[::1]:9060                      | ::1                      | 9060",
            "[::]:9070                       | ::                       | 9070",
            "[fe80::1ff:fe23:4567:890a]:1    | fe80::1ff:fe23:4567:890a | 1",
            "[2001:db8::8a2e:370:7334]:443   | 2001:db8::8a2e:370:7334  | 443",
    })
    void parsesHostsAndPorts(String text, String host, int port) {
        HostPort hp = HostPort.parse(text);
        assertThat(hp.host()).isEqualTo(host);
        assertThat(hp.port()).isEqualTo(port);
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1:9060", "localhost:1", "[::1]:9060", "[2001:db8::1]:65535", "h:0"})
    void toStringRoundTrips(String text) {
        HostPort hp = HostPort.parse(text);
        assertThat(hp.toString()).isEqualTo(text);
        assertThat(HostPort.parse(hp.toString())).isEqualTo(hp);
    }

    @Test
    void ipv6HostsAreBracketedWhenFormatted() {
        assertThat(new HostPort("::1", 80)).hasToString("[::1]:80");
        assertThat(new HostPort("example.org", 80)).hasToString("example.org:80");
    }

    @ParameterizedTest
    @ValueSource(strings = {"host:65536", "host:99999", "host:-1", "host:-65535"})
    void portsOutsideTheRangeAreRejected(String text) {
        assertThatThrownBy(() -> HostPort.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageMatching("port -?\\d+ is outside 0\\.\\.65535");
    }

    @ParameterizedTest
    @ValueSource(strings = {"host:http", "host:80x", "host: 80", "host:8 0", "host:0x50", "host:99999999999",
            "[::1]", "[::1]:"})
    void nonNumericPortsAreRejected(String text) {
        assertThatThrownBy(() -> HostPort.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(text.trim());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "localhost", ":9060", "host:", "9060", "  :80  "})
    void missingHostOrPortIsRejected(String text) {
        assertThatThrownBy(() -> HostPort.parse(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expected host:port, got '" + text + "'");
    }

    @Test
    void emptyBracketedHostIsRejected() {
        assertThatThrownBy(() -> HostPort.parse("[]:80"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("expected host:port, got '[]:80'");
    }

    @Test
    void constructorValidates() {
        assertThatThrownBy(() -> new HostPort(null, 1)).hasMessage("host is empty");
        assertThatThrownBy(() -> new HostPort("", 1)).hasMessage("host is empty");
        assertThatThrownBy(() -> new HostPort("h", 65536)).hasMessage("port 65536 is outside 0..65535");
        assertThatThrownBy(() -> new HostPort("h", -1)).hasMessage("port -1 is outside 0..65535");
        assertThat(new HostPort("h", 0).port()).isZero();
        assertThat(new HostPort("h", 65535).port()).isEqualTo(65535);
    }

    @Test
    void wildcardHosts() {
        assertThat(HostPort.parse("0.0.0.0:9070").isWildcard()).isTrue();
        assertThat(HostPort.parse("[::]:9070").isWildcard()).isTrue();
        assertThat(new HostPort("*", 9070).isWildcard()).isTrue();
        assertThat(HostPort.parse("127.0.0.1:9070").isWildcard()).isFalse();
        assertThat(HostPort.parse("[::1]:9070").isWildcard()).isFalse();
        assertThat(HostPort.parse("localhost:9070").isWildcard()).isFalse();
    }

    @Test
    void socketAddressIsUnresolved() {
        InetSocketAddress a = HostPort.parse("[::1]:9060").toSocketAddress();
        assertThat(a.isUnresolved()).isTrue();
        assertThat(a.getHostString()).isEqualTo("::1");
        assertThat(a.getPort()).isEqualTo(9060);

        InetSocketAddress b = HostPort.parse("no-such-host.invalid:7").toSocketAddress();
        assertThat(b.isUnresolved()).isTrue();
        assertThat(b.getHostString()).isEqualTo("no-such-host.invalid");
    }

    /** An IPv6 address must be in brackets; unbalanced brackets are rejected. */
    @ParameterizedTest
    @ValueSource(strings = {"::1", "fe80::1", "2001:db8::1:9060", "[::1:80", "::1]:80"})
    void unbracketedIpv6IsRejected(String text) {
        assertThatThrownBy(() -> HostPort.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }
}
