package io.postlog.consumer;

import java.time.Duration;
import java.time.Instant;

import io.postlog.Lsn;
import org.jspecify.annotations.Nullable;

/**
 * The oldest {@link io.postlog.Acknowledgment} a subscription was handed and has not yet
 * acknowledged: what it was for and since when. Value-free.
 *
 * @param subscriptionId the subscription that holds it
 * @param commitLsn the commit LSN of the transaction it is for
 * @param changeId the change id for a change handler, {@code null} for a transaction
 * @param since when it was handed out
 */
public record PendingAcknowledgment(String subscriptionId, Lsn commitLsn, @Nullable String changeId, Instant since) {

	/**
	 * Returns how long it has been outstanding.
	 * @param now the current time
	 * @return the age
	 */
	public Duration age(Instant now) {
		return Duration.between(this.since, now);
	}

}
