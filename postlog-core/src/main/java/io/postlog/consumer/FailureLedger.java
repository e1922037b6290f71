package io.postlog.consumer;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * For a transactional {@link CheckpointStore}: the failed attempts of each change (or
 * transaction, or message) per subscription, kept across the rollbacks and reconnects
 * that redeliver it, and those whose attempts ran out, which the subscription's error
 * handler gets instead of its handler when they come again. Delivery thread only.
 */
final class FailureLedger {

	private final Map<String, Integer> attempts = new HashMap<>();

	private final Map<String, Exhausted> exhausted = new HashMap<>();

	/**
	 * Counts a failed attempt.
	 * @param key the subscription and what failed
	 * @return the attempts so far, this one included
	 */
	int failed(String key) {
		return this.attempts.merge(key, 1, Integer::sum);
	}

	/**
	 * Returns whether nothing failed since the last commit: the common case, in which a
	 * handler call needs no look-up.
	 * @return {@code true} if no attempts or exhausted items are kept
	 */
	boolean isEmpty() {
		return this.attempts.isEmpty() && this.exhausted.isEmpty();
	}

	void succeeded(String key) {
		this.attempts.remove(key);
	}

	void exhausted(String key, Lsn lsn, HandlerFailedException failure) {
		this.attempts.remove(key);
		this.exhausted.put(key, new Exhausted(lsn, failure));
	}

	@Nullable HandlerFailedException exhaustedFailure(String key) {
		Exhausted entry = this.exhausted.get(key);
		return (entry != null) ? entry.failure() : null;
	}

	/**
	 * Forgets what the checkpoint has moved past: it will not be delivered again.
	 * @param checkpoint the committed checkpoint
	 */
	void committed(Lsn checkpoint) {
		Iterator<Exhausted> iterator = this.exhausted.values().iterator();
		while (iterator.hasNext()) {
			if (!iterator.next().lsn().isAfter(checkpoint)) {
				iterator.remove();
			}
		}
		this.attempts.clear();
	}

	private record Exhausted(Lsn lsn, HandlerFailedException failure) {

	}

	/**
	 * A handler failed inside a sink transaction: it is rolled back and everything after
	 * the checkpoint is delivered again on a new connection, after the back-off.
	 */
	static final class Redelivery extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final transient Duration backOff;

		Redelivery(HandlerFailedException failure, Duration backOff) {
			super(failure.getMessage(), failure, false, false);
			this.backOff = backOff;
		}

		Duration backOff() {
			return this.backOff;
		}

	}

}
