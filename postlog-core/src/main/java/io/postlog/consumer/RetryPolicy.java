package io.postlog.consumer;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential back-off for failed handlers. {@code maxAttempts} counts every call, the
 * first included; {@code -1} retries forever. Lost connections have a
 * {@link ReconnectPolicy} of their own.
 *
 * @param initialInterval the wait after the first failure
 * @param multiplier the factor each further wait grows by
 * @param maxInterval the longest wait
 * @param maxAttempts the most calls in all, or {@code -1} for no limit
 */
public record RetryPolicy(Duration initialInterval, double multiplier, Duration maxInterval, int maxAttempts) {

	/** 500 ms, doubling, at most 30 s apart, 10 attempts. */
	public static final RetryPolicy DEFAULT = new RetryPolicy(Duration.ofMillis(500), 2, Duration.ofSeconds(30), 10);

	/**
	 * Creates a policy.
	 * @param initialInterval the first wait
	 * @param multiplier the growth factor
	 * @param maxInterval the longest wait
	 * @param maxAttempts the most attempts or {@code -1}
	 */
	public RetryPolicy {
		Objects.requireNonNull(initialInterval, "initialInterval");
		Objects.requireNonNull(maxInterval, "maxInterval");
		if (initialInterval.isNegative() || maxInterval.isNegative()) {
			throw new IllegalArgumentException("Retry intervals must not be negative");
		}
		if (multiplier < 1) {
			throw new IllegalArgumentException("Retry multiplier must be at least 1 but was " + multiplier);
		}
		if (maxAttempts == 0 || maxAttempts < -1) {
			throw new IllegalArgumentException("Retry max attempts must be -1 or at least 1 but was " + maxAttempts);
		}
	}

	/**
	 * Returns the wait before the next attempt.
	 * @param failedAttempts how many attempts have failed so far (1 after the first)
	 * @return the wait
	 */
	public Duration backOff(int failedAttempts) {
		return backOff(this.initialInterval, this.multiplier, this.maxInterval, failedAttempts);
	}

	static Duration backOff(Duration initialInterval, double multiplier, Duration maxInterval, int failedAttempts) {
		double millis = initialInterval.toMillis() * Math.pow(multiplier, Math.max(0, failedAttempts - 1));
		return (millis >= maxInterval.toMillis()) ? maxInterval : Duration.ofMillis((long) millis);
	}

	/**
	 * Returns whether another attempt is allowed.
	 * @param failedAttempts how many attempts have failed so far
	 * @return {@code true} if another may be made
	 */
	public boolean canRetry(int failedAttempts) {
		return this.maxAttempts == -1 || failedAttempts < this.maxAttempts;
	}

}
