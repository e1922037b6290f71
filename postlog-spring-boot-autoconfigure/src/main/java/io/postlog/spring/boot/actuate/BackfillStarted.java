package io.postlog.spring.boot.actuate;

import java.util.List;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * A backfill just started through the {@link PostlogEndpoint}.
 *
 * @param id its id, as {@code GET /actuator/postlog} shows it
 * @param group its consumer group
 * @param tables its tables
 */
public record BackfillStarted(String id, String group, List<String> tables) implements OperationResponseBody {
}
