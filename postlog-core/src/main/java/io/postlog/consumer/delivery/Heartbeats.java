package io.postlog.consumer.delivery;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.heartbeat.Heartbeat;
import io.postlog.heartbeat.HeartbeatMonitor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Recognises heartbeats coming back through the stream and keeps them from every
 * subscription: logical messages with the prefix {@value Heartbeat#PREFIX} (reserved for
 * postlog, whoever wrote them), and the changes of the heartbeat table before PostgreSQL
 * 14. Each heartbeat that can be read is reported to the monitor when delivery reaches
 * it, so that its round trip is the same commit-to-delivery time as a change's. Used on
 * the delivery thread; the monitor is thread-safe.
 * <p>
 * Internal: public only so the consumer can use it; not part of postlog's API.
 */
public final class Heartbeats {

	private static final Logger logger = LoggerFactory.getLogger(Heartbeats.class);

	/** Recognises heartbeat messages and reports them to no monitor. */
	public static final Heartbeats NONE = new Heartbeats(null, null);

	private final @Nullable HeartbeatMonitor monitor;

	private final @Nullable TableId table;

	private final AtomicBoolean monitorWarned = new AtomicBoolean();

	/**
	 * Creates a recogniser.
	 * @param monitor told of each heartbeat and each stream start, or {@code null}
	 * @param table the heartbeat table whose changes are heartbeats, or {@code null} when
	 * heartbeats are messages
	 */
	public Heartbeats(@Nullable HeartbeatMonitor monitor, @Nullable TableId table) {
		this.monitor = monitor;
		this.table = table;
	}

	/**
	 * Returns whether the message is a heartbeat, reporting it if it is one.
	 * @param message a message from the stream
	 * @return {@code true} if no subscription may see it
	 */
	public boolean consume(LogicalMessage message) {
		if (!Heartbeat.PREFIX.equals(message.prefix())) {
			return false;
		}
		HeartbeatMonitor monitor = this.monitor;
		if (monitor != null) {
			Heartbeat.fromMessage(message).ifPresent((beat) -> received(monitor, beat));
		}
		return true;
	}

	/**
	 * Returns whether the change is one of the heartbeat table, reporting it if it holds
	 * a heartbeat.
	 * @param change a change from the stream
	 * @return {@code true} if no subscription may see it
	 */
	public boolean consume(Change change) {
		TableId heartbeatTable = this.table;
		if (heartbeatTable == null || !heartbeatTable.equals(change.table())) {
			return false;
		}
		Row row = change.after();
		HeartbeatMonitor monitor = this.monitor;
		if (monitor != null && row != null) {
			Heartbeat.fromRow(change.table(), heartbeatTable, row).ifPresent((beat) -> received(monitor, beat));
		}
		return true;
	}

	/**
	 * Tells the monitor that a stream started and reports what it reads from now on.
	 */
	public void streamStarted() {
		HeartbeatMonitor monitor = this.monitor;
		if (monitor != null) {
			try {
				monitor.streamStarted(Instant.now());
			}
			catch (RuntimeException ex) {
				// Monitors must not throw; one that does is not allowed to stop delivery.
				monitorFailed(monitor, ex);
			}
		}
	}

	private void received(HeartbeatMonitor monitor, Heartbeat beat) {
		try {
			monitor.received(beat, Instant.now());
		}
		catch (RuntimeException ex) {
			// Monitors must not throw; one that does is not allowed to stop delivery.
			monitorFailed(monitor, ex);
		}
	}

	private void monitorFailed(HeartbeatMonitor monitor, RuntimeException ex) {
		if (this.monitorWarned.compareAndSet(false, true)) {
			logger.warn("Heartbeat monitor {} failed with {}; delivery goes on (further failures are logged at DEBUG)",
					monitor.getClass().getName(), ex.getClass().getName());
		}
		else {
			logger.debug("Heartbeat monitor {} failed with {}", monitor.getClass().getName(), ex.getClass().getName());
		}
	}

}
