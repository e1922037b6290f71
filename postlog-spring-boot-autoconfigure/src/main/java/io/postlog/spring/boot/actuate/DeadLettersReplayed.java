package io.postlog.spring.boot.actuate;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;

/**
 * What a replay of a listener's dead letters through the {@link PostlogEndpoint} did.
 *
 * @param id the listener's id
 * @param replayed dead letters the listener took, deleted from the table
 * @param remaining dead letters left, the one it failed on again first
 * @param failedChange the id of the change it failed on again, or {@code null}
 * @param failure the class of the exception it threw, or {@code null}
 */
public record DeadLettersReplayed(String id, int replayed, int remaining, @Nullable String failedChange,
		@Nullable String failure) implements OperationResponseBody {

}
