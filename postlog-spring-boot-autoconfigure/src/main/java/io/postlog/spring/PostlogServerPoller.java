package io.postlog.spring;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;

/**
 * Reads the slots and the server for health, the endpoint and the meters on one daemon
 * thread of its own ({@code postlog-server-poller}), every
 * {@code postlog.health.poll-interval} and whenever a caller finds a
 * {@link PostlogSlotMonitor}'s reading stale, so that no caller ever waits on the server.
 * A reading that fails is kept as the monitor's latest, with its cause; it is logged and
 * counted, never thrown. One per application; started and stopped with the application
 * context. Thread-safe.
 */
public final class PostlogServerPoller implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(PostlogServerPoller.class);

	private final Duration interval;

	private final List<PostlogSlotMonitor> monitors = new CopyOnWriteArrayList<>();

	private volatile @Nullable ScheduledExecutorService executor;

	/**
	 * Creates a poller.
	 * @param interval how often every monitor reads the server
	 */
	public PostlogServerPoller(Duration interval) {
		if (interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("postlog.health.poll-interval must be positive but was " + interval);
		}
		this.interval = interval;
	}

	/**
	 * Returns how often every monitor reads the server.
	 * @return the interval
	 */
	public Duration interval() {
		return this.interval;
	}

	void watch(PostlogSlotMonitor monitor) {
		this.monitors.add(monitor);
		request(monitor);
	}

	/**
	 * Asks for a reading of the monitor soon, on the poller's thread.
	 * @return whether a reading was scheduled (not when the poller does not run or one is
	 * scheduled or running already)
	 */
	boolean request(PostlogSlotMonitor monitor) {
		ScheduledExecutorService executor = this.executor;
		if (executor == null || !monitor.claimRefresh()) {
			return false;
		}
		try {
			executor.execute(() -> refresh(monitor));
			return true;
		}
		catch (RejectedExecutionException ex) {
			monitor.releaseRefresh();
			logger.debug("Server poller stopped; no reading of slot '{}'", monitor.slotName());
			return false;
		}
	}

	private void pollAll() {
		for (PostlogSlotMonitor monitor : this.monitors) {
			if (monitor.claimRefresh()) {
				refresh(monitor);
			}
		}
	}

	private static void refresh(PostlogSlotMonitor monitor) {
		try {
			monitor.refresh();
		}
		catch (RuntimeException ex) {
			// refresh() keeps its own failures; anything else must not end the thread.
			logger.warn("Reading slot '{}' failed unexpectedly: {}", monitor.slotName(), ex.getClass().getName());
		}
		finally {
			monitor.releaseRefresh();
		}
	}

	@Override
	public void start() {
		if (this.executor != null) {
			return;
		}
		ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "postlog-server-poller");
			thread.setDaemon(true);
			return thread;
		});
		executor.setRemoveOnCancelPolicy(true);
		long millis = this.interval.toMillis();
		executor.scheduleWithFixedDelay(this::pollAll, 0, millis, TimeUnit.MILLISECONDS);
		this.executor = executor;
	}

	@Override
	public void stop() {
		ScheduledExecutorService executor = this.executor;
		this.executor = null;
		if (executor != null) {
			executor.shutdownNow();
		}
	}

	@Override
	public boolean isRunning() {
		return this.executor != null;
	}

	@Override
	public int getPhase() {
		// Before the listener registry (and every default-phase bean) starts, and
		// stopped after them.
		return Integer.MIN_VALUE + 1000;
	}

}
