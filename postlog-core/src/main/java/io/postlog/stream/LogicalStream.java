package io.postlog.stream;

import java.nio.ByteBuffer;
import java.time.Duration;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * A started logical replication stream: the protocol the consumer talks to. Keepalives
 * are answered inside; the server learns the acknowledged position only from
 * {@link #acknowledge(Lsn)}. One thread at a time may use a stream (the consumer's reader
 * thread owns it).
 */
public interface LogicalStream extends AutoCloseable {

	/**
	 * Returns the next message's payload (one output plugin message, for pgoutput one
	 * protocol message), waiting at most {@code timeout}; sends a standby status update
	 * whenever the status interval has passed, while waiting too.
	 * @param timeout the longest time to wait
	 * @return the payload, valid until the next call, or {@code null} if none arrived
	 * @throws io.postlog.PostlogException if the connection fails
	 */
	@Nullable ByteBuffer read(Duration timeout);

	/**
	 * Returns the WAL start of the last message read, or the server's position from its
	 * latest keepalive when that is later.
	 * @return the last received position
	 */
	Lsn lastReceiveLsn();

	/**
	 * Sets the position reported to the server as flushed and applied, from the next
	 * status update on. Never moves backwards.
	 * @param lsn the acknowledged position
	 */
	void acknowledge(Lsn lsn);

	/**
	 * Sends a standby status update now.
	 * @throws io.postlog.PostlogException if the connection fails
	 */
	void sendStatus();

	/**
	 * Closes the stream and its connection. Idempotent.
	 */
	@Override
	void close();

}
