package io.postlog.kafka;

import java.util.function.Supplier;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.json.RowJson;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;

/**
 * Writes a change as Debezium's change event envelope without schema (what Debezium's
 * PostgreSQL connector writes with {@code value.converter.schemas.enable=false}):
 * {@code before} and {@code after} as rows in postlog's one JSON form ({@link RowJson}),
 * {@code source} ({@code version}, {@code connector} {@code postgresql}, {@code name} the
 * relay's slot, {@code ts_ms} the commit time, {@code snapshot}, {@code db},
 * {@code schema}, {@code table}, {@code txId}, {@code lsn} the transaction's commit LSN
 * as a number), {@code op} and {@code ts_ms} the time the relay wrote the record.
 * Operations map as Debezium's: insert {@code c}, update {@code u}, delete {@code d},
 * snapshot read {@code r}, truncate {@code t}. Delivery thread only.
 */
final class DebeziumJson implements ChangeFormatter {

	/** {@code source.version}: {@code postlog-} and postlog's version. */
	static final String VERSION = version();

	private final String slotName;

	private final Supplier<String> database;

	DebeziumJson(String slotName, Supplier<String> database) {
		this.slotName = slotName;
		this.database = database;
	}

	@Override
	public byte[] value(Change change, Headers headers) {
		String database = this.database.get();
		return ChangeJson.write((json) -> {
			json.writeStartObject();
			json.writeName("before");
			row(json, change.before());
			json.writeName("after");
			row(json, change.after());
			json.writeName("source");
			json.writeStartObject();
			json.writeStringProperty("version", VERSION);
			json.writeStringProperty("connector", "postgresql");
			json.writeStringProperty("name", this.slotName);
			json.writeNumberProperty("ts_ms", change.commitTime().toEpochMilli());
			json.writeStringProperty("snapshot", (change.operation() == Operation.SNAPSHOT) ? "true" : "false");
			json.writeStringProperty("db", database);
			json.writeStringProperty("schema", change.table().schema());
			json.writeStringProperty("table", change.table().name());
			json.writeNumberProperty("txId", change.xid());
			json.writeNumberProperty("lsn", change.commitLsn().value());
			json.writeEndObject();
			json.writeStringProperty("op", op(change.operation()));
			json.writeNumberProperty("ts_ms", System.currentTimeMillis());
			json.writeEndObject();
		});
	}

	static String op(Operation operation) {
		return switch (operation) {
			case INSERT -> "c";
			case UPDATE -> "u";
			case DELETE -> "d";
			case SNAPSHOT -> "r";
			case TRUNCATE -> "t";
		};
	}

	private static void row(JsonGenerator json, @Nullable Row row) {
		if (row == null) {
			json.writeNull();
			return;
		}
		json.writeRawValue(RowJson.row(row));
	}

	private static String version() {
		String version = DebeziumJson.class.getPackage().getImplementationVersion();
		return (version != null) ? "postlog-" + version : "postlog";
	}

}
