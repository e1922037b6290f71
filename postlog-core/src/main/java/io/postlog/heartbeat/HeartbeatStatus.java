package io.postlog.heartbeat;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * Where the heartbeats of one process stand at a moment. Immutable.
 *
 * @param lastEmitted the latest heartbeat written, or {@code null} if none yet
 * @param lastReceived the latest of this process's heartbeats that came back, or
 * {@code null}
 * @param lastReceivedAt when that one came back
 * @param lastRoundTrip how long it took from write to the consumer
 * @param missingFor how long the oldest heartbeat not yet back has been out, or
 * {@code null} if every heartbeat came back
 * @param timeout how long a heartbeat may be out before it counts as missing
 */
public record HeartbeatStatus(@Nullable Heartbeat lastEmitted, @Nullable Heartbeat lastReceived,
		@Nullable Instant lastReceivedAt, @Nullable Duration lastRoundTrip, @Nullable Duration missingFor,
		Duration timeout) {

	/**
	 * Returns whether a heartbeat is out longer than the timeout.
	 * @return {@code true} if one is missing
	 */
	public boolean isMissing() {
		return this.missingFor != null && this.missingFor.compareTo(this.timeout) > 0;
	}

}
