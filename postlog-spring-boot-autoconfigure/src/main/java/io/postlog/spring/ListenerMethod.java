package io.postlog.spring;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.SchemaChange;
import io.postlog.Transaction;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * A listener method and where its parameters go: the payload, and optionally the commit
 * LSN, the operation and the acknowledgement. Calls it and wraps what it throws, once, in
 * a {@link ListenerExecutionFailedException}. Immutable and thread-safe.
 */
final class ListenerMethod {

	private final Object bean;

	private final Method method;

	private final String id;

	private final String group;

	private final int payloadIndex;

	private final int lsnIndex;

	private final int operationIndex;

	private final int acknowledgmentIndex;

	private final int schemaIndex;

	ListenerMethod(Object bean, Method method, String id, String group, int payloadIndex, int lsnIndex,
			int operationIndex, int acknowledgmentIndex) {
		this(bean, method, id, group, payloadIndex, lsnIndex, operationIndex, acknowledgmentIndex, -1);
	}

	ListenerMethod(Object bean, Method method, String id, String group, int payloadIndex, int lsnIndex,
			int operationIndex, int acknowledgmentIndex, int schemaIndex) {
		this.schemaIndex = schemaIndex;
		this.bean = bean;
		this.method = method;
		this.id = id;
		this.group = group;
		this.payloadIndex = payloadIndex;
		this.lsnIndex = lsnIndex;
		this.operationIndex = operationIndex;
		this.acknowledgmentIndex = acknowledgmentIndex;
		ReflectionUtils.makeAccessible(method);
	}

	String id() {
		return this.id;
	}

	String group() {
		return this.group;
	}

	boolean takesAcknowledgment() {
		return this.acknowledgmentIndex >= 0;
	}

	boolean takesSchemaChange() {
		return this.schemaIndex >= 0;
	}

	/**
	 * Calls a change listener that also takes a {@code SchemaChange} with one: its
	 * payload (and operation and acknowledgement) {@code null}, its LSN the schema
	 * change's commit LSN.
	 * @param change the schema change
	 * @throws ListenerExecutionFailedException if the method threw
	 */
	void invokeSchema(SchemaChange change) {
		invoke(null, change.commitLsn(), null, null, change, change);
	}

	boolean takesOperation() {
		return this.operationIndex >= 0;
	}

	String describe() {
		return describe(this.method);
	}

	/**
	 * Calls the method.
	 * @param payload the payload argument
	 * @param lsn the commit LSN
	 * @param operation the operation, for change-shaped listeners
	 * @param acknowledgment the acknowledgement, for listeners that take one
	 * @param delivered the change, transaction or message delivered, described in the
	 * error message (without values) only when the method throws
	 * @throws ListenerExecutionFailedException if the method threw
	 */
	void invoke(Object payload, Lsn lsn, @Nullable Operation operation, @Nullable Acknowledgment acknowledgment,
			Object delivered) {
		invoke(payload, lsn, operation, acknowledgment, null, delivered);
	}

	private void invoke(@Nullable Object payload, Lsn lsn, @Nullable Operation operation,
			@Nullable Acknowledgment acknowledgment, @Nullable SchemaChange schema, Object delivered) {
		@Nullable Object[] args = new Object[this.method.getParameterCount()];
		args[this.payloadIndex] = payload;
		if (this.schemaIndex >= 0) {
			args[this.schemaIndex] = schema;
		}
		if (this.lsnIndex >= 0) {
			args[this.lsnIndex] = lsn;
		}
		if (this.operationIndex >= 0) {
			args[this.operationIndex] = operation;
		}
		if (this.acknowledgmentIndex >= 0) {
			args[this.acknowledgmentIndex] = acknowledgment;
		}
		try {
			this.method.invoke(this.bean, args);
		}
		catch (InvocationTargetException ex) {
			Throwable cause = ex.getTargetException();
			// A listener that passes on another listener's failure is not wrapped again.
			throw (cause instanceof ListenerExecutionFailedException failed) ? failed : failure(delivered, cause);
		}
		catch (IllegalAccessException ex) {
			throw failure(delivered, ex);
		}
	}

	/**
	 * Wraps what went wrong delivering to this listener.
	 * @param delivered the change, transaction or message delivered
	 * @param cause the listener's exception, or a binding failure
	 * @return the exception to throw
	 */
	ListenerExecutionFailedException failure(Object delivered, Throwable cause) {
		return new ListenerExecutionFailedException(this.id, this.group, subject(delivered), cause);
	}

	/**
	 * Describes what was delivered by names and positions only; built only on failure, so
	 * the delivery path makes no strings.
	 */
	static String subject(Object delivered) {
		if (delivered instanceof Change change) {
			return change.operation() + " on " + change.table() + " (commit LSN " + change.commitLsn() + ", change id "
					+ change.id() + ")";
		}
		if (delivered instanceof Transaction transaction) {
			Set<String> tables = new LinkedHashSet<>();
			for (Change change : transaction.changes()) {
				tables.add(change.table().toString());
			}
			return "transaction xid " + transaction.xid() + " on " + String.join(", ", tables) + " (commit LSN "
					+ transaction.commitLsn() + ", " + transaction.changes().size() + " changes)";
		}
		if (delivered instanceof SchemaChange schema) {
			return "schema change " + schema.describe();
		}
		if (delivered instanceof LogicalMessage message) {
			return "message with prefix '" + message.prefix() + "' at LSN " + message.lsn();
		}
		return String.valueOf(delivered);
	}

	static String describe(Method method) {
		return ClassUtils.getQualifiedMethodName(method) + "("
				+ String.join(", ", Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).toList()) + ")";
	}

}
