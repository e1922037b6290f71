package io.postlog.consumer.backfill;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.consumer.delivery.AckWindow;
import io.postlog.snapshot.BackfillChunk;
import io.postlog.snapshot.BackfillTable;
import org.jspecify.annotations.Nullable;

/**
 * One chunk between its announcement and its delivery: its rows, given by the runner
 * before it writes the high watermark, and what the delivery thread recorded.
 */
final class OpenChunk {

	/**
	 * The key under which a truncate of the table is recorded: it wins over every row.
	 */
	private static final Object TRUNCATED = new Object();

	final String token;

	final BackfillTable table;

	final CountDownLatch read = new CountDownLatch(1);

	final CountDownLatch done = new CountDownLatch(1);

	volatile BackfillChunk rows;

	/**
	 * What a transactional store marks when the chunk's rows commit: its part and last
	 * key. Set with the rows.
	 */
	volatile @Nullable ChunkMark mark;

	/**
	 * The transactions delivered before the announcement, which the read must see.
	 */
	volatile long[] deliveredBefore = new long[0];

	/**
	 * Per key the streamed changes since the announcement: xid, and after the low.
	 */
	final Map<Object, List<long[]>> changed = new HashMap<>();

	boolean lowSeen;

	boolean highSeen;

	volatile boolean abandoned;

	boolean delivering;

	volatile List<AckWindow.Entry> entries = List.of();

	/** Each slice dispatched so far: its entry and its rows, in order. */
	private final List<Map.Entry<AckWindow.Entry, Integer>> slices = new CopyOnWriteArrayList<>();

	volatile int deliveredRows;

	volatile int droppedRows;

	OpenChunk(String token, BackfillTable table) {
		this.token = token;
		this.table = table;
	}

	String low() {
		return this.token + "/low";
	}

	String high() {
		return this.token + "/high";
	}

	void rows(BackfillChunk rows) {
		this.rows = rows;
		this.read.countDown();
	}

	void record(Change change) {
		long[] seen = { change.xid(), this.lowSeen ? 1 : 0 };
		if (change.operation() == Operation.TRUNCATE) {
			this.changed.computeIfAbsent(TRUNCATED, (k) -> new ArrayList<>()).add(seen);
			return;
		}
		List<@Nullable Object> after = this.table.keyOf(change.after());
		if (after != null) {
			this.changed.computeIfAbsent(after, (k) -> new ArrayList<>()).add(seen);
		}
		List<@Nullable Object> before = this.table.keyOf(change.before());
		if (before != null && !before.equals(after)) {
			this.changed.computeIfAbsent(before, (k) -> new ArrayList<>()).add(seen);
		}
	}

	/** Whether any streamed change of the table was recorded for the chunk. */
	boolean changedAny() {
		return !this.changed.isEmpty();
	}

	boolean wonOver(List<@Nullable Object> key, BackfillChunk rows) {
		return won(this.changed.get(key), rows) || won(this.changed.get(TRUNCATED), rows);
	}

	static boolean won(@Nullable List<long[]> changes, BackfillChunk rows) {
		if (changes == null) {
			return false;
		}
		for (long[] change : changes) {
			if (change[1] == 1 || !rows.visibility().sees(change[0])) {
				return true;
			}
		}
		return false;
	}

	void delivered(List<AckWindow.Entry> entries, int rows, int dropped) {
		this.entries = List.copyOf(entries);
		this.deliveredRows = rows;
		this.droppedRows = dropped;
		this.done.countDown();
	}

	/**
	 * Drops the chunk unless its delivery began. Thread-safe.
	 * @return whether it was dropped
	 */
	synchronized boolean abandon() {
		if (this.delivering) {
			return false;
		}
		this.abandoned = true;
		return true;
	}

	boolean awaitDelivered(long timeout, TimeUnit unit) throws InterruptedException {
		return this.done.await(timeout, unit);
	}

	/** Forgets the slices dispatched: their sink transaction was rolled back. */
	void slicesRolledBack() {
		this.slices.clear();
	}

	/** Records a slice of the chunk's rows handed to the dispatcher. */
	void sliceDispatched(AckWindow.Entry entry, int rows) {
		this.slices.add(Map.entry(entry, rows));
	}

	/**
	 * Returns the rows of the slices every subscription finished: entries leave the
	 * window in order, so the first one still in it ends the count.
	 */
	long settledRows(AckWindow window) {
		long rows = 0;
		for (Map.Entry<AckWindow.Entry, Integer> slice : this.slices) {
			if (!window.settled(List.of(slice.getKey()))) {
				break;
			}
			rows += slice.getValue();
		}
		return rows;
	}

	List<AckWindow.Entry> entries() {
		return this.entries;
	}

	int deliveredRows() {
		return this.deliveredRows;
	}

	int droppedRows() {
		return this.droppedRows;
	}

}
