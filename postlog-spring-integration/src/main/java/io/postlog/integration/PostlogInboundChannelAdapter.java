package io.postlog.integration;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.spring.PgChangeListener;
import io.postlog.spring.PgChangeListenerEndpoint;
import org.jspecify.annotations.Nullable;

import org.springframework.integration.endpoint.MessageProducerSupport;
import org.springframework.messaging.Message;
import org.springframework.util.StringUtils;

/**
 * An inbound channel adapter that sends every change of its tables as a
 * {@code Message<Change>} with the {@link PostlogHeaders} (change id, commit LSN, table,
 * operation, group). It is a postlog change listener like a {@link PgChangeListener}
 * method, with its id, group, tables, operations, concurrency and error handler: changes
 * come in commit order (per key with a concurrency above 1) on postlog's delivery
 * threads, and the flow runs on that thread when its channels are direct ones.
 * <p>
 * A change is acknowledged when the send returns: when the flow returned, or, with an
 * {@linkplain #setErrorChannel error channel}, when the error flow handled the flow's
 * failure. A flow that throws (or an error flow that throws) fails the listener: nothing
 * is acknowledged past that change, it is retried with {@code postlog.retry.*}, and when
 * the retries run out its error handler decides (by default the listener stops alone, and
 * its slot holds at that change). A flow that hands the message to another thread (an
 * executor or queue channel) returns at once: the change is acknowledged before that
 * thread ran. Configure before the application context starts; thread-safe afterwards.
 */
public class PostlogInboundChannelAdapter extends MessageProducerSupport implements PgChangeListenerEndpoint {

	private @Nullable String listenerId;

	private String group = "";

	private List<String> tables = List.of();

	private Set<Operation> operations = EnumSet.allOf(Operation.class);

	private int concurrency = 1;

	private @Nullable String errorHandler;

	/**
	 * Creates an adapter; give it an output channel, an id and its tables.
	 */
	public PostlogInboundChannelAdapter() {
	}

	/**
	 * Sets the listener id, unique among the application's listeners, by which the
	 * endpoint {@code postlog} and the listener registry know it (defaults to this
	 * component's bean name).
	 * @param listenerId the id
	 */
	public void setListenerId(String listenerId) {
		this.listenerId = listenerId;
	}

	/**
	 * Sets the listener group (default: the default group).
	 * @param group the group's name, empty for the default group
	 */
	public void setGroup(String group) {
		this.group = Objects.requireNonNull(group, "group");
	}

	/**
	 * Sets the tables whose changes are sent, as {@code schema.table} or {@code table}
	 * ({@code public}); placeholders are resolved (default: every published table).
	 * @param tables the tables
	 */
	public void setTables(String... tables) {
		this.tables = List.of(tables);
	}

	/**
	 * Sets the operations whose changes are sent (default: all).
	 * @param operations the operations
	 */
	public void setOperations(Operation... operations) {
		this.operations = EnumSet.copyOf(Arrays.asList(operations));
	}

	/**
	 * Sets the number of lanes: above 1, changes of different keys are sent on several
	 * threads at once, each key's in order (default 1: all in commit order).
	 * @param concurrency the number of lanes, positive
	 */
	public void setConcurrency(int concurrency) {
		this.concurrency = concurrency;
	}

	/**
	 * Sets the {@link io.postlog.spring.PgListenerErrorHandler} bean that decides when
	 * the retries of a change ran out (default: {@code postlog.listener.error-handler}).
	 * @param errorHandler the bean's name
	 */
	public void setErrorHandler(@Nullable String errorHandler) {
		this.errorHandler = errorHandler;
	}

	/**
	 * Returns the listener id.
	 * @return the id given, else the bean name, else {@code postlog-inbound}
	 */
	public String getListenerId() {
		if (StringUtils.hasText(this.listenerId)) {
			return this.listenerId;
		}
		String name = getComponentName();
		return StringUtils.hasText(name) ? name : "postlog-inbound";
	}

	@Override
	public String getComponentType() {
		return "postlog:inbound-channel-adapter";
	}

	@Override
	public Map<String, Object> listenerAttributes() {
		Map<String, Object> attributes = new LinkedHashMap<>();
		attributes.put("id", getListenerId());
		attributes.put("group", this.group);
		attributes.put("tables", this.tables.toArray(new String[0]));
		attributes.put("operations", new ArrayList<>(this.operations).toArray(new Operation[0]));
		attributes.put("concurrency", Integer.toString(this.concurrency));
		if (this.errorHandler != null) {
			attributes.put("errorHandler", this.errorHandler);
		}
		return attributes;
	}

	/**
	 * Sends the change to the output channel and returns when the flow returned.
	 * @param change the change
	 * @throws IllegalStateException if the adapter is not running (the change is then
	 * retried, not acknowledged)
	 * @throws org.springframework.messaging.MessagingException what the flow threw, when
	 * no error flow handled it
	 */
	@Override
	public void onChange(Change change) {
		if (!isRunning()) {
			throw new IllegalStateException("Inbound channel adapter '" + getListenerId() + "' is not running");
		}
		Message<Change> message = getMessageBuilderFactory().withPayload(change)
			.setHeader(PostlogHeaders.CHANGE_ID, change.id())
			.setHeader(PostlogHeaders.COMMIT_LSN, change.commitLsn())
			.setHeader(PostlogHeaders.TABLE, change.table())
			.setHeader(PostlogHeaders.OPERATION, change.operation())
			.setHeader(PostlogHeaders.GROUP, this.group.isEmpty() ? "default" : this.group)
			.build();
		sendMessage(message);
	}

}
