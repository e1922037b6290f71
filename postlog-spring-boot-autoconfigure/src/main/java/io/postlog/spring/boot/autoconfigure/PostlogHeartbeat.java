package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Writes a small non-transactional logical message ({@code postlog.heartbeat}) at a fixed
 * interval, so that a database without writes still produces WAL the slot can be
 * acknowledged past. Failures are logged, never thrown.
 */
final class PostlogHeartbeat implements SmartLifecycle {

	static final String PREFIX = "postlog.heartbeat";

	private static final Logger logger = LoggerFactory.getLogger(PostlogHeartbeat.class);

	private final JdbcTemplate jdbc;

	private final Duration interval;

	private @Nullable ScheduledExecutorService executor;

	PostlogHeartbeat(DataSource dataSource, Duration interval) {
		this.jdbc = new JdbcTemplate(dataSource);
		this.interval = interval;
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
		try {
			this.jdbc.queryForObject("SELECT pg_logical_emit_message(false, ?, '')", String.class, PREFIX);
		}
		catch (RuntimeException ex) {
			logger.warn("postlog heartbeat failed: {}", ex.getMessage());
		}
	}

	@Override
	public synchronized void stop() {
		if (this.executor != null) {
			this.executor.shutdownNow();
			this.executor = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
