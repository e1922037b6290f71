package io.postlog.stream;

import java.nio.ByteBuffer;
import java.time.Duration;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * A started logical replication stream: the protocol the consumer talks to. The server
 * learns the acknowledged position only from {@link #acknowledge(Lsn)} followed by
 * {@link #sendStatus()}; nothing is sent on a timer. One thread at a time may call the
 * reading and status methods (the consumer's reader thread owns the stream);
 * {@link #abort()} may be called from any thread.
 */
public interface LogicalStream extends AutoCloseable {

	/**
	 * Returns the next message's payload (one output plugin message, for pgoutput one
	 * protocol message), waiting at most {@code timeout}. Keepalives are handled inside:
	 * each moves the received position on, and one that asks for a reply is answered with
	 * the acknowledged position, or, while that is behind what was received, without a
	 * flushed position, so that a stopping server's walsender can exit (the slot does not
	 * move). Others are not answered: the owner's {@link #sendStatus()} reports them.
	 * @param timeout the longest time to wait
	 * @return the payload, valid until the next call, or {@code null} if none arrived
	 * @throws io.postlog.admin.ConnectionLostException if the server closed the
	 * connection or it broke
	 * @throws io.postlog.PostlogException if the stream fails otherwise
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
	 * Sends a standby status update now and asks the server to answer it, so that a
	 * healthy connection carries bytes back at least once per call.
	 * @throws io.postlog.admin.ConnectionLostException if the connection broke
	 */
	void sendStatus();

	/**
	 * Returns how many bytes the server has sent on this connection, for telling a silent
	 * connection from one that merely has nothing to stream.
	 * @return the count, or {@code -1} when this stream cannot see its socket
	 */
	default long bytesReceived() {
		return -1;
	}

	/**
	 * Returns the server's {@code wal_sender_timeout}: how long it waits for a status
	 * update before it ends the connection.
	 * @return the timeout, {@link Duration#ZERO} if it is off or unknown
	 */
	default Duration serverTimeout() {
		return Duration.ZERO;
	}

	/**
	 * Returns the consistent point of the temporary slot this stream created, where its
	 * changes begin.
	 * @return the position, or {@link Lsn#INVALID} when the stream created no slot
	 */
	default Lsn createdSlotAt() {
		return Lsn.INVALID;
	}

	/**
	 * Breaks the connection at once, from any thread: a call blocked on the socket then
	 * fails. Used when a call is stuck. Idempotent.
	 */
	void abort();

	/**
	 * Closes the stream and its connection, after a last status update when the
	 * connection is usable. Idempotent.
	 * <p>
	 * A walsender that is writing to the socket as it closes would fail that write and
	 * exit before it read the update, so the connection waits, for a bound, until the
	 * server has closed it. Should the bound pass first (a walsender replaying one large
	 * transaction reads its socket only at the end of it), the server keeps the position
	 * it confirmed before, and what follows it is delivered again (at least once).
	 */
	@Override
	void close();

}
