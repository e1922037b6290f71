package io.postlog.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.PostlogException;
import io.postlog.Row;
import io.postlog.SchemaChange;
import io.postlog.TableId;
import io.postlog.Transaction;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.convert.ConversionService;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Turns an annotated method into a {@link ListenerEndpoint}: resolves the annotation's
 * placeholders, works out the parameter shape and builds its invoker. A method it cannot
 * serve fails with a message naming the method and what is accepted. Thread-safe.
 */
final class ListenerMethodResolver {

	private static final String ACCEPTED = "Accepted parameters: one of Change, Transaction, List<Change>, Row, "
			+ "Map<String, Object> or a record/bean, optionally with an Lsn, an Operation (change-shaped listeners) "
			+ "and an Acknowledgment; a change-shaped listener may also take a SchemaChange";

	/** The method of every {@link PgChangeListenerEndpoint}. */
	private static final Method ON_CHANGE = ClassUtils.getMethod(PgChangeListenerEndpoint.class, "onChange",
			Change.class);

	private final @Nullable StringValueResolver placeholders;

	private final ConversionService conversionService;

	/**
	 * Creates a resolver.
	 * @param placeholders resolves {@code ${...}} in annotation attributes, or
	 * {@code null} to take them as written
	 * @param conversionService converts column values when binding rows to types
	 */
	ListenerMethodResolver(@Nullable StringValueResolver placeholders, ConversionService conversionService) {
		this.placeholders = placeholders;
		this.conversionService = conversionService;
	}

	ListenerEndpoint resolve(Object bean, Method method, PgChangeListener annotation) {
		String id = id(resolve(annotation.id()), method);
		String group = resolve(annotation.group()).trim();
		Parameters parameters = Parameters.of(method, "@PgChangeListener");
		if (parameters.payload() == parameters.schema()) {
			throw unsupported(method, "a method that takes only a SchemaChange is a @PgSchemaListener");
		}
		ResolvableType payload = ResolvableType.forMethodParameter(method, parameters.payload());
		ListenerEndpoint.Shape shape = shape(method, payload);
		ListenerMethod listener = new ListenerMethod(bean, method, id, group, parameters.payload(), parameters.lsn(),
				parameters.operation(), parameters.acknowledgment(), parameters.schema());
		if (shape.perTransaction() && listener.takesSchemaChange()) {
			throw unsupported(method, "a SchemaChange parameter is for change-shaped listeners; use "
					+ "@PgSchemaListener beside a " + payload.toClass().getSimpleName() + " listener");
		}
		if (shape.perTransaction() && listener.takesOperation()) {
			throw unsupported(method, "an Operation parameter is for change-shaped listeners; a "
					+ payload.toClass().getSimpleName() + " listener can read each change's operation()");
		}
		int concurrency = concurrency(method, resolve(annotation.concurrency()));
		if (concurrency > 1 && shape.perTransaction()) {
			throw new PostlogException("@PgChangeListener " + ListenerMethod.describe(method) + ": concurrency "
					+ concurrency + " is only for Change, Row, Map and record listeners; a "
					+ payload.toClass().getSimpleName() + " listener is called once per transaction, in commit order");
		}
		Object invoker = switch (shape) {
			case CHANGE -> new ChangeInvoker.ChangeParameter(listener);
			case ROW -> new RowInvoker(listener, false);
			case MAP -> new RowInvoker(listener, true);
			case RECORD -> new RecordInvoker(listener, binder(method, payload.toClass()));
			case TRANSACTION -> new TransactionInvoker(listener, false);
			default -> new TransactionInvoker(listener, true);
		};
		Set<Operation> operations = (annotation.operations().length > 0)
				? EnumSet.copyOf(Arrays.asList(annotation.operations())) : EnumSet.allOf(Operation.class);
		String errorHandler = resolve(annotation.errorHandler()).trim();
		String toastResolver = resolve(annotation.toastResolver()).trim();
		if (annotation.toast() != ToastPolicy.MARKER && shape.perTransaction()) {
			throw unsupported(method, "toast = " + annotation.toast() + " is for change-shaped listeners (Change, "
					+ "Row, Map, records); a " + payload.toClass().getSimpleName() + " listener gets the marker");
		}
		if (!toastResolver.isEmpty() && annotation.toast() != ToastPolicy.RESOLVER) {
			throw unsupported(method,
					"toastResolver names a ToastResolver for toast = RESOLVER, not " + annotation.toast());
		}
		return new ListenerEndpoint(id, group, listener.describe(), shape, tables(method, annotation.tables()),
				operations, concurrency, errorHandler.isEmpty() ? null : errorHandler, null, invoker,
				autoStartup(method, resolve(annotation.autoStartup())),
				new ListenerEndpoint.Toast(annotation.toast(), toastResolver.isEmpty() ? null : toastResolver, null));
	}

	ListenerEndpoint resolve(PgChangeListenerEndpoint endpoint) {
		PgChangeListener annotation = MergedAnnotation
			.of(endpoint.getClass(), PgChangeListener.class, endpoint.listenerAttributes())
			.synthesize();
		return resolve(endpoint, ON_CHANGE, annotation);
	}

	ListenerEndpoint resolve(Object bean, Method method, PgSchemaListener annotation) {
		Parameters parameters = Parameters.of(method, "@PgSchemaListener");
		if (parameters.schema() < 0 || parameters.payload() != parameters.schema() || parameters.operation() >= 0
				|| parameters.acknowledgment() >= 0) {
			throw new PostlogException("@PgSchemaListener " + ListenerMethod.describe(method)
					+ " is not supported: it must take one SchemaChange parameter, optionally with an Lsn");
		}
		String id = id(resolve(annotation.id()), method);
		String group = resolve(annotation.group()).trim();
		ListenerMethod listener = new ListenerMethod(bean, method, id, group, parameters.payload(), parameters.lsn(),
				-1, -1);
		Set<TableId> tables = tables(method, annotation.tables());
		return new ListenerEndpoint(id, group, listener.describe(), ListenerEndpoint.Shape.SCHEMA, tables, Set.of(), 1,
				null, null, new SchemaInvoker(listener, tables), true);
	}

	ListenerEndpoint resolve(Object bean, Method method, PgMessageListener annotation) {
		Parameters parameters = Parameters.of(method, "@PgMessageListener");
		if (method.getParameterTypes()[parameters.payload()] != LogicalMessage.class || parameters.operation() >= 0
				|| parameters.acknowledgment() >= 0 || parameters.schema() >= 0) {
			throw new PostlogException("@PgMessageListener " + ListenerMethod.describe(method)
					+ " is not supported: it must take one LogicalMessage parameter, optionally with an Lsn");
		}
		String id = id(resolve(annotation.id()), method);
		String group = resolve(annotation.group()).trim();
		ListenerMethod listener = new ListenerMethod(bean, method, id, group, parameters.payload(), parameters.lsn(),
				-1, -1);
		return new ListenerEndpoint(id, group, listener.describe(), ListenerEndpoint.Shape.MESSAGE, Set.of(), Set.of(),
				1, null, null, new MessageInvoker(listener, annotation.prefix()), true);
	}

	private String resolve(String value) {
		if (this.placeholders == null || !value.contains("${")) {
			return value;
		}
		String resolved = this.placeholders.resolveStringValue(value);
		return (resolved != null) ? resolved : "";
	}

	private Set<TableId> tables(Method method, String[] declared) {
		Set<TableId> tables = new LinkedHashSet<>();
		for (String element : declared) {
			for (String table : StringUtils.commaDelimitedListToStringArray(resolve(element))) {
				if (table.isBlank()) {
					continue;
				}
				try {
					tables.add(TableId.parse(table.trim()));
				}
				catch (IllegalArgumentException ex) {
					throw new PostlogException("@PgChangeListener " + ListenerMethod.describe(method) + ": "
							+ ex.getMessage() + ((element.contains("${")) ? " (resolved from '" + element + "')" : ""));
				}
			}
		}
		return Set.copyOf(tables);
	}

	private static int concurrency(Method method, String value) {
		int lanes;
		try {
			lanes = Integer.parseInt(value.trim());
		}
		catch (NumberFormatException ex) {
			throw notPositive(method, value, ex);
		}
		if (lanes < 1) {
			throw notPositive(method, value, null);
		}
		return lanes;
	}

	private static PostlogException notPositive(Method method, String value, @Nullable Throwable cause) {
		return new PostlogException("@PgChangeListener " + ListenerMethod.describe(method) + ": concurrency '" + value
				+ "' is not a positive integer", cause);
	}

	private static boolean autoStartup(Method method, String value) {
		String trimmed = value.trim();
		if (trimmed.equalsIgnoreCase("true")) {
			return true;
		}
		if (trimmed.equalsIgnoreCase("false")) {
			return false;
		}
		throw new PostlogException("@PgChangeListener " + ListenerMethod.describe(method) + ": autoStartup '" + value
				+ "' is neither true nor false");
	}

	private RowBinder binder(Method method, Class<?> type) {
		try {
			return new RowBinder(type, this.conversionService);
		}
		catch (RuntimeException ex) {
			throw unsupported(method, type.getName() + " has no usable constructor");
		}
	}

	private static ListenerEndpoint.Shape shape(Method method, ResolvableType payload) {
		Class<?> type = payload.toClass();
		if (type == Change.class) {
			return ListenerEndpoint.Shape.CHANGE;
		}
		if (type == Transaction.class) {
			return ListenerEndpoint.Shape.TRANSACTION;
		}
		if (type == Row.class) {
			return ListenerEndpoint.Shape.ROW;
		}
		if (type == List.class || type == Iterable.class || type == Collection.class) {
			if (payload.getGeneric(0).toClass() == Change.class) {
				return ListenerEndpoint.Shape.CHANGE_LIST;
			}
			throw unsupported(method, "a list parameter must be List<Change>");
		}
		if (type == Map.class) {
			Class<?> key = payload.getGeneric(0).resolve(String.class);
			Class<?> value = payload.getGeneric(1).resolve(Object.class);
			if (key == String.class && value == Object.class) {
				return ListenerEndpoint.Shape.MAP;
			}
			throw unsupported(method, "a map parameter must be Map<String, Object>");
		}
		if (BeanUtils.isSimpleProperty(type) || type.isInterface() || type.isArray()
				|| Modifier.isAbstract(type.getModifiers()) || type.getName().startsWith("java.")) {
			throw unsupported(method, "cannot bind a row to " + type.getName());
		}
		return ListenerEndpoint.Shape.RECORD;
	}

	private static PostlogException unsupported(Method method, String reason) {
		return new PostlogException("@PgChangeListener " + ListenerMethod.describe(method) + " is not supported: "
				+ reason + ". " + ACCEPTED);
	}

	private static String id(String declared, Method method) {
		return StringUtils.hasText(declared) ? declared.trim()
				: ClassUtils.getUserClass(method.getDeclaringClass()).getSimpleName() + "." + method.getName();
	}

	/**
	 * Where a method's parameters go.
	 */
	private record Parameters(int payload, int lsn, int operation, int acknowledgment, int schema) {

		static Parameters of(Method method, String annotation) {
			Class<?>[] types = method.getParameterTypes();
			int lsn = -1;
			int operation = -1;
			int acknowledgment = -1;
			int payload = -1;
			int schema = -1;
			for (int i = 0; i < types.length; i++) {
				if (types[i] == Lsn.class && lsn < 0) {
					lsn = i;
				}
				else if (types[i] == Operation.class && operation < 0) {
					operation = i;
				}
				else if (types[i] == Acknowledgment.class && acknowledgment < 0) {
					acknowledgment = i;
				}
				else if (types[i] == SchemaChange.class && schema < 0) {
					schema = i;
				}
				else if (payload < 0) {
					payload = i;
				}
				else {
					throw new PostlogException(annotation + " " + ListenerMethod.describe(method)
							+ " is not supported: it has more than one payload parameter. " + ACCEPTED);
				}
			}
			if (payload < 0 && schema >= 0) {
				// A schema listener: the schema change is its payload.
				payload = schema;
			}
			if (payload < 0) {
				throw new PostlogException(annotation + " " + ListenerMethod.describe(method)
						+ " is not supported: it has no payload parameter. " + ACCEPTED);
			}
			return new Parameters(payload, lsn, operation, acknowledgment, schema);
		}

	}

}
