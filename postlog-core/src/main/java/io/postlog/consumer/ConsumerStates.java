package io.postlog.consumer;

import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer's current state; tells the listener of every move. Thread-safe.
 */
final class ConsumerStates {

	private static final Logger logger = LoggerFactory.getLogger(ConsumerStates.class);

	private final AtomicReference<ConsumerState> current = new AtomicReference<>(ConsumerState.STOPPED);

	private final ConsumerListener listener;

	private final String slotName;

	private volatile boolean ended;

	ConsumerStates(ConsumerListener listener, String slotName) {
		this.listener = listener;
		this.slotName = slotName;
	}

	ConsumerState get() {
		return this.current.get();
	}

	/**
	 * Moves to {@code STOPPED} for good: later moves are ignored.
	 */
	void end() {
		moveTo(ConsumerState.STOPPED, null);
		this.ended = true;
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
		try {
			this.listener.stateChanged(previous, state, cause);
		}
		catch (RuntimeException ex) {
			logger.warn("Consumer listener failed on a state change: {}", ex.getClass().getName());
		}
	}

}
