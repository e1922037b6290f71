package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * Back-off for failed listeners; lost connections use postlog.reconnect. Bound under
 * {@code postlog.retry}, a group of {@link PostlogProperties}; not thread-safe, bound
 * once at start-up.
 */
public class PostlogRetryProperties {

	/**
	 * Wait after the first failure.
	 */
	private Duration initialInterval = Duration.ofMillis(500);

	/**
	 * Factor each further wait grows by.
	 */
	private double multiplier = 2;

	/**
	 * Longest wait between attempts.
	 */
	private Duration maxInterval = Duration.ofSeconds(30);

	/**
	 * Most deliveries of one transaction, the first included; -1 retries forever.
	 */
	private int maxAttempts = 10;

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

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

}
