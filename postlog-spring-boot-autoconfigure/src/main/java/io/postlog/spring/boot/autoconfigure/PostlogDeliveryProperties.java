package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

import org.springframework.util.unit.DataSize;

/**
 * Delivery settings. Bound under {@code postlog.delivery}, a group of
 * {@link PostlogProperties}; not thread-safe, bound once at start-up.
 */
public class PostlogDeliveryProperties {

	/**
	 * Most transactions delivered but not yet acknowledged by every listener before
	 * delivery waits.
	 */
	private int maxUnacknowledged = 1000;

	/**
	 * Most message bytes the reader may read ahead of delivery (a single larger change
	 * passes alone).
	 */
	private DataSize readAhead = DataSize.ofMegabytes(32);

	/**
	 * How long an Acknowledgment may stay outstanding before a WARN names the listener
	 * and the change it is for; the endpoint and health show it meanwhile.
	 */
	private Duration unacknowledgedWarning = Duration.ofSeconds(60);

	public Duration getUnacknowledgedWarning() {
		return this.unacknowledgedWarning;
	}

	public void setUnacknowledgedWarning(Duration unacknowledgedWarning) {
		this.unacknowledgedWarning = unacknowledgedWarning;
	}

	public int getMaxUnacknowledged() {
		return this.maxUnacknowledged;
	}

	public void setMaxUnacknowledged(int maxUnacknowledged) {
		this.maxUnacknowledged = maxUnacknowledged;
	}

	public DataSize getReadAhead() {
		return this.readAhead;
	}

	public void setReadAhead(DataSize readAhead) {
		this.readAhead = readAhead;
	}

}
