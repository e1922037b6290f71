package io.postlog.spring;

import java.util.List;
import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Transaction;

/**
 * Runs each listener call in a Micrometer {@link Observation} named {@value #NAME}:
 * low-cardinality keys {@code postlog.listener.id}, {@code postlog.group}
 * ({@code default} for the default group), {@code postlog.table} and
 * {@code postlog.operation} (for a transaction listener the one table and operation of
 * its changes, or {@code multiple}; for a message listener {@code none} and
 * {@code MESSAGE}) and {@code postlog.source} ({@code stream}, {@code snapshot} or
 * {@code backfill}); the high-cardinality key {@code postlog.change.id} (the first
 * change's id for a transaction, the LSN for a message). A call that throws has its error
 * recorded; each retry is an observation of its own. The observation is a
 * {@link ReceiverContext}: with {@code postlog.tracing.propagate} its carrier holds the
 * writer's trace headers, so a tracing handler continues the writer's trace. With the
 * no-op registry nothing is wrapped. Thread-safe.
 */
public final class PostlogListenerObservations {

	/** The observation's name. */
	public static final String NAME = "postlog.listener";

	private static final String MULTIPLE = "multiple";

	private final ObservationRegistry registry;

	private final TraceHeaders traces;

	/**
	 * Creates the observations.
	 * @param registry the registry; {@link ObservationRegistry#NOOP} to observe nothing
	 */
	public PostlogListenerObservations(ObservationRegistry registry) {
		this(registry, TraceHeaders.NONE);
	}

	PostlogListenerObservations(ObservationRegistry registry, TraceHeaders traces) {
		this.registry = registry;
		this.traces = traces;
	}

	PostlogListenerObservations withTraces(TraceHeaders traces) {
		return new PostlogListenerObservations(this.registry, traces);
	}

	boolean observes() {
		return !this.registry.isNoop();
	}

	void change(ListenerEndpoint endpoint, Change change, Runnable call) {
		observation(endpoint, change.table().toString(), change.operation().name(), source(change.id()), change.id(),
				this.traces.of(change.xid()))
			.observe(call);
	}

	void transaction(ListenerEndpoint endpoint, Transaction transaction, Runnable call) {
		List<Change> changes = transaction.changes();
		String table = changes.isEmpty() ? MULTIPLE : changes.get(0).table().toString();
		String operation = changes.isEmpty() ? MULTIPLE : changes.get(0).operation().name();
		for (Change change : changes) {
			if (!table.equals(change.table().toString())) {
				table = MULTIPLE;
			}
			if (!operation.equals(change.operation().name())) {
				operation = MULTIPLE;
			}
		}
		String id = changes.isEmpty() ? transaction.commitLsn().toString() : changes.get(0).id();
		observation(endpoint, table, operation, source(id), id, this.traces.of(transaction.xid())).observe(call);
	}

	void message(ListenerEndpoint endpoint, LogicalMessage message, Runnable call) {
		observation(endpoint, "none", "MESSAGE", "stream", message.lsn().toString(), Map.of()).observe(call);
	}

	private Observation observation(ListenerEndpoint endpoint, String table, String operation, String source,
			String changeId, Map<String, String> headers) {
		return Observation.createNotStarted(NAME, () -> context(headers), this.registry)
			.contextualName("postlog " + endpoint.id())
			.lowCardinalityKeyValue("postlog.listener.id", endpoint.id())
			.lowCardinalityKeyValue("postlog.group", endpoint.group().isEmpty() ? "default" : endpoint.group())
			.lowCardinalityKeyValue("postlog.table", table)
			.lowCardinalityKeyValue("postlog.operation", operation)
			.lowCardinalityKeyValue("postlog.source", source)
			.highCardinalityKeyValue("postlog.change.id", changeId);
	}

	private static ReceiverContext<Map<String, String>> context(Map<String, String> headers) {
		ReceiverContext<Map<String, String>> context = new ReceiverContext<>((carrier, key) -> carrier.get(key));
		context.setCarrier(headers);
		context.setRemoteServiceName("postgresql");
		return context;
	}

	/** Snapshot and backfill rows carry their origin in their id. */
	private static String source(String changeId) {
		if (changeId.contains("/snapshot/")) {
			return "snapshot";
		}
		return changeId.contains("/backfill/") ? "backfill" : "stream";
	}

}
