package io.postlog.spring;

import java.util.List;
import java.util.Set;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.TableId;
import org.jspecify.annotations.Nullable;

/**
 * One resolved listener method, as the registry keeps it: its id, group, filters,
 * concurrency and error handler, and the invoker of its parameter shape. Immutable.
 *
 * @param id the listener's id, unique in the application
 * @param group the group, empty for the default group
 * @param method the method, as {@code Class.method(Types)}
 * @param shape what the method takes
 * @param tables the tables it filters on, empty for all published tables
 * @param operations the operations it receives
 * @param concurrency the number of lanes
 * @param errorHandlerName the {@link PgListenerErrorHandler} bean it names, or
 * {@code null} for the default
 * @param errorHandler the resolved error handler, or {@code null} before resolution and
 * for the default
 * @param invoker a {@link ChangeInvoker}, {@link TransactionInvoker} or
 * {@link MessageInvoker}
 * @param autoStartup whether it starts with its group, or waits for
 * {@link PostlogListenerRegistry#start(String)}
 * @param toast what it receives for unchanged TOASTed values
 */
record ListenerEndpoint(String id, String group, String method, Shape shape, Set<TableId> tables,
		Set<Operation> operations, int concurrency, @Nullable String errorHandlerName,
		@Nullable PgListenerErrorHandler errorHandler, Object invoker, boolean autoStartup, Toast toast) {

	ListenerEndpoint(String id, String group, String method, Shape shape, Set<TableId> tables,
			Set<Operation> operations, int concurrency, @Nullable String errorHandlerName,
			@Nullable PgListenerErrorHandler errorHandler, Object invoker, boolean autoStartup) {
		this(id, group, method, shape, tables, operations, concurrency, errorHandlerName, errorHandler, invoker,
				autoStartup, Toast.MARKER);
	}

	/**
	 * A listener's TOAST policy.
	 *
	 * @param policy the policy
	 * @param resolverName the {@link ToastResolver} bean of {@link ToastPolicy#RESOLVER},
	 * or {@code null} for the only one
	 * @param resolver the resolved bean, or {@code null} before resolution and for other
	 * policies
	 */
	record Toast(ToastPolicy policy, @Nullable String resolverName, @Nullable ToastResolver resolver) {

		static final Toast MARKER = new Toast(ToastPolicy.MARKER, null, null);

	}

	ListenerEndpoint withToastResolver(ToastResolver resolver) {
		return new ListenerEndpoint(this.id, this.group, this.method, this.shape, this.tables, this.operations,
				this.concurrency, this.errorHandlerName, this.errorHandler, this.invoker, this.autoStartup,
				new Toast(this.toast.policy(), this.toast.resolverName(), resolver));
	}

	enum Shape {

		CHANGE, TRANSACTION, CHANGE_LIST, ROW, MAP, RECORD, MESSAGE, SCHEMA;

		/** Whether listeners of this shape read rows, and so name published tables. */
		boolean readsRows() {
			return this != MESSAGE && this != SCHEMA;
		}

		boolean perTransaction() {
			return this == TRANSACTION || this == CHANGE_LIST;
		}

	}

	ListenerEndpoint withErrorHandler(PgListenerErrorHandler handler) {
		return new ListenerEndpoint(this.id, this.group, this.method, this.shape, this.tables, this.operations,
				this.concurrency, this.errorHandlerName, handler, this.invoker, this.autoStartup, this.toast);
	}

	/**
	 * Whether the listener takes this change: its table and operation pass the filters,
	 * and the shape takes it (row shapes take no truncates).
	 * @param change the change
	 * @return whether to deliver it
	 */
	boolean matches(Change change) {
		return (this.tables.isEmpty() || this.tables.contains(change.table()))
				&& this.operations.contains(change.operation())
				&& (!(this.invoker instanceof ChangeInvoker changes) || changes.accepts(change));
	}

	/**
	 * Whether this listener may receive updates or deletes.
	 * @return whether it does
	 */
	boolean receivesUpdatesOrDeletes() {
		return this.shape.readsRows()
				&& (this.operations.contains(Operation.UPDATE) || this.operations.contains(Operation.DELETE));
	}

	@Nullable String prefix() {
		return (this.invoker instanceof MessageInvoker messages) ? messages.prefix() : null;
	}

	List<String> tableNames() {
		return this.tables.stream().map(TableId::toString).sorted().toList();
	}

}
