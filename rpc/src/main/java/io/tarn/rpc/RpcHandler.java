package io.tarn.rpc;

/**
 * Serves requests arriving at an {@link RpcServer}.
 *
 * <p>Called on a transport I/O thread, once per request, with requests of one connection in
 * arrival order. It must not block: answer at once, or hand the request to another executor and
 * answer from there. Every request must be answered exactly once, by {@link RpcRequest#send},
 * {@link RpcRequest#sendWithPayload} or {@link RpcRequest#fail}. A handler that throws makes the
 * transport answer {@code INTERNAL} (or {@code MALFORMED_REQUEST} for a
 * {@link io.tarn.common.protocol.MalformedMessageException}, after which the connection is closed).
 */
@FunctionalInterface
public interface RpcHandler {
    void handle(RpcRequest request) throws Exception;
}
