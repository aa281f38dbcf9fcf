package io.tarn.datanode.replication;

import io.netty.util.concurrent.FastThreadLocal;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.protocol.Opcode;
import io.tarn.replication.Message;
import io.tarn.rpc.RpcHandler;
import io.tarn.rpc.RpcRequest;

/**
 * Serves the requests of the {@code REPLICA} audience on a datanode's RPC server: a message of a
 * group's replication protocol from another member is decoded on the I/O thread and handed to the
 * group's loop ({@link GroupRunner#deliver}), and the request is answered at once, empty. A message
 * for a group this datanode does not host is answered {@code UNKNOWN_GROUP} (the sender drops it);
 * a malformed one throws {@link io.tarn.common.protocol.MalformedMessageException}, which the
 * transport answers before closing the connection.
 */
public final class ReplicaService implements RpcHandler {

    private final ReplicationHost host;
    private final ReplicationCodec codec;
    private final FastThreadLocal<ReplicationCodec.Header> header = new FastThreadLocal<>() {
        @Override
        protected ReplicationCodec.Header initialValue() {
            return new ReplicationCodec.Header();
        }
    };

    ReplicaService(ReplicationHost host, ReplicationCodec codec) {
        this.host = host;
        this.codec = codec;
    }

    @Override
    public void handle(RpcRequest request) {
        if (request.opcode() != Opcode.REPLICA_MESSAGE) {
            request.fail(ErrorCode.UNKNOWN_OPCODE, "a datanode's replication service does not serve "
                    + Opcode.name(request.opcode()));
            return;
        }
        ReplicationCodec.Header h = header.get().read(request.body());
        GroupRunner runner = host.runner(h.groupId());
        if (runner == null) {
            request.fail(ErrorCode.UNKNOWN_GROUP, "this datanode holds no replica of group " + h.groupId());
            return;
        }
        Message message = codec.decode(request.body());
        runner.deliver(message);
        request.send(request.response());
    }
}
