package io.postlog.consumer.delivery;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * For a transactional checkpoint store: the failed attempts of each change (or
 * transaction, or message) per subscription, kept across the rollbacks and reconnects
 * that redeliver it, and those whose attempts ran out, which the subscription's error
 * handler gets instead of its handler when they come again; the failure kept is the
 * consumer's own kind ({@code F}). Delivery thread only.
 * <p>
 * Internal: public only so the consumer's runners can count their failures in it; not
 * part of postlog's API, and it may change in any release.
 *
 * @param <F> the failure kept for what ran out of attempts
 */
public final class FailureLedger<F extends RuntimeException> {

	private final Map<String, Integer> attempts = new HashMap<>();

	private final Map<String, Exhausted<F>> exhausted = new HashMap<>();

	/**
	 * Counts a failed attempt.
	 * @param key the subscription and what failed
	 * @return the attempts so far, this one included
	 */
	public int failed(String key) {
		return this.attempts.merge(key, 1, Integer::sum);
	}

	/**
	 * Returns whether nothing failed since the last commit: the common case, in which a
	 * handler call needs no look-up.
	 * @return {@code true} if no attempts or exhausted items are kept
	 */
	public boolean isEmpty() {
		return this.attempts.isEmpty() && this.exhausted.isEmpty();
	}

	public void succeeded(String key) {
		this.attempts.remove(key);
	}

	public void exhausted(String key, Lsn lsn, F failure) {
		this.attempts.remove(key);
		this.exhausted.put(key, new Exhausted<>(lsn, failure));
	}

	public @Nullable F exhaustedFailure(String key) {
		Exhausted<F> entry = this.exhausted.get(key);
		return (entry != null) ? entry.failure() : null;
	}

	/**
	 * Forgets what the checkpoint has moved past: it will not be delivered again.
	 * @param checkpoint the committed checkpoint
	 */
	void committed(Lsn checkpoint) {
		Iterator<Exhausted<F>> iterator = this.exhausted.values().iterator();
		while (iterator.hasNext()) {
			if (!iterator.next().lsn().isAfter(checkpoint)) {
				iterator.remove();
			}
		}
		this.attempts.clear();
	}

	private record Exhausted<F>(Lsn lsn, F failure) {

	}

	/**
	 * A handler failed inside a sink transaction: it is rolled back and everything after
	 * the checkpoint is delivered again on a new connection, after the back-off.
	 */
	public static final class Redelivery extends RuntimeException {

		private static final long serialVersionUID = 1L;

		private final transient Duration backOff;

		public Redelivery(RuntimeException failure, Duration backOff) {
			super(failure.getMessage(), failure, false, false);
			this.backOff = backOff;
		}

		public Duration backOff() {
			return this.backOff;
		}

	}

}
