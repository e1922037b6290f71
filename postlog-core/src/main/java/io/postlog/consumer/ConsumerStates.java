package io.postlog.consumer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer's current state; tells the listener of every move. {@code RUNNING} means a
 * stream is open and every subscription is being called, {@code SNAPSHOT} that the
 * initial snapshot is being delivered; while any subscription waits to retry, the state
 * is {@code RETRYING}. Thread-safe.
 */
final class ConsumerStates {

	private static final Logger logger = LoggerFactory.getLogger(ConsumerStates.class);

	private final AtomicReference<ConsumerState> current = new AtomicReference<>(ConsumerState.STOPPED);

	private final AtomicInteger retryingSubscriptions = new AtomicInteger();

	private final ConsumerListener listener;

	private final String slotName;

	/** What delivery is doing when no subscription retries: RUNNING, SNAPSHOT or none. */
	private volatile @Nullable ConsumerState delivering;

	private volatile boolean ended;

	ConsumerStates(ConsumerListener listener, String slotName) {
		this.listener = listener;
		this.slotName = slotName;
	}

	ConsumerState get() {
		return this.current.get();
	}

	boolean ended() {
		return this.ended;
	}

	/**
	 * Moves to {@code STOPPED} for good: later moves are ignored.
	 */
	void end() {
		moveTo(ConsumerState.STOPPED, null);
		this.ended = true;
	}

	/**
	 * A stream started: {@code RUNNING}, or {@code RETRYING} while a subscription still
	 * waits to retry.
	 */
	void streaming() {
		delivering(ConsumerState.RUNNING);
	}

	/**
	 * The initial snapshot is being delivered: {@code SNAPSHOT}, or {@code RETRYING}
	 * while a subscription still waits to retry.
	 */
	void snapshot() {
		delivering(ConsumerState.SNAPSHOT);
	}

	private void delivering(ConsumerState state) {
		this.delivering = state;
		moveTo((this.retryingSubscriptions.get() > 0) ? ConsumerState.RETRYING : state, null);
	}

	/**
	 * The stream ended and the consumer waits to reconnect.
	 * @param cause why
	 */
	void reconnecting(Throwable cause) {
		this.delivering = null;
		moveTo(ConsumerState.RETRYING, cause);
	}

	/**
	 * Another process holds the slot.
	 * @param cause the refusal
	 */
	void standby(Throwable cause) {
		this.delivering = null;
		moveTo(ConsumerState.STANDBY, cause);
	}

	/**
	 * A subscription's handler failed and waits to be retried.
	 * @param cause the failure
	 */
	void subscriptionRetrying(Throwable cause) {
		this.retryingSubscriptions.incrementAndGet();
		moveTo(ConsumerState.RETRYING, cause);
	}

	/**
	 * A subscription that was retrying got past its failure (succeeded, was skipped or
	 * gave up).
	 */
	void subscriptionRecovered() {
		ConsumerState state = this.delivering;
		if (this.retryingSubscriptions.decrementAndGet() <= 0 && state != null) {
			moveTo(state, null);
		}
	}

	void failed(Throwable cause) {
		this.delivering = null;
		moveTo(ConsumerState.FAILED, cause);
	}

	/**
	 * Moves to a state unless the consumer has ended; {@code FAILED} is left only for
	 * {@code STOPPED}.
	 * @param state the new state
	 * @param cause the failure behind the move, or {@code null}
	 */
	void moveTo(ConsumerState state, @Nullable Throwable cause) {
		ConsumerState previous;
		do {
			previous = this.current.get();
			if (this.ended || previous == state
					|| (previous == ConsumerState.FAILED && state != ConsumerState.STOPPED)) {
				return;
			}
		}
		while (!this.current.compareAndSet(previous, state));
		logger.debug("Consumer of slot {} moved from {} to {}", this.slotName, previous, state);
		this.listener.stateChanged(previous, state, cause);
	}

}
