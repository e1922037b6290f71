package io.postlog.consumer.delivery;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.jspecify.annotations.Nullable;

/**
 * What the acknowledgement window marks on one subscription: the position it holds for
 * the subscription while that is not running, and the acknowledgements it handed out that
 * are not given yet. Owned by the subscription's control, written by the window;
 * thread-safe.
 * <p>
 * Internal: public only so the consumer can use it; not part of postlog's API, and it may
 * change in any release.
 *
 * @param <P> what an outstanding acknowledgement is described by
 */
public final class WindowMarks<P> {

	/** The hold, {@code -1} (an LSN never used) while there is none. */
	private volatile long hold = -1;

	private final ConcurrentLinkedQueue<P> outstanding = new ConcurrentLinkedQueue<>();

	/**
	 * Returns the held position.
	 * @return the LSN, or {@code -1} while nothing is held
	 */
	public long hold() {
		return this.hold;
	}

	/** Called by the window, under its lock. */
	void held(long lsn) {
		this.hold = lsn;
	}

	/** Called once the window released the hold. */
	public void released() {
		this.hold = -1;
	}

	/**
	 * Records an acknowledgement handed out.
	 * @param pending what it is for
	 */
	void handedOut(P pending) {
		this.outstanding.add(pending);
	}

	/**
	 * Records an acknowledgement given.
	 * @param pending what it was for
	 */
	void acknowledged(P pending) {
		Iterator<P> iterator = this.outstanding.iterator();
		while (iterator.hasNext()) {
			if (iterator.next() == pending) {
				iterator.remove();
				return;
			}
		}
	}

	/**
	 * Returns the oldest acknowledgement handed out and not given.
	 * @return it, or {@code null} when none is outstanding
	 */
	public @Nullable P oldest() {
		return this.outstanding.peek();
	}

}
