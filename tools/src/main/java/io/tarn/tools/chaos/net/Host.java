package io.tarn.tools.chaos.net;

import java.util.ArrayList;
import java.util.List;

/**
 * A host of a {@link NetworkLab}: a network namespace with one address on the lab's bridge, reached
 * through a veth pair whose bridge end {@link NetworkLab#isolate} sets down.
 *
 * @param name      the lab's name for it (e.g. {@code dn3})
 * @param namespace the network namespace
 * @param address   its IPv4 address on the bridge
 * @param bridgeEnd the veth end attached to the bridge, in the root namespace
 */
public record Host(String name, String namespace, String address, String bridgeEnd) {
    /** {@code command} run inside this host's namespace ({@code ip netns exec}, which keeps its pid). */
    public List<String> command(List<String> command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace));
        full.addAll(command);
        return full;
    }
}
