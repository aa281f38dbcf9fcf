package io.tarn.it.compare;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The raw transport figures of a run.
 *
 * @param nettyEcho          Netty echo by messages in flight
 * @param socketPingPong     blocking-socket ping-pong, one in flight
 * @param tcpBytesPerSecond  one loopback TCP stream of 1 MiB writes, bytes per second
 * @param tcpIntoMemoryBytesPerSecond the same stream, its receiver keeping the bytes in a mapped
 *                           {@code /dev/shm} file (where the datanode keeps its regions), bytes per second
 */
public record BaselineResult(String nettyTransport, Map<Integer, LoadResult> nettyEcho, LoadResult socketPingPong,
                             double tcpBytesPerSecond, double tcpIntoMemoryBytesPerSecond) {
    /**
     * The better of two measurements, figure by figure (more operations or bytes per second, lower
     * latency): a baseline is a ceiling, and on a shared machine a run only ever falls short of it.
     */
    static BaselineResult best(BaselineResult a, BaselineResult b) {
        Map<Integer, LoadResult> echo = new LinkedHashMap<>();
        a.nettyEcho.forEach((depth, r) -> echo.put(depth, best(r, b.nettyEcho.get(depth))));
        return new BaselineResult(a.nettyTransport, echo, best(a.socketPingPong, b.socketPingPong),
                Math.max(a.tcpBytesPerSecond, b.tcpBytesPerSecond),
                Math.max(a.tcpIntoMemoryBytesPerSecond, b.tcpIntoMemoryBytesPerSecond));
    }

    private static LoadResult best(LoadResult a, LoadResult b) {
        return new LoadResult(Math.max(a.opsPerSecond(), b.opsPerSecond()), Math.min(a.p50Micros(), b.p50Micros()),
                Math.min(a.p99Micros(), b.p99Micros()));
    }
}
