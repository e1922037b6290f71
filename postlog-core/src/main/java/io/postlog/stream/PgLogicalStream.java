package io.postlog.stream;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link LogicalStream} over pgjdbc's {@link PGReplicationStream}.
 * <p>
 * <b>Waiting.</b> {@link #read(Duration)} polls {@link PGReplicationStream#readPending()}
 * and parks between empty polls, rather than calling the blocking
 * {@link PGReplicationStream#read()}. The blocking read loops inside pgjdbc until a
 * message arrives, so it can honour neither the caller's timeout nor a stop request, and
 * it holds the connection for the whole wait, which would keep the status timer below off
 * it; pgjdbc 42.7.11 to 42.7.13 are also reported to lose the COPY when its
 * status-interval socket timeout fires on an idle slot ("Tried to write to an inactive
 * copy operation"; this did not reproduce in postlog's own runs of 42.7.11 and 42.7.14).
 * An empty {@code readPending()} waits up to 1 ms in the socket at most once a second;
 * otherwise it only asks the socket how many bytes it holds. While messages flow (within
 * {@link #BUSY_WINDOW_NANOS} of the last one) the stream parks {@link #BUSY_PARK_NANOS}
 * between empty polls, which lets the socket fill (so the next read gets a full buffer)
 * instead of spinning a core against the walsender; after that the park doubles from 1 ms
 * up to {@link #MAX_PARK_NANOS}, so an idle stream wakes about fifty times a second (a
 * few per cent of one core) and the first commit after a quiet spell is read at most
 * about 20 ms later.
 * <p>
 * <b>Status updates.</b> pgjdbc sends a standby status update from inside
 * {@code readPending()} whenever the status interval has passed. When the owner does not
 * call {@link #read} or {@link #sendStatus} for a whole interval (for example while its
 * hand-off queue is full), a shared daemon timer sends the update instead, so the
 * server's {@code wal_sender_timeout} never ends the connection of a consumer that is
 * merely slow. A failure of such an update is raised by the next call.
 * <p>
 * One thread at a time may call the reading methods; an internal lock keeps the timer off
 * the connection while they run.
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

	private static final ScheduledThreadPoolExecutor statusTimer = statusTimer();

	private final String slotName;

	private final Connection connection;

	private final PGReplicationStream stream;

	private final long statusIntervalNanos;

	private final ReentrantLock lock = new ReentrantLock();

	private final @Nullable ScheduledFuture<?> statusTask;

	private volatile long lastStreamCallNanos = System.nanoTime();

	private long lastMessageNanos = System.nanoTime() - BUSY_WINDOW_NANOS;

	private volatile Lsn acknowledged = Lsn.INVALID;

	private volatile @Nullable SQLException timerFailure;

	private volatile boolean closed;

	PgLogicalStream(String slotName, Connection connection, PGReplicationStream stream, Duration statusInterval) {
		this.slotName = slotName;
		this.connection = connection;
		this.stream = stream;
		this.statusIntervalNanos = statusInterval.toNanos();
		if (this.statusIntervalNanos > 0) {
			long period = Math.max(TimeUnit.MILLISECONDS.toNanos(100), this.statusIntervalNanos / 4);
			this.statusTask = statusTimer.scheduleWithFixedDelay(this::sendStatusIfIdle, period, period,
					TimeUnit.NANOSECONDS);
		}
		else {
			this.statusTask = null;
		}
	}

	private static ScheduledThreadPoolExecutor statusTimer() {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (runnable) -> {
			Thread thread = new Thread(runnable, "postlog-standby-status");
			thread.setDaemon(true);
			return thread;
		});
		timer.setRemoveOnCancelPolicy(true);
		return timer;
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
			if (now - this.lastMessageNanos >= BUSY_WINDOW_NANOS) {
				LockSupport.parkNanos(Math.min(remaining, park));
				park = Math.min(MAX_PARK_NANOS, park * 2);
			}
			else {
				LockSupport.parkNanos(Math.min(remaining, BUSY_PARK_NANOS));
			}
		}
	}

	private @Nullable ByteBuffer readPending() {
		this.lock.lock();
		try {
			checkUsable();
			this.lastStreamCallNanos = System.nanoTime();
			return this.stream.readPending();
		}
		catch (SQLException ex) {
			throw failure("Replication stream from slot '" + this.slotName + "' failed", ex);
		}
		finally {
			this.lock.unlock();
		}
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
		this.lock.lock();
		try {
			checkUsable();
			this.lastStreamCallNanos = System.nanoTime();
			this.stream.forceUpdateStatus();
		}
		catch (SQLException ex) {
			throw failure("Could not send a standby status update for slot '" + this.slotName + "'", ex);
		}
		finally {
			this.lock.unlock();
		}
	}

	private void sendStatusIfIdle() {
		if (this.closed || this.timerFailure != null
				|| System.nanoTime() - this.lastStreamCallNanos < this.statusIntervalNanos || !this.lock.tryLock()) {
			return;
		}
		try {
			if (!this.closed) {
				this.lastStreamCallNanos = System.nanoTime();
				this.stream.forceUpdateStatus();
			}
		}
		catch (SQLException ex) {
			this.timerFailure = ex;
		}
		catch (RuntimeException ex) {
			logger.debug("Standby status update for slot '{}' failed", this.slotName, ex);
		}
		finally {
			this.lock.unlock();
		}
	}

	private void checkUsable() throws SQLException {
		if (this.closed) {
			throw new PostlogException("Replication stream from slot '" + this.slotName + "' is closed");
		}
		SQLException failure = this.timerFailure;
		if (failure != null) {
			throw failure;
		}
	}

	private PostlogException failure(String message, SQLException ex) {
		return PgLogicalStreamFactory.translate(ex, this.slotName, message);
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
		if (this.statusTask != null) {
			this.statusTask.cancel(false);
		}
		this.lock.lock();
		try {
			if (this.closed) {
				return;
			}
			this.closed = true;
			if (this.acknowledged.isValid() && this.timerFailure == null && !this.stream.isClosed()) {
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
			this.lock.unlock();
		}
	}

}
