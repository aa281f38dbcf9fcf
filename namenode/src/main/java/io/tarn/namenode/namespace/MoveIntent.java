package io.tarn.namenode.namespace;

import io.tarn.namenode.blocks.Block;

/**
 * A move of a file to another namenode that this namenode (its sender) recorded as begun
 * (MOVE_BEGIN) and not yet as committed or aborted: after a restart the sender asks the receiver
 * how it ended (FILE_ADOPTION) and records that.
 *
 * @param fileId       the file's id here
 * @param ticket       the attempt's number (the receiver's ledger key)
 * @param to           the receiving partition
 * @param targetParent the directory it moves into (normalized path)
 * @param targetName   its new name
 * @param sweptBlocks  null while the file is linked here; the file's own blocks when a recursive
 *                     delete took it out of its directory during the move (they are lent until the
 *                     move's outcome says whether the receiver or the delete has them)
 */
public record MoveIntent(long fileId, long ticket, int to, String targetParent, String targetName,
                         Block[] sweptBlocks) {
    /** The same intent for a file a recursive delete took during the move. */
    MoveIntent swept(Block[] blocks) {
        return new MoveIntent(fileId, ticket, to, targetParent, targetName, blocks);
    }

    public boolean swept() {
        return sweptBlocks != null;
    }
}
