package io.postlog.consumer;

import java.util.concurrent.atomic.AtomicLong;

import io.postlog.Lsn;

/**
 * The position this consumer has acknowledged: moved by the delivery thread after a
 * transaction's handlers returned and by the reader thread for idle keepalive positions,
 * read by the reader thread to tell the server. Never moves backwards. Thread-safe.
 */
final class AckPosition {

	private final AtomicLong acked = new AtomicLong();

	private final ConsumerListener listener;

	AckPosition(ConsumerListener listener) {
		this.listener = listener;
	}

	Lsn get() {
		return Lsn.of(this.acked.get());
	}

	/**
	 * Sets the position the slot had when this consumer took it over, without telling the
	 * listener.
	 * @param lsn the slot's confirmed position
	 */
	void baseline(Lsn lsn) {
		this.acked.accumulateAndGet(lsn.value(), AckPosition::later);
	}

	/**
	 * Moves the position forward, telling the listener if it moved.
	 * @param lsn the new position
	 * @return {@code true} if it moved
	 */
	boolean advance(Lsn lsn) {
		long previous = this.acked.getAndAccumulate(lsn.value(), AckPosition::later);
		if (Long.compareUnsigned(lsn.value(), previous) > 0) {
			this.listener.acknowledged(lsn);
			return true;
		}
		return false;
	}

	void delivered(Lsn endLsn) {
		advance(endLsn);
	}

	private static long later(long a, long b) {
		return (Long.compareUnsigned(a, b) >= 0) ? a : b;
	}

}
