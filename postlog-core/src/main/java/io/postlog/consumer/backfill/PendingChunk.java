package io.postlog.consumer.backfill;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.snapshot.BackfillChunk;
import io.postlog.snapshot.BackfillRow;
import org.jspecify.annotations.Nullable;

/**
 * A chunk between its high watermark and its last row's delivery: the rows still to
 * deliver, and those a streamed change after the high watermark superseded (the change
 * carries the newer state, so the row is dropped rather than delivered after it).
 */
final class PendingChunk {

	final OpenChunk chunk;

	final Lsn point;

	final Instant time;

	final String idPrefix;

	final boolean[] superseded;

	/**
	 * Row positions by key, built when a streamed change of the table first comes.
	 */
	@Nullable Map<Object, Integer> positions;

	final List<AckWindow.Entry> entries = new ArrayList<>();

	int next;

	int index;

	int dropped;

	/** Whether it went back to its first row after a rollback. */
	boolean restarted;

	PendingChunk(OpenChunk chunk, Lsn point, Instant time, String idPrefix) {
		this.chunk = chunk;
		this.point = point;
		this.time = time;
		this.idPrefix = idPrefix;
		BackfillChunk rows = chunk.rows;
		this.superseded = new boolean[rows.rows().size()];
		if (!chunk.changedAny()) {
			// No streamed change of the table in the window: every row goes.
			return;
		}
		for (int i = 0; i < this.superseded.length; i++) {
			if (chunk.wonOver(rows.rows().get(i).key(), rows)) {
				this.superseded[i] = true;
				this.dropped++;
			}
		}
	}

	/**
	 * Goes back to the first row: the sink transaction that held the rows delivered so
	 * far was rolled back. Rows superseded stay dropped.
	 */
	void restart() {
		this.next = 0;
		this.index = 0;
		this.restarted = true;
		this.entries.clear();
		this.chunk.slicesRolledBack();
	}

	void supersede(Change change) {
		if (change.operation() == Operation.TRUNCATE) {
			for (int i = this.next; i < this.superseded.length; i++) {
				drop(i);
			}
			return;
		}
		List<@Nullable Object> after = this.chunk.table.keyOf(change.after());
		List<@Nullable Object> before = this.chunk.table.keyOf(change.before());
		drop(after);
		if (before != null && !before.equals(after)) {
			drop(before);
		}
	}

	void drop(@Nullable List<@Nullable Object> key) {
		if (key == null) {
			return;
		}
		Map<Object, Integer> byKey = this.positions;
		if (byKey == null) {
			List<BackfillRow> rows = this.chunk.rows.rows();
			byKey = new HashMap<>(rows.size() * 2);
			for (int i = this.next; i < rows.size(); i++) {
				byKey.put(rows.get(i).key(), i);
			}
			this.positions = byKey;
		}
		Integer position = byKey.get(key);
		if (position != null) {
			drop(position);
		}
	}

	void drop(int position) {
		if (position >= this.next && !this.superseded[position]) {
			this.superseded[position] = true;
			this.dropped++;
		}
	}

}
