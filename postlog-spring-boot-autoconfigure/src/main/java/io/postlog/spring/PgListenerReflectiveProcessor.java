package io.postlog.spring;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.Map;

import io.postlog.Acknowledgment;
import io.postlog.Change;
import io.postlog.LogicalMessage;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.SchemaChange;
import io.postlog.Transaction;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.annotation.SimpleReflectiveProcessor;

/**
 * The ahead-of-time hints of a {@link PgChangeListener}, {@link PgMessageListener} or
 * {@link PgSchemaListener} method: the method is invoked reflectively, and a record or
 * JavaBean it takes is bound from rows reflectively (its constructors, record components,
 * properties), so both are registered for reflection. Spring's AOT processing applies it
 * to every bean with such methods. Stateless.
 */
public final class PgListenerReflectiveProcessor extends SimpleReflectiveProcessor {

	private final BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();

	@Override
	protected void registerMethodHint(ReflectionHints hints, Method method) {
		super.registerMethodHint(hints, method);
		for (Class<?> type : method.getParameterTypes()) {
			if (boundFromRows(type)) {
				this.bindings.registerReflectionHints(hints, type);
			}
		}
	}

	/**
	 * Whether a listener parameter of this type is bound from rows: not postlog's own
	 * types, collections, maps, primitives or the JDK's types.
	 */
	static boolean boundFromRows(Class<?> type) {
		return !type.isPrimitive() && !type.isArray() && !type.getName().startsWith("java.")
				&& !Collection.class.isAssignableFrom(type) && !Map.class.isAssignableFrom(type) && type != Change.class
				&& type != Transaction.class && type != Row.class && type != Lsn.class && type != Operation.class
				&& type != Acknowledgment.class && type != LogicalMessage.class && type != SchemaChange.class;
	}

}
