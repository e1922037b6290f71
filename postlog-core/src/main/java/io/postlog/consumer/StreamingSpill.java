package io.postlog.consumer;

import io.postlog.consumer.spill.StreamedTransactions;
import org.jspecify.annotations.Nullable;

/**
 * A consumer's spill files of streamed transactions across its sessions: the bytes on
 * disk now (those of the current session's {@link StreamedTransactions}) and the bytes
 * ever written (closed sessions' and the current one's). Tells the
 * {@link ConsumerListener} when either moved. The reader thread of the session reports;
 * any thread may read. Thread-safe.
 */
final class StreamingSpill {

	private final ConsumerListener listener;

	private @Nullable StreamedTransactions current;

	private long closedTotal;

	private long reportedBytes;

	private long reportedTotal;

	StreamingSpill(ConsumerListener listener) {
		this.listener = listener;
	}

	synchronized void sessionStarted(StreamedTransactions streams) {
		this.current = streams;
	}

	/**
	 * Counts a closed session's spill into the total; its files are gone.
	 * @param streams the session's streamed transactions, closed
	 */
	void sessionEnded(StreamedTransactions streams) {
		synchronized (this) {
			if (this.current == streams) {
				this.current = null;
			}
			this.closedTotal += streams.spilledBytesTotal();
		}
		changed();
	}

	/**
	 * Returns the bytes of spill files on disk now.
	 * @return the bytes
	 */
	synchronized long bytes() {
		StreamedTransactions streams = this.current;
		return (streams != null) ? streams.spilledBytes() : 0;
	}

	/**
	 * Returns the bytes ever written to spill files, all sessions together.
	 * @return the bytes
	 */
	synchronized long totalBytes() {
		StreamedTransactions streams = this.current;
		return this.closedTotal + ((streams != null) ? streams.spilledBytesTotal() : 0);
	}

	/**
	 * Tells the listener if the spill moved since it last heard; called by the reader
	 * thread after a stream block, an abort or a replay.
	 */
	void changed() {
		long bytes;
		long total;
		synchronized (this) {
			bytes = bytes();
			total = totalBytes();
			if (bytes == this.reportedBytes && total == this.reportedTotal) {
				return;
			}
			this.reportedBytes = bytes;
			this.reportedTotal = total;
		}
		this.listener.spilled(bytes, total);
	}

}
