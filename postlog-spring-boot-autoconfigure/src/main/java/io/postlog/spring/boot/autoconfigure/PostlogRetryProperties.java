package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * Back-off for failed listeners; lost connections use postlog.reconnect. Bound under
 * {@code postlog.retry}, a group of {@link PostlogProperties}; not thread-safe, bound
 * once at start-up.
 */
public class PostlogRetryProperties extends PostlogBackOffProperties {

	/**
	 * Most deliveries of one transaction, the first included; -1 retries forever.
	 */
	private int maxAttempts = 10;

	public PostlogRetryProperties() {
		super(Duration.ofMillis(500), 2, Duration.ofSeconds(30));
	}

	public int getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

}
