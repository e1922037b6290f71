package io.postlog.spring.boot.actuate;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * A listener request that the {@link PostlogEndpoint} took.
 *
 * @param id the listener's id
 * @param action what was asked
 * @param state the listener's state when it was asked (a request takes effect at the next
 * transaction, or once nothing is in flight)
 */
public record ListenerRequested(String id, String action, String state) implements OperationResponseBody {
}
