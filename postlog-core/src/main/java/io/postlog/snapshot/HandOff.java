package io.postlog.snapshot;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import io.postlog.Change;
import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * The bounded queue between the reader threads and the delivering thread. Readers block
 * in {@link #put} while it is full, which stops their {@code COPY} and, through TCP, the
 * server; once {@link #stop()} is called, a blocked or later {@code put} returns
 * {@code false} within {@link #POLL_MILLIS}. Thread-safe.
 */
final class HandOff {

	static final long POLL_MILLIS = 50;

	private final BlockingQueue<Item> queue;

	private volatile boolean stopped;

	HandOff(int capacity) {
		this.queue = new ArrayBlockingQueue<>(capacity);
	}

	/**
	 * Hands an item over, waiting for room.
	 * @return {@code false} if the hand-off was stopped first
	 */
	boolean put(Item item) throws InterruptedException {
		while (!this.stopped) {
			if (this.queue.offer(item, POLL_MILLIS, TimeUnit.MILLISECONDS)) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Hands over the end of a reader, even when stopped, so that its owner hears of it.
	 * Waits for room unless stopped (the owner no longer takes items then).
	 */
	void putFinal(Item item) throws InterruptedException {
		while (!this.queue.offer(item, POLL_MILLIS, TimeUnit.MILLISECONDS)) {
			if (this.stopped) {
				return;
			}
		}
	}

	@Nullable Item poll() throws InterruptedException {
		return this.queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
	}

	void stop() {
		this.stopped = true;
		this.queue.clear();
	}

	boolean stopped() {
		return this.stopped;
	}

	/** What readers hand over. */
	sealed interface Item {

	}

	/**
	 * Rows of one table's chunk, in the order read; {@code chunkEnd} when they are the
	 * last of it.
	 */
	record Rows(int table, int chunk, List<Change> changes, boolean chunkEnd) implements Item {

	}

	/** A reader ran out of chunks and committed its transaction. */
	record Finished(String reader) implements Item {

	}

	/** A reader failed; it has closed its connection. */
	record Failed(String reader, @Nullable TableId table, @Nullable String chunk, Throwable cause) implements Item {

	}

}
