package io.postlog.spring.boot.actuate;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * A backfill refused because its group holds as many unfinished backfills as it may.
 *
 * @param refused why, and what to do
 * @param group the consumer group
 * @param maxQueued the most unfinished backfills the group holds
 * ({@code postlog.snapshot.max-queued-backfills})
 */
public record BackfillRefused(String refused, String group, int maxQueued) implements OperationResponseBody {
}
