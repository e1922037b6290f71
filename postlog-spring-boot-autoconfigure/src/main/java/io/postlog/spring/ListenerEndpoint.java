package io.postlog.spring;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.PostlogException;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.Transaction;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.convert.ConversionService;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * One annotated listener method: its filters, the shape of its payload parameter and how
 * to call it. Immutable; called only on the delivery thread.
 */
final class ListenerEndpoint {

	enum Shape {

		CHANGE, TRANSACTION, CHANGE_LIST, ROW, MAP, BOUND, MESSAGE;

		boolean perTransaction() {
			return this == TRANSACTION || this == CHANGE_LIST;
		}

		boolean rowBased() {
			return this == ROW || this == MAP || this == BOUND;
		}

	}

	private final String id;

	private final Object bean;

	private final Method method;

	private final Shape shape;

	private final int lsnIndex;

	private final Set<TableId> tables;

	private final Set<Operation> operations;

	private final @Nullable String prefix;

	private final @Nullable RowBinder binder;

	private ListenerEndpoint(String id, Object bean, Method method, Shape shape, int lsnIndex, Set<TableId> tables,
			Set<Operation> operations, @Nullable String prefix, @Nullable RowBinder binder) {
		this.id = id;
		this.bean = bean;
		this.method = method;
		this.shape = shape;
		this.lsnIndex = lsnIndex;
		this.tables = tables;
		this.operations = operations;
		this.prefix = prefix;
		this.binder = binder;
		ReflectionUtils.makeAccessible(method);
	}

	static ListenerEndpoint forChanges(Object bean, Method method, PgChangeListener annotation,
			ConversionService conversionService) {
		Class<?>[] types = method.getParameterTypes();
		int lsnIndex = -1;
		int payloadIndex = -1;
		for (int i = 0; i < types.length; i++) {
			if (types[i] == Lsn.class && lsnIndex < 0) {
				lsnIndex = i;
			}
			else if (payloadIndex < 0) {
				payloadIndex = i;
			}
			else {
				throw unsupported(method, "it has more than one payload parameter");
			}
		}
		if (payloadIndex < 0) {
			throw unsupported(method, "it has no payload parameter");
		}
		ResolvableType payload = ResolvableType.forMethodParameter(method, payloadIndex);
		Shape shape = changeShape(method, payload);
		RowBinder binder = null;
		if (shape == Shape.BOUND) {
			try {
				binder = new RowBinder(payload.toClass(), conversionService);
			}
			catch (RuntimeException ex) {
				throw unsupported(method, payload.toClass().getName() + " has no usable constructor");
			}
		}
		Set<TableId> tables = new LinkedHashSet<>();
		for (String table : annotation.tables()) {
			try {
				tables.add(TableId.parse(table));
			}
			catch (IllegalArgumentException ex) {
				throw new PostlogException("@PgChangeListener " + describe(method) + ": " + ex.getMessage());
			}
		}
		Set<Operation> operations = (annotation.operations().length > 0)
				? EnumSet.copyOf(Arrays.asList(annotation.operations())) : EnumSet.allOf(Operation.class);
		return new ListenerEndpoint(id(annotation.id(), method), bean, method, shape, lsnIndex, Set.copyOf(tables),
				operations, null, binder);
	}

	static ListenerEndpoint forMessages(Object bean, Method method, PgMessageListener annotation) {
		if (method.getParameterCount() != 1 || method.getParameterTypes()[0] != LogicalMessage.class) {
			throw new PostlogException("@PgMessageListener " + describe(method)
					+ " is not supported: it must take exactly one LogicalMessage parameter");
		}
		return new ListenerEndpoint(id(annotation.id(), method), bean, method, Shape.MESSAGE, -1, Set.of(), Set.of(),
				annotation.prefix(), null);
	}

	private static Shape changeShape(Method method, ResolvableType payload) {
		Class<?> type = payload.toClass();
		if (type == Change.class) {
			return Shape.CHANGE;
		}
		if (type == Transaction.class) {
			return Shape.TRANSACTION;
		}
		if (type == Row.class) {
			return Shape.ROW;
		}
		if (type == List.class || type == Iterable.class || type == java.util.Collection.class) {
			if (payload.getGeneric(0).toClass() == Change.class) {
				return Shape.CHANGE_LIST;
			}
			throw unsupported(method, "a list parameter must be List<Change>");
		}
		if (type == Map.class) {
			Class<?> key = payload.getGeneric(0).resolve(String.class);
			Class<?> value = payload.getGeneric(1).resolve(Object.class);
			if (key == String.class && value == Object.class) {
				return Shape.MAP;
			}
			throw unsupported(method, "a map parameter must be Map<String, Object>");
		}
		if (BeanUtils.isSimpleProperty(type) || type.isInterface() || type.isArray()
				|| java.lang.reflect.Modifier.isAbstract(type.getModifiers()) || type.getName().startsWith("java.")) {
			throw unsupported(method, "cannot bind a row to " + type.getName());
		}
		return Shape.BOUND;
	}

	private static PostlogException unsupported(Method method, String reason) {
		return new PostlogException("@PgChangeListener " + describe(method) + " is not supported: " + reason
				+ ". Accepted parameters: Change, Transaction, List<Change>, Row, Map<String, Object> or a record/bean,"
				+ " optionally with an Lsn");
	}

	static String describe(Method method) {
		return ClassUtils.getQualifiedMethodName(method) + "("
				+ String.join(", ", Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).toList()) + ")";
	}

	private static String id(String declared, Method method) {
		return StringUtils.hasText(declared) ? declared
				: ClassUtils.getUserClass(method.getDeclaringClass()).getSimpleName() + "." + method.getName();
	}

	String id() {
		return this.id;
	}

	String method() {
		return describe(this.method);
	}

	Shape shape() {
		return this.shape;
	}

	Set<TableId> tables() {
		return this.tables;
	}

	Set<Operation> operations() {
		return this.operations;
	}

	@Nullable String prefix() {
		return this.prefix;
	}

	boolean matches(Change change) {
		return (this.tables.isEmpty() || this.tables.contains(change.table()))
				&& this.operations.contains(change.operation());
	}

	void onChange(Change change) {
		if (this.shape.perTransaction() || this.shape == Shape.MESSAGE || !matches(change)) {
			return;
		}
		Object payload;
		if (this.shape == Shape.CHANGE) {
			payload = change;
		}
		else {
			Row row = change.row();
			if (row == null) {
				return;
			}
			payload = switch (this.shape) {
				case ROW -> row;
				case MAP -> row.asMap();
				default -> bind(row, change.table());
			};
		}
		invoke(payload, change.commitLsn(), change.table().toString());
	}

	void onTransaction(Transaction transaction) {
		if (!this.shape.perTransaction()) {
			return;
		}
		List<Change> matching = new ArrayList<>();
		for (Change change : transaction.changes()) {
			if (matches(change)) {
				matching.add(change);
			}
		}
		if (matching.isEmpty()) {
			return;
		}
		Object payload = (this.shape == Shape.CHANGE_LIST) ? List.copyOf(matching)
				: new Transaction(transaction.xid(), transaction.commitLsn(), transaction.endLsn(),
						transaction.commitTime(), transaction.origin(), matching);
		invoke(payload, transaction.commitLsn(), tablesOf(matching));
	}

	void onMessage(LogicalMessage message) {
		if (this.shape == Shape.MESSAGE && message.prefix().equals(this.prefix)) {
			invoke(message, message.lsn(), "message prefix '" + message.prefix() + "'");
		}
	}

	private Object bind(Row row, io.postlog.TableId table) {
		try {
			return this.binder.bind(row, table);
		}
		catch (RuntimeException ex) {
			throw new ListenerExecutionFailedException(this.id, table.toString(), ex);
		}
	}

	private void invoke(Object payload, Lsn lsn, String subject) {
		Object[] args = new Object[this.method.getParameterCount()];
		for (int i = 0; i < args.length; i++) {
			args[i] = (i == this.lsnIndex) ? lsn : payload;
		}
		try {
			this.method.invoke(this.bean, args);
		}
		catch (InvocationTargetException ex) {
			Throwable cause = ex.getTargetException();
			if (cause instanceof ListenerExecutionFailedException failed) {
				throw failed;
			}
			throw new ListenerExecutionFailedException(this.id, subject, cause);
		}
		catch (IllegalAccessException ex) {
			throw new ListenerExecutionFailedException(this.id, subject, ex);
		}
	}

	private static String tablesOf(List<Change> changes) {
		Set<String> tables = new LinkedHashSet<>();
		for (Change change : changes) {
			tables.add(change.table().toString());
		}
		return String.join(", ", tables);
	}

}
