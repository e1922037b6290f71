package io.postlog.stream;

import java.io.IOException;
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
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LogicalStream} over pgjdbc's {@link PGReplicationStream}.
 * <p>
 * <b>Waiting.</b> {@link #read(Duration)} calls {@link PGReplicationStream#readPending()}
 * rather than the blocking {@link PGReplicationStream#read()}, which loops inside pgjdbc
 * until a message arrives and so can honour neither the caller's timeout nor a stop
 * request. An empty {@code readPending()} only asks the socket how many bytes it holds
 * (and waits up to 1 ms in the socket at most once a second), so between empty polls the
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
 * <b>Status.</b> pgjdbc's own status timer is off (interval 0): the owner decides when
 * the server hears from it ({@link #sendStatus()}), and pgjdbc only answers keepalives
 * inside {@code readPending()}, on the owner's thread.
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

	private static final long MIN_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	private final String slotName;

	private final Connection connection;

	private final PGReplicationStream stream;

	private final SocketProbe probe;

	private final Duration serverTimeout;

	private final Lsn createdSlotAt;

	private long lastMessageNanos = System.nanoTime() - BUSY_WINDOW_NANOS;

	private Lsn acknowledged = Lsn.INVALID;

	private volatile boolean closed;

	private volatile boolean aborted;

	PgLogicalStream(String slotName, Connection connection, PGReplicationStream stream, SocketProbe probe,
			Duration serverTimeout, Lsn createdSlotAt) {
		this.slotName = slotName;
		this.connection = connection;
		this.stream = stream;
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
		checkUsable();
		ByteBuffer payload;
		try {
			payload = this.stream.readPending();
		}
		catch (SQLException ex) {
			throw failure("Replication stream from slot '" + this.slotName + "' failed", ex);
		}
		if (payload == null) {
			if (this.probe.endOfStream()) {
				throw new ConnectionLostException(
						"The server closed the replication connection of slot '" + this.slotName + "'", null);
			}
			if (this.stream.isClosed()) {
				throw new ConnectionLostException(
						"The server ended the replication stream of slot '" + this.slotName + "'", null);
			}
		}
		return payload;
	}

	@Override
	public Lsn lastReceiveLsn() {
		return Lsn.of(this.stream.getLastReceiveLSN().asLong());
	}

	@Override
	public void acknowledge(Lsn lsn) {
		if (!lsn.isAfter(this.acknowledged)) {
			return;
		}
		this.acknowledged = lsn;
		LogSequenceNumber position = LogSequenceNumber.valueOf(lsn.value());
		this.stream.setAppliedLSN(position);
		this.stream.setFlushedLSN(position);
	}

	@Override
	public void sendStatus() {
		checkUsable();
		try {
			this.stream.forceUpdateStatus();
		}
		catch (SQLException ex) {
			throw failure("Could not send a standby status update for slot '" + this.slotName + "'", ex);
		}
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
	 * Sends a last status update (best effort), then closes the connection without
	 * draining the stream: ending COPY first would make pgjdbc read whatever the server
	 * still sends, which can take long on a busy slot or hang on a dead one.
	 */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		try {
			if (!this.aborted && this.acknowledged.isValid() && !this.stream.isClosed() && !this.probe.endOfStream()) {
				this.stream.forceUpdateStatus();
			}
		}
		catch (SQLException | RuntimeException ex) {
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
	}

}
