package io.postlog.consumer;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential back-off between attempts to reach the server again after a lost
 * connection, and between looks at a slot that another process holds ({@code STANDBY}).
 * Reconnecting never gives up, so the policy has no attempt limit; failed handlers use a
 * {@link RetryPolicy} of their own.
 *
 * @param initialInterval the wait after the first lost connection
 * @param multiplier the factor each further wait grows by
 * @param maxInterval the longest wait, which bounds how long streaming stays stopped
 * after the server accepts connections again
 */
public record ReconnectPolicy(Duration initialInterval, double multiplier, Duration maxInterval) {

	/**
	 * 100 ms, doubling, at most 5 s apart. A restart or a failover is usually over within
	 * seconds: the first attempts come quickly, and a server that stays away is asked
	 * about once every 5 s, which costs it one refused connection each time while
	 * streaming resumes at most about 5 s after the server is back.
	 */
	public static final ReconnectPolicy DEFAULT = new ReconnectPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(5));

	/**
	 * Creates a policy.
	 * @param initialInterval the first wait
	 * @param multiplier the growth factor, at least 1
	 * @param maxInterval the longest wait
	 */
	public ReconnectPolicy {
		Objects.requireNonNull(initialInterval, "initialInterval");
		Objects.requireNonNull(maxInterval, "maxInterval");
		if (initialInterval.isNegative() || maxInterval.isNegative()) {
			throw new IllegalArgumentException("Reconnect intervals must not be negative");
		}
		if (multiplier < 1) {
			throw new IllegalArgumentException("Reconnect multiplier must be at least 1 but was " + multiplier);
		}
	}

	/**
	 * Returns the wait before the next attempt.
	 * @param failedAttempts how many attempts have failed so far (1 after the first)
	 * @return the wait, at most {@link #maxInterval()}
	 */
	public Duration backOff(int failedAttempts) {
		return RetryPolicy.backOff(this.initialInterval, this.multiplier, this.maxInterval, failedAttempts);
	}

}
