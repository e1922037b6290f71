package io.postlog.stream;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.admin.ConnectionLostException;
import io.postlog.admin.PgErrors;
import org.jspecify.annotations.Nullable;
import org.postgresql.copy.CopyDual;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LogicalStream} over the streaming replication protocol's messages, read and
 * written by hand on pgjdbc's {@link CopyDual} ({@code XLogData}, primary keepalive and
 * standby status update, as the PostgreSQL docs' "Streaming Replication Protocol" names
 * them).
 * <p>
 * <b>Waiting.</b> {@link #read(Duration)} reads without blocking
 * ({@code readFromCopy(false)}), which only asks the socket how many bytes it holds (and
 * waits up to 1 ms in the socket at most once a second), so between empty polls the
 * stream waits in the socket itself through its {@link SocketProbe}, for the caller's
 * timeout at most (in whole milliseconds, rounded up): the first byte of the next message
 * wakes it, as a blocking read would, and the message is then read at once. Where it
 * cannot (a TLS connection, whose bytes pgjdbc's non-blocking read only sees once
 * decrypted, and whose socket pgjdbc checks at most once a second after finding nothing)
 * it polls: it parks {@link #BUSY_PARK_NANOS} between empty polls while messages flow
 * (within {@link #BUSY_WINDOW_NANOS} of the last one), which lets the socket fill instead
 * of spinning a core against the walsender, and after that doubles the park from 1 ms up
 * to {@link #MAX_PARK_NANOS}.
 * <p>
 * <b>Status.</b> The owner decides when the server hears its acknowledged position
 * ({@link #sendStatus()}); inside {@link #read} a keepalive that asks for a reply is
 * answered at once, with the last received position as written and the acknowledged
 * position as flushed and applied. One that does not ask only moves the received position
 * on, which the owner's next status reports, as pgjdbc's own stream and
 * {@code pg_recvlogical} do: a walsender sends such a keepalive whenever it goes to wait
 * for WAL while the client's reported positions are behind what it sent, that is after
 * nearly every transaction of a busy stream, so answering each would cost a write here
 * and a wake-up of the walsender per transaction. The owner's regular status (within
 * {@code wal_sender_timeout}) keeps the walsender from asking.
 * <p>
 * <b>A server that shuts down is not held.</b> A walsender asked to stop (any shutdown
 * mode but {@code immediate}) sends everything it has, then waits in {@code WalSndDone}
 * until the client's reported position equals what it sent: the flushed position if
 * valid, else the written one. It asks for a reply with a keepalive and, while waiting,
 * never times out, since the client keeps answering. Were the acknowledged position
 * reported as flushed, the walsender, and with it the server's shutdown (which refuses
 * every connection meanwhile), would wait until every listener finished and acknowledged.
 * So a keepalive that asks for a reply while work is unacknowledged (the acknowledged
 * position is behind what was received) is answered with everything received as written
 * and an invalid flushed and applied position, as {@code pg_receivewal} reports: the
 * walsender exits at once, and the slot keeps its confirmed position, since a logical
 * slot moves only on a valid flushed position ({@code ProcessStandbyReplyMessage}), so
 * the unacknowledged work is delivered again after the restart (at least once; nothing is
 * lost). A walsender that is not stopping asks for a reply only after hearing nothing for
 * half of {@code wal_sender_timeout}, which the owner's regular status prevents; should
 * it happen, the answer moves nothing and the next status reports the acknowledged
 * position again (meanwhile {@code pg_stat_replication.flush_lsn} shows null and a
 * walsender named in {@code synchronous_standby_names} does not count as synchronous).
 * <p>
 * The bound: the keepalive is answered as soon as the owner reads the stream, which the
 * consumer's reader does within its poll unless its read-ahead is full (then the shutdown
 * waits until the delivery thread makes room). {@code ServerShutdownIntegrationTests}
 * measured {@code pg_ctl stop -m fast} at 0.1 to 0.4 s on PostgreSQL 10, 17 and 18 while
 * a listener slept, wrote to the stopping server or held an acknowledgement, and asserts
 * under 5 s.
 * <p>
 * <b>A closed connection.</b> pgjdbc takes the end of the socket's stream for "no data
 * yet"; the {@link SocketProbe} under the connection sees it, and {@link #read} then
 * fails with {@link ConnectionLostException} at once.
 */
final class PgLogicalStream implements LogicalStream {

	private static final Logger logger = LoggerFactory.getLogger(PgLogicalStream.class);

	static final long BUSY_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

	/**
	 * The park between empty polls while messages flow. pgjdbc's {@code readPending()}
	 * only asks the socket how many bytes it holds, so polling again at once would spin a
	 * core against the walsender.
	 */
	static final long BUSY_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

	/**
	 * The longest {@link #close()} waits for the server to close the connection after the
	 * final status update. A walsender reads it when it next looks at its socket, between
	 * WAL records or while waiting, unless it is replaying one large transaction. Short
	 * enough to fit the consumer's stop grace.
	 */
	static final Duration CLOSE_LINGER = Duration.ofMillis(400);

	private static final long MIN_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/** {@code XLogData}'s start, end and send time, before its payload. */
	private static final int XLOG_DATA_HEADER = 24;

	/** A primary keepalive's end position, send time and reply request. */
	private static final int KEEPALIVE_BODY = 17;

	private static final int STATUS_UPDATE_BYTES = 1 + 8 + 8 + 8 + 8 + 1;

	/** 2000-01-01T00:00:00Z, where the protocol's clock starts. */
	private static final long POSTGRES_EPOCH_MILLIS = 946_684_800_000L;

	private final String slotName;

	private final Connection connection;

	private final CopyDual copy;

	private final SocketProbe probe;

	private final Duration serverTimeout;

	private final Lsn createdSlotAt;

	private long lastMessageNanos = System.nanoTime() - BUSY_WINDOW_NANOS;

	private volatile Lsn received;

	private Lsn acknowledged = Lsn.INVALID;

	private volatile boolean closed;

	private volatile boolean aborted;

	PgLogicalStream(String slotName, Connection connection, CopyDual copy, Lsn startLsn, SocketProbe probe,
			Duration serverTimeout, Lsn createdSlotAt) {
		this.slotName = slotName;
		this.connection = connection;
		this.copy = copy;
		this.received = startLsn;
		this.probe = probe;
		this.serverTimeout = serverTimeout;
		this.createdSlotAt = createdSlotAt;
	}

	@Override
	public @Nullable ByteBuffer read(Duration timeout) {
		long deadline = System.nanoTime() + Math.max(0, timeout.toNanos());
		long park = MIN_PARK_NANOS;
		while (true) {
			ByteBuffer payload = readPending();
			long now = System.nanoTime();
			if (payload != null) {
				this.lastMessageNanos = now;
				return payload;
			}
			long remaining = deadline - now;
			if (remaining <= 0 || Thread.currentThread().isInterrupted()) {
				return null;
			}
			if (this.probe.attached() && !this.probe.holdsUnread()) {
				awaitReadable(remaining);
			}
			else if (now - this.lastMessageNanos >= BUSY_WINDOW_NANOS) {
				LockSupport.parkNanos(Math.min(remaining, park));
				park = Math.min(MAX_PARK_NANOS, park * 2);
			}
			else {
				LockSupport.parkNanos(Math.min(remaining, BUSY_PARK_NANOS));
			}
		}
	}

	private void awaitReadable(long nanos) {
		// The socket's timeout is in whole milliseconds: a shorter wait is rounded up.
		long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos + TimeUnit.MILLISECONDS.toNanos(1) - 1));
		try {
			this.probe.awaitReadable((int) Math.min(Integer.MAX_VALUE, millis));
		}
		catch (IOException ex) {
			if (this.aborted) {
				throw new ConnectionLostException(
						"The replication connection of slot '" + this.slotName + "' was broken off", ex);
			}
			throw new ConnectionLostException(
					"The replication connection of slot '" + this.slotName + "' failed: " + ex.getClass().getName(),
					ex);
		}
	}

	private @Nullable ByteBuffer readPending() {
		while (true) {
			checkUsable();
			byte[] message = readMessage();
			if (message == null) {
				if (this.probe.endOfStream()) {
					throw new ConnectionLostException(
							"The server closed the replication connection of slot '" + this.slotName + "'", null);
				}
				if (!this.copy.isActive()) {
					throw new ConnectionLostException(
							"The server ended the replication stream of slot '" + this.slotName + "'", null);
				}
				return null;
			}
			ByteBuffer buffer = ByteBuffer.wrap(message);
			byte tag = (message.length > 0) ? buffer.get() : 0;
			if (tag == 'w' && buffer.remaining() >= XLOG_DATA_HEADER) {
				this.received = Lsn.of(buffer.getLong());
				buffer.position(1 + XLOG_DATA_HEADER);
				return buffer.slice();
			}
			if (tag == 'k' && buffer.remaining() >= KEEPALIVE_BODY) {
				answerKeepalive(Lsn.of(buffer.getLong()), buffer.get(1 + 16) != 0);
				continue;
			}
			throw new PostlogException("Replication stream from slot '" + this.slotName + "' sent a message of "
					+ message.length + " bytes with tag " + (tag & 0xff)
					+ ", neither XLogData ('w') nor a primary keepalive ('k')");
		}
	}

	private byte @Nullable [] readMessage() {
		try {
			return this.copy.readFromCopy(false);
		}
		catch (SQLException ex) {
			if (ex.getCause() instanceof SocketTimeoutException) {
				return null;
			}
			throw failure("Replication stream from slot '" + this.slotName + "' failed", ex);
		}
	}

	/**
	 * Answers a primary keepalive: {@code walEnd} is the walsender's sent position. See
	 * the class comment for the answer that lets a stopping server go.
	 */
	private void answerKeepalive(Lsn walEnd, boolean replyRequested) {
		if (walEnd.isAfter(this.received)) {
			this.received = walEnd;
		}
		if (!replyRequested) {
			return;
		}
		if (this.acknowledged.isBefore(this.received)) {
			logger.debug(
					"Slot '{}': the server asks for a reply while {} is acknowledged and {} received; reporting "
							+ "{} as written and nothing as flushed, so that a stopping walsender can exit",
					this.slotName, this.acknowledged, this.received, this.received);
			writeStatus(Lsn.INVALID, false);
			return;
		}
		writeStatus(this.acknowledged, false);
	}

	/**
	 * Writes a standby status update: the received position as written, {@code flushed}
	 * as flushed and applied.
	 */
	private void writeStatus(Lsn flushed, boolean replyRequested) {
		ByteBuffer status = ByteBuffer.allocate(STATUS_UPDATE_BYTES);
		status.put((byte) 'r');
		status.putLong(this.received.value());
		status.putLong(flushed.value());
		status.putLong(flushed.value());
		status.putLong(TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis() - POSTGRES_EPOCH_MILLIS));
		status.put((byte) ((replyRequested || !this.received.isValid()) ? 1 : 0));
		try {
			this.copy.writeToCopy(status.array(), 0, STATUS_UPDATE_BYTES);
			this.copy.flushCopy();
		}
		catch (SQLException ex) {
			throw failure("Could not send a standby status update for slot '" + this.slotName + "'", ex);
		}
	}

	@Override
	public Lsn lastReceiveLsn() {
		return this.received;
	}

	@Override
	public void acknowledge(Lsn lsn) {
		if (lsn.isAfter(this.acknowledged)) {
			this.acknowledged = lsn;
		}
	}

	@Override
	public void sendStatus() {
		checkUsable();
		writeStatus(this.acknowledged, true);
	}

	@Override
	public long bytesReceived() {
		return this.probe.attached() ? this.probe.bytesReceived() : -1;
	}

	@Override
	public Duration serverTimeout() {
		return this.serverTimeout;
	}

	@Override
	public Lsn createdSlotAt() {
		return this.createdSlotAt;
	}

	private void checkUsable() {
		if (this.aborted) {
			throw new ConnectionLostException(
					"The replication connection of slot '" + this.slotName + "' was broken off", null);
		}
		if (this.closed) {
			throw new PostlogException("Replication stream from slot '" + this.slotName + "' is closed");
		}
	}

	private PostlogException failure(String message, SQLException ex) {
		if (this.aborted) {
			return new ConnectionLostException(
					"The replication connection of slot '" + this.slotName + "' was broken off", ex);
		}
		return PgErrors.translateReplication(ex, this.slotName, true, message);
	}

	@Override
	public void abort() {
		if (this.aborted || this.closed) {
			return;
		}
		this.aborted = true;
		try {
			this.connection.abort(Runnable::run);
		}
		catch (SQLException | RuntimeException ex) {
			logger.debug("Aborting the replication connection of slot '{}' failed", this.slotName, ex);
		}
	}

	/**
	 * Sends a last status update, then closes the connection without ending COPY: that
	 * would make pgjdbc read, and keep in memory, whatever the server still sends, which
	 * can take long on a busy slot or hang on a dead one. The socket instead
	 * {@link SocketProbe#lingerOnClose lingers} for at most {@link #CLOSE_LINGER} until
	 * the walsender, which reads the update and pgjdbc's {@code Terminate} in order, has
	 * exited; what it sends meanwhile is discarded.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		boolean lingered = false;
		long started = System.nanoTime();
		try {
			if (!this.aborted && this.acknowledged.isValid() && this.copy.isActive() && !this.probe.endOfStream()) {
				writeStatus(this.acknowledged, true);
				lingered = this.probe.lingerOnClose(CLOSE_LINGER);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Final status update for slot '{}' failed", this.slotName, ex);
		}
		finally {
			try {
				this.connection.close();
			}
			catch (SQLException | RuntimeException ex) {
				logger.debug("Closing the replication connection for slot '{}' failed", this.slotName, ex);
			}
			this.probe.close();
		}
		if (!lingered) {
			return;
		}
		IOException failure = this.probe.lingerFailure();
		String ending = (failure != null) ? " (" + failure.getClass().getName() + ": " + failure.getMessage() + ")"
				: "";
		if (!this.probe.closedByServer()) {
			logger.debug("Slot '{}': the server did not close the replication connection within {} ms of the final "
					+ "status update ({}){}; if it did not read it, what follows the position it confirmed before is "
					+ "delivered again", this.slotName, CLOSE_LINGER.toMillis(), this.acknowledged, ending);
		}
		else {
			logger.trace(
					"Slot '{}': the server closed the replication connection {} µs after the final status update{}",
					this.slotName, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - started), ending);
		}
	}

}
