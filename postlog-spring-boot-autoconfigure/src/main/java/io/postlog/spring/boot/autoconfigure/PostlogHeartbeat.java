package io.postlog.spring.boot.autoconfigure;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.postlog.PostlogException;
import io.postlog.heartbeat.Heartbeat;
import io.postlog.heartbeat.HeartbeatMonitor;
import io.postlog.heartbeat.HeartbeatWriter;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Writes a heartbeat at a fixed interval ({@link HeartbeatWriter}: a non-transactional
 * logical message on PostgreSQL 14+, an update of the heartbeat table before), so that a
 * database without writes still produces WAL the slot can be acknowledged past, and tells
 * the {@link HeartbeatMonitor} each one it wrote. Failures are logged, never thrown. Its
 * thread is named, a daemon, and joined on stop.
 */
final class PostlogHeartbeat implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(PostlogHeartbeat.class);

	private final DataSource dataSource;

	private final Duration interval;

	private final HeartbeatWriter writer;

	private final HeartbeatMonitor monitor;

	private @Nullable ScheduledExecutorService executor;

	PostlogHeartbeat(DataSource dataSource, Duration interval, HeartbeatWriter writer, HeartbeatMonitor monitor) {
		this.dataSource = dataSource;
		this.interval = interval;
		this.writer = writer;
		this.monitor = monitor;
	}

	@Override
	public synchronized void start() {
		ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "postlog-heartbeat");
			thread.setDaemon(true);
			return thread;
		});
		long millis = Math.max(1, this.interval.toMillis());
		executor.scheduleWithFixedDelay(this::beat, millis, millis, TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	void beat() {
		try (Connection connection = this.dataSource.getConnection()) {
			Heartbeat heartbeat = this.writer.write(connection);
			this.monitor.emitted(heartbeat);
		}
		catch (SQLException | PostlogException ex) {
			logger.warn("postlog heartbeat failed: {}", ex.getMessage());
		}
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService executor = this.executor;
		if (executor == null) {
			return;
		}
		this.executor = null;
		executor.shutdownNow();
		try {
			if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
				logger.warn("postlog heartbeat thread did not stop within 10s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
