package io.postlog.consumer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.postlog.consumer.backfill.SnapshotChunkRecord;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.snapshot.ChunkRange;
import io.postlog.snapshot.SnapshotHandOff;
import org.jspecify.annotations.Nullable;

/**
 * The chunk record of one resumable initial snapshot while {@link InitialSnapshot}
 * delivers it: records every planned chunk (and marks the hand-off planned) before the
 * first row, and marks each chunk done once the {@link AckWindow} let go of its last
 * batch, so that a crash leaves exactly the chunks not done for a backfill to resume.
 * Used on the delivery thread only.
 */
final class ResumableChunks {

	private final SnapshotChunkRecord record;

	private final SnapshotHandOff handOff;

	private final AdminConnections admin;

	private final AckWindow window;

	private final String slotName;

	private final String id = SnapshotChunkRecord.newId();

	private final Map<ChunkRange, Integer> ordinals = new HashMap<>();

	/** Chunks whose rows were all dispatched, with the entry of their last batch. */
	private final ArrayDeque<Map.Entry<Integer, AckWindow.Entry>> settling = new ArrayDeque<>();

	ResumableChunks(SnapshotChunkRecord record, SnapshotHandOff handOff, AdminConnections admin, AckWindow window,
			String slotName) {
		this.record = record;
		this.handOff = handOff;
		this.admin = admin;
		this.window = window;
		this.slotName = slotName;
	}

	/** The id of the snapshot's chunks in the backfill progress table. */
	String id() {
		return this.id;
	}

	/** The chunk's ordinal in the record, {@code null} for one not planned. */
	@Nullable Integer ordinal(ChunkRange chunk) {
		return this.ordinals.get(chunk);
	}

	void planned(List<ChunkRange> chunks) {
		for (int i = 0; i < chunks.size(); i++) {
			this.ordinals.put(chunks.get(i), i);
		}
		this.admin.apply("Recording the chunks of slot " + this.slotName + "'s snapshot", (connection) -> {
			this.record.record(connection, this.id, chunks);
			this.handOff.planned(connection);
			return null;
		});
	}

	void dispatched(ChunkRange chunk, AckWindow.@Nullable Entry last) {
		Integer ordinal = this.ordinals.get(chunk);
		if (ordinal != null && last != null) {
			this.settling.add(Map.entry(ordinal, last));
		}
		save(false);
	}

	/** Marks done the chunks whose batches left the window (all, at the end). */
	void save(boolean all) {
		List<Integer> done = new ArrayList<>();
		while (!this.settling.isEmpty() && (all || this.window.settled(List.of(this.settling.peek().getValue())))) {
			done.add(this.settling.poll().getKey());
		}
		if (done.isEmpty()) {
			return;
		}
		this.admin.apply("Recording the progress of slot " + this.slotName + "'s snapshot", (connection) -> {
			for (int ordinal : done) {
				this.record.done(connection, this.id, ordinal);
			}
			return null;
		});
	}

}
