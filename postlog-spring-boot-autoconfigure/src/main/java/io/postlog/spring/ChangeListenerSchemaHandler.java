package io.postlog.spring;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.Operation;
import io.postlog.SchemaChange;
import io.postlog.TableSchema;
import io.postlog.consumer.SchemaHandler;
import org.jspecify.annotations.Nullable;

/**
 * What a change listener does with a schema change of its tables: a record listener
 * checks again that it binds the new shape, strictly as at start-up, and fails through
 * its error handler when it no longer does (the failure names the listener, the component
 * and the schema change); a method that takes a {@code SchemaChange} is then called with
 * it (its payload parameter {@code null}). Thread-safe.
 */
final class ChangeListenerSchemaHandler implements SchemaHandler {

	private final ListenerEndpoint endpoint;

	private final ChangeInvoker invoker;

	ChangeListenerSchemaHandler(ListenerEndpoint endpoint, ChangeInvoker invoker) {
		this.endpoint = endpoint;
		this.invoker = invoker;
	}

	@Override
	public void handle(SchemaChange change) {
		if (!SchemaInvoker.concerns(this.endpoint.tables(), change)) {
			return;
		}
		TableSchema after = change.after();
		if (this.invoker instanceof RecordInvoker records && after != null) {
			try {
				records.binder().check(this.endpoint.id(), after.table(), notNull(after), deleteImage(after));
			}
			catch (ListenerBindingException ex) {
				throw this.invoker.method().failure(change, ex);
			}
		}
		if (this.invoker.method().takesSchemaChange()) {
			this.invoker.method().invokeSchema(change);
		}
	}

	private static Map<String, Boolean> notNull(TableSchema schema) {
		Map<String, Boolean> columns = new LinkedHashMap<>();
		for (TableSchema.Column column : schema.columns()) {
			columns.put(column.name(), !column.nullable());
		}
		return columns;
	}

	private @Nullable List<String> deleteImage(TableSchema schema) {
		boolean full = schema.columns().stream().allMatch(TableSchema.Column::key);
		if (!this.endpoint.operations().contains(Operation.DELETE) || full) {
			return null;
		}
		return schema.columns().stream().filter(TableSchema.Column::key).map(TableSchema.Column::name).toList();
	}

}
