package io.postlog.spring.boot.autoconfigure;

import java.time.Duration;

/**
 * An exponential back-off as properties: the first wait, the factor each further wait
 * grows by, and the longest wait. The groups that extend it ({@code postlog.retry},
 * {@code postlog.reconnect}) give their own defaults to the constructor; Boot's metadata
 * processor cannot read a default given that way, so each group's defaults and
 * descriptions are also in
 * {@code META-INF/additional-spring-configuration-metadata.json}, and
 * {@code PostlogPropertiesDefaultsTests} keeps the two equal. Not thread-safe, bound once
 * at start-up.
 */
public abstract class PostlogBackOffProperties {

	private Duration initialInterval;

	private double multiplier;

	private Duration maxInterval;

	PostlogBackOffProperties(Duration initialInterval, double multiplier, Duration maxInterval) {
		this.initialInterval = initialInterval;
		this.multiplier = multiplier;
		this.maxInterval = maxInterval;
	}

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
