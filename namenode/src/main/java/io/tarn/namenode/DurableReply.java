package io.tarn.namenode;

import io.netty.buffer.ByteBuf;
import io.tarn.common.error.ErrorCode;
import io.tarn.common.error.ErrorDetail;
import io.tarn.namenode.journal.SequencedLog;
import io.tarn.rpc.ForwardingRequest;
import io.tarn.rpc.RpcRequest;


/**
 * A request whose answer waits until every record appended before it is durable
 * ({@link SequencedLog#barrier}: forced to the journal's disk, or committed by the namenode's
 * group): the answer to a mutation then never acknowledges a change a crash could still lose, nor a
 * state (an existing name, a closed file) that only a record not yet durable describes. The answer
 * is encoded at once, from the state the mutation saw; only sending it waits, on the log's writer
 * thread, and no I/O thread blocks. When the log fails first, the answer becomes the log's
 * {@link SequencedLog#failureCode} (NAMESPACE_READ_ONLY; RETRY for a group's log) with the reason.
 */
final class DurableReply extends ForwardingRequest {
    private final SequencedLog journal;

    DurableReply(RpcRequest request, SequencedLog journal) {
        super(request);
        this.journal = journal;
    }

    @Override
    public void send(ByteBuf response) {
        journal.barrier(() -> request.send(response), why -> {
            response.release();
            readOnly(why);
        });
    }

    @Override
    public void sendWithPayload(ByteBuf response, ByteBuf payload) {
        journal.barrier(() -> request.sendWithPayload(response, payload), why -> {
            response.release();
            payload.release();
            readOnly(why);
        });
    }

    @Override
    public void fail(ErrorCode code, String message, ErrorDetail detail) {
        journal.barrier(() -> request.fail(code, message, detail), why -> request.fail(code, message, detail));
    }

    private void readOnly(String why) {
        request.fail(journal.failureCode(), NamenodeService.readOnlyMessage(why));
    }
}
