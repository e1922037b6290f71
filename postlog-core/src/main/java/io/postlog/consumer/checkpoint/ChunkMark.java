package io.postlog.consumer.checkpoint;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * How far one part of a snapshot or backfill got in the sink: written by a checkpoint
 * store in the same sink transaction as the rows of the chunk it ends, so that the rows
 * and the mark commit together or not at all.
 *
 * @param backfillId the backfill's id (for a resumable initial snapshot, its id beginning
 * with {@code snapshot-})
 * @param ordinal the part: a table of a backfill, or a chunk of a snapshot
 * @param afterKey the key, as text, of the part's last row delivered, {@code null} when
 * the part is done as a whole
 * @param done whether every row of the part was delivered
 */
public record ChunkMark(String backfillId, int ordinal, @Nullable List<String> afterKey, boolean done) {

	public ChunkMark {
		Objects.requireNonNull(backfillId, "backfillId");
		afterKey = (afterKey != null) ? List.copyOf(afterKey) : null;
	}

}
