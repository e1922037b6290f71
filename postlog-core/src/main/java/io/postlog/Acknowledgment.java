package io.postlog;

/**
 * Hands the acknowledgement of what a listener was given to the listener itself: the
 * replication slot moves past a transaction only when every listener for it returned and
 * every {@code Acknowledgment} handed out for it was acknowledged, and always in commit
 * order. A listener may acknowledge later, after its own work completed, from any thread.
 * <p>
 * {@link #acknowledge()} is idempotent and thread-safe. An acknowledgement that never
 * comes holds the slot back (and, past {@code postlog.delivery.max-unacknowledged}
 * transactions in flight, holds delivery back); after a restart everything not
 * acknowledged is delivered again.
 */
@FunctionalInterface
public interface Acknowledgment {

	/**
	 * Acknowledges what this acknowledgement was handed out with; later calls do nothing.
	 */
	void acknowledge();

}
