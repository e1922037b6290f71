package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

import io.postlog.spring.PostlogListenerRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.util.unit.DataSize;

/**
 * Health indicator settings. Bound under {@code postlog.health}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogHealthProperties {

	/**
	 * Slot lag above which the health indicator reports DOWN; unset for no limit.
	 */
	private @Nullable DataSize maxLag;

	/**
	 * WAL the slot may make the server keep (from its restart_lsn to the current
	 * position) before the health indicator reports DOWN; unset for no limit.
	 */
	private @Nullable DataSize maxRetained;

	/**
	 * Share of max_slot_wal_keep_size the slot may retain before the health indicator
	 * reports DOWN, so that it warns before the server invalidates the slot.
	 */
	private double maxRetainedRatio = 0.5;

	/**
	 * What the application's readiness follows: 'started' refuses traffic until every
	 * group first streams, then accepts it; 'delivering' also refuses it while a group is
	 * not delivering or a listener is stopped by its error handler. Liveness never
	 * depends on postlog.
	 */
	private PostlogListenerRegistry.Readiness readiness = PostlogListenerRegistry.Readiness.STARTED;

	public PostlogListenerRegistry.Readiness getReadiness() {
		return this.readiness;
	}

	public void setReadiness(PostlogListenerRegistry.Readiness readiness) {
		this.readiness = readiness;
	}

	/**
	 * How often a background thread reads each slot and the server for health, the
	 * endpoint and the meters, which never read the server themselves.
	 */
	private Duration pollInterval = Duration.ofSeconds(5);

	public @Nullable DataSize getMaxLag() {
		return this.maxLag;
	}

	public void setMaxLag(@Nullable DataSize maxLag) {
		this.maxLag = maxLag;
	}

	public @Nullable DataSize getMaxRetained() {
		return this.maxRetained;
	}

	public void setMaxRetained(@Nullable DataSize maxRetained) {
		this.maxRetained = maxRetained;
	}

	public double getMaxRetainedRatio() {
		return this.maxRetainedRatio;
	}

	public void setMaxRetainedRatio(double maxRetainedRatio) {
		this.maxRetainedRatio = maxRetainedRatio;
	}

	public Duration getPollInterval() {
		return this.pollInterval;
	}

	public void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

}
