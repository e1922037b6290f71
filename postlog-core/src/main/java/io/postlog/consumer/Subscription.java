package io.postlog.consumer;

import java.util.Objects;
import java.util.function.Predicate;

import io.postlog.Change;
import io.postlog.consumer.delivery.Recipient;
import org.jspecify.annotations.Nullable;

/**
 * One handler of a {@link ReplicationConsumer} with its delivery options: its id (in
 * logs, errors and progress), how many lanes it runs on, which changes it takes, whether
 * it acknowledges itself, and what happens when its retries run out. Each subscription
 * owns its progress: a failing handler is retried alone, and the others are not called
 * again for what they already handled. Immutable; the {@code with} methods return copies.
 */
public final class Subscription {

	private final String id;

	private final ListenerShape shape;

	private final int concurrency;

	private final @Nullable Predicate<Change> filter;

	private final ErrorHandler errorHandler;

	private final boolean autoStartup;

	private final @Nullable SchemaHandler schemaHandler;

	private Subscription(String id, ListenerShape shape) {
		this(id, shape, 1, null, ErrorHandler.STOP, true, null);
	}

	private Subscription(String id, ListenerShape shape, int concurrency, @Nullable Predicate<Change> filter,
			ErrorHandler errorHandler, boolean autoStartup, @Nullable SchemaHandler schemaHandler) {
		this.id = requireId(id);
		this.schemaHandler = schemaHandler;
		this.shape = shape;
		this.concurrency = concurrency;
		this.filter = filter;
		this.errorHandler = Objects.requireNonNull(errorHandler, "errorHandler");
		this.autoStartup = autoStartup;
	}

	/**
	 * Subscribes a change handler, called once per change.
	 * @param id the subscription's id
	 * @param handler the handler
	 * @return the subscription
	 */
	public static Subscription onChange(String id, ChangeHandler handler) {
		return new Subscription(requireId(id), ListenerShape.change(Objects.requireNonNull(handler, "handler")));
	}

	/**
	 * Subscribes a change handler that acknowledges each change itself.
	 * @param id the subscription's id
	 * @param handler the handler
	 * @return the subscription
	 */
	public static Subscription onChange(String id, AcknowledgingChangeHandler handler) {
		return new Subscription(requireId(id),
				ListenerShape.acknowledgingChange(Objects.requireNonNull(handler, "handler")));
	}

	/**
	 * Subscribes a transaction handler, called once per commit with at least one matching
	 * change.
	 * @param id the subscription's id
	 * @param handler the handler
	 * @return the subscription
	 */
	public static Subscription onTransaction(String id, TransactionHandler handler) {
		return new Subscription(requireId(id), ListenerShape.transaction(Objects.requireNonNull(handler, "handler")));
	}

	/**
	 * Subscribes a transaction handler that acknowledges each transaction itself.
	 * @param id the subscription's id
	 * @param handler the handler
	 * @return the subscription
	 */
	public static Subscription onTransaction(String id, AcknowledgingTransactionHandler handler) {
		return new Subscription(requireId(id),
				ListenerShape.acknowledgingTransaction(Objects.requireNonNull(handler, "handler")));
	}

	/**
	 * Subscribes a handler of logical decoding messages (PostgreSQL 14+).
	 * @param id the subscription's id
	 * @param handler the handler
	 * @return the subscription
	 */
	public static Subscription onMessage(String id, MessageHandler handler) {
		return new Subscription(requireId(id), ListenerShape.message(Objects.requireNonNull(handler, "handler")));
	}

	/**
	 * Subscribes a handler of schema changes: every column added, dropped, renamed or
	 * retyped, every nullability and key change, and table renames, in commit order, each
	 * before the first change of a row in the new shape.
	 * @param id the subscription's id
	 * @param handler the handler
	 * @return the subscription
	 */
	public static Subscription onSchemaChange(String id, SchemaHandler handler) {
		return new Subscription(requireId(id), ListenerShape.schema(), 1, null, ErrorHandler.STOP, true,
				Objects.requireNonNull(handler, "handler"));
	}

	/**
	 * Returns a copy of a change subscription whose schema changes also go to
	 * {@code handler}, in the same order as its changes: each before the first change in
	 * the new shape (on lanes, once every lane is idle). A failure of it is handled as a
	 * failure of a change: retried, then the error handler decides.
	 * @param handler the schema handler
	 * @return the copy
	 * @throws IllegalArgumentException for a subscription that is not a change
	 * subscription
	 */
	public Subscription withSchemaHandler(SchemaHandler handler) {
		if (kind() != Recipient.Kind.CHANGE) {
			throw new IllegalArgumentException(
					"Only a change subscription takes a schema handler, and '" + this.id + "' is a " + kind());
		}
		return new Subscription(this.id, this.shape, this.concurrency, this.filter, this.errorHandler, this.autoStartup,
				Objects.requireNonNull(handler, "handler"));
	}

	/**
	 * Returns a copy that runs a change handler on {@code lanes} threads. Changes are
	 * routed by table and replica-identity key (a table without a key, or with
	 * {@code REPLICA IDENTITY FULL}, by table), so each key keeps its order; the slot is
	 * still acknowledged in commit order.
	 * @param lanes the number of lanes, at least 1
	 * @return the copy
	 * @throws IllegalArgumentException if {@code lanes} is below 1, or above 1 for
	 * another kind of handler
	 */
	public Subscription withConcurrency(int lanes) {
		if (lanes < 1 || (lanes > 1 && kind() != Recipient.Kind.CHANGE)) {
			throw new IllegalArgumentException("Concurrency of subscription '" + this.id + "' must be 1"
					+ ((kind() == Recipient.Kind.CHANGE) ? " or more" : " (only change handlers run on lanes)")
					+ " but was " + lanes);
		}
		return new Subscription(this.id, this.shape, lanes, this.filter, this.errorHandler, this.autoStartup,
				this.schemaHandler);
	}

	/**
	 * Returns a copy that takes only the changes the filter accepts; a transaction
	 * handler then receives only those, and is not called when none is left.
	 * @param filter which changes to take; evaluated on the delivery thread
	 * @return the copy
	 */
	public Subscription withFilter(Predicate<Change> filter) {
		return new Subscription(this.id, this.shape, this.concurrency, Objects.requireNonNull(filter, "filter"),
				this.errorHandler, this.autoStartup, this.schemaHandler);
	}

	/**
	 * Returns a copy with an error handler ({@link ErrorHandler#STOP} by default).
	 * @param errorHandler decides once retries ran out
	 * @return the copy
	 */
	public Subscription withErrorHandler(ErrorHandler errorHandler) {
		return new Subscription(this.id, this.shape, this.concurrency, this.filter, errorHandler, this.autoStartup,
				this.schemaHandler);
	}

	/**
	 * Returns a copy that starts with the consumer ({@code true}, the default) or stays
	 * {@link SubscriptionState#STOPPED} until {@link SubscriptionControl#start()}; until
	 * then it holds the slot at the first transaction it was not given.
	 * @param autoStartup whether it starts with the consumer
	 * @return the copy
	 */
	public Subscription withAutoStartup(boolean autoStartup) {
		return new Subscription(this.id, this.shape, this.concurrency, this.filter, this.errorHandler, autoStartup,
				this.schemaHandler);
	}

	/**
	 * Returns whether the subscription starts with the consumer.
	 * @return {@code true} unless {@link #withAutoStartup(boolean)} said otherwise
	 */
	public boolean autoStartup() {
		return this.autoStartup;
	}

	/**
	 * Returns the id.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Returns the number of lanes.
	 * @return 1 unless {@link #withConcurrency(int)} set more
	 */
	public int concurrency() {
		return this.concurrency;
	}

	/**
	 * Returns whether the handler acknowledges what it was given itself.
	 * @return {@code true} for acknowledging handlers
	 */
	public boolean acknowledging() {
		return this.shape.acknowledging();
	}

	Recipient.Kind kind() {
		return this.shape.kind();
	}

	ListenerShape shape() {
		return this.shape;
	}

	boolean accepts(Change change) {
		return this.filter == null || this.filter.test(change);
	}

	@Nullable SchemaHandler schemaHandler() {
		return this.schemaHandler;
	}

	ErrorHandler errorHandler() {
		return this.errorHandler;
	}

	private static String requireId(String id) {
		if (id == null || id.isBlank()) {
			throw new IllegalArgumentException("A subscription needs an id");
		}
		return id;
	}

	@Override
	public String toString() {
		return "Subscription[" + this.id + ", " + kind() + ", concurrency " + this.concurrency + "]";
	}

}
