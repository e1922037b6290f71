package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * Back-off between attempts to reach the server again after the replication connection is
 * lost, or while another process holds the slot; reconnecting never gives up and uses
 * none of a listener's attempts. The default (100 ms, doubling, at most 5 s) tries a
 * restart or failover often in its first seconds and then about every 5 s, so streaming
 * resumes at most about 5 s after the server accepts connections again. Bound under
 * {@code postlog.reconnect}, a group of {@link PostlogProperties}; not thread-safe, bound
 * once at start-up.
 */
public class PostlogReconnectProperties {

	/**
	 * Wait after the connection is lost, before the first attempt.
	 */
	private Duration initialInterval = Duration.ofMillis(100);

	/**
	 * Factor each further wait grows by.
	 */
	private double multiplier = 2;

	/**
	 * Longest wait between attempts; bounds how long streaming stays stopped after the
	 * server is back.
	 */
	private Duration maxInterval = Duration.ofSeconds(5);

	public Duration getInitialInterval() {
		return this.initialInterval;
	}

	public void setInitialInterval(Duration initialInterval) {
		this.initialInterval = initialInterval;
	}

	public double getMultiplier() {
		return this.multiplier;
	}

	public void setMultiplier(double multiplier) {
		this.multiplier = multiplier;
	}

	public Duration getMaxInterval() {
		return this.maxInterval;
	}

	public void setMaxInterval(Duration maxInterval) {
		this.maxInterval = maxInterval;
	}

}
