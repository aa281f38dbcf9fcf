package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.namenode.journal.SequencedLog;
import io.tarn.namenode.namespace.Namespace;
import io.tarn.namenode.namespace.RetryCache;
import io.tarn.rpc.ForwardingRequest;
import io.tarn.rpc.RpcRequest;


/**
 * A client's mutation sent as {@code Opcode.ONCE} (with its client id and call id), seen by the
 * handlers as the mutation itself: its opcode and body. Its answer is recorded and kept in the
 * namespace's {@link RetryCache} before it goes on to be sent (to a {@link DurableReply}, which
 * waits until that record is durable too), so the call is answered again, not applied again, when
 * its client sends it once more. The call's records and its answer's are one scope of the log
 * ({@link SequencedLog.Scope}): they become durable together, so no member holds the change
 * without the answer. A refusal is not kept: the call changed nothing.
 */
final class OnceRequest extends ForwardingRequest {
    private final RetryCache.Key key;
    private final int opcode;
    private final ByteBuf body;
    private final Namespace namespace;
    /** The log the call's records go to, and their scope there (both null without a journal). */
    private final SequencedLog log;
    private final SequencedLog.Scope scope;
    /** Bytes of the response header in buffers from {@link #response()}. */
    private int headerBytes = -1;

    /**
     * @param request   where the answer goes (a {@link DurableReply} when the namespace is journaled)
     * @param key       the call
     * @param opcode    the mutation's opcode
     * @param body      the mutation's body
     * @param namespace whose retry cache keeps the answer
     * @param log       where the call's records go (null: no journal), which makes them and the
     *                  answer's durable together ({@code scope})
     */
    OnceRequest(RpcRequest request, RetryCache.Key key, int opcode, ByteBuf body, Namespace namespace,
                SequencedLog log) {
        super(request);
        this.log = log;
        this.scope = log == null ? null : new SequencedLog.Scope();
        this.key = key;
        this.opcode = opcode;
        this.body = body;
        this.namespace = namespace;
    }

    @Override
    public int opcode() {
        return opcode;
    }

    @Override
    public ByteBuf body() {
        return body;
    }

    @Override
    public ByteBuf response() {
        ByteBuf b = request.response();
        headerBytes = b.writerIndex();
        return b;
    }

    /** Runs {@code dispatch}, the call's handling, with the records it appends in the call's scope. */
    void run(Runnable dispatch) {
        if (scope == null) {
            dispatch.run();
            return;
        }
        SequencedLog.enter(scope);
        try {
            dispatch.run();
        } finally {
            SequencedLog.leave();
        }
    }

    @Override
    public void send(ByteBuf response) {
        try {
            int at = headerBytes >= 0 ? headerBytes : response.readerIndex();
            if (scope != null) {
                SequencedLog.enter(scope); // an answer sent later, from another thread, joins the call too
            }
            namespace.keepAnswer(key, response.slice(at, response.writerIndex() - at));
        } finally {
            done();
        }
        request.send(response);
    }

    /** The handling failed before answering (the transport answers): the call may be sent again. */
    void abandon() {
        done();
    }

    /** The call's records are all appended; it may be sent again from now on. */
    private void done() {
        if (scope != null) {
            SequencedLog.leave();
            log.close(scope);
        }
        namespace.retryCache().end(key);
    }

    @Override
    public void sendWithPayload(ByteBuf response, ByteBuf payload) {
        done(); // an answer with data is not kept: no mutation answers so
        request.sendWithPayload(response, payload);
    }

    @Override
    public void fail(ErrorCode code, String message, ErrorDetail detail) {
        done();
        request.fail(code, message, detail);
    }
}
