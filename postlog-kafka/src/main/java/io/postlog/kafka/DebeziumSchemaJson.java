package io.postlog.kafka;

import java.sql.Types;
import java.util.function.Supplier;

import io.postlog.SchemaChange;
import io.postlog.TableId;
import io.postlog.TableSchema;
import io.postlog.types.PgType;
import org.apache.kafka.common.header.Headers;
import tools.jackson.core.JsonGenerator;

/**
 * Writes a schema change as the value of a record of Debezium's schema change topic,
 * without schema. Debezium's PostgreSQL connector has no such topic, so this follows the
 * shape its relational connectors with schemas share (Db2, SQL Server, MySQL):
 * {@code source} (as in a change event, with {@code lsn} the commit LSN), {@code ts_ms},
 * {@code databaseName}, {@code schemaName}, {@code ddl} ({@code null}: postlog does not
 * keep the statement) and {@code tableChanges}, one entry of {@code type}
 * ({@code CREATE}, {@code ALTER} or {@code DROP}), {@code id} ({@code "schema"."table"})
 * and {@code table}, the table's shape after the change (its last shape for a drop):
 * {@code primaryKeyColumnNames} and {@code columns} with {@code name}, {@code jdbcType}
 * (as pgjdbc reports the type), {@code nativeType} (the type OID, as Debezium's
 * PostgreSQL connector gives it), {@code typeName}, {@code typeExpression},
 * {@code position} (from 1, in table order) and {@code optional}. A renamed table's entry
 * is an {@code ALTER} of the new name with {@code previousId} the old. No row value is
 * written. Delivery thread only.
 */
final class DebeziumSchemaJson implements SchemaFormatter {

	private final String slotName;

	private final Supplier<String> database;

	DebeziumSchemaJson(String slotName, Supplier<String> database) {
		this.slotName = slotName;
		this.database = database;
	}

	@Override
	public byte[] value(SchemaChange change, String id, Headers headers) {
		String database = this.database.get();
		long now = System.currentTimeMillis();
		TableSchema shape = (change.after() != null) ? change.after() : change.before();
		return ChangeJson.write((json) -> {
			json.writeStartObject();
			json.writeName("source");
			json.writeStartObject();
			json.writeStringProperty("version", DebeziumJson.VERSION);
			json.writeStringProperty("connector", "postgresql");
			json.writeStringProperty("name", this.slotName);
			// A schema change carries no commit time: both times are the relay's.
			json.writeNumberProperty("ts_ms", now);
			json.writeStringProperty("snapshot", "false");
			json.writeStringProperty("db", database);
			json.writeStringProperty("schema", change.table().schema());
			json.writeStringProperty("table", change.table().name());
			json.writeNumberProperty("lsn", change.commitLsn().value());
			json.writeEndObject();
			json.writeNumberProperty("ts_ms", now);
			json.writeStringProperty("databaseName", database);
			json.writeStringProperty("schemaName", change.table().schema());
			json.writeNullProperty("ddl");
			json.writeName("tableChanges");
			json.writeStartArray();
			json.writeStartObject();
			json.writeStringProperty("type", type(change.kind()));
			json.writeStringProperty("id", id(change.table()));
			if (change.kind() == SchemaChange.Kind.RENAME_TABLE && change.before() != null) {
				json.writeStringProperty("previousId", id(change.before().table()));
			}
			json.writeName("table");
			table(json, shape);
			json.writeEndObject();
			json.writeEndArray();
			json.writeEndObject();
		});
	}

	static String type(SchemaChange.Kind kind) {
		return switch (kind) {
			case CREATE_TABLE -> "CREATE";
			case DROP_TABLE -> "DROP";
			default -> "ALTER";
		};
	}

	/**
	 * Returns a table's id as Debezium writes it: schema and name, each double-quoted.
	 */
	static String id(TableId table) {
		return quoted(table.schema()) + "." + quoted(table.name());
	}

	private static String quoted(String name) {
		return "\"" + name.replace("\"", "\"\"") + "\"";
	}

	private static void table(JsonGenerator json, TableSchema shape) {
		json.writeStartObject();
		json.writeNullProperty("defaultCharsetName");
		json.writeName("primaryKeyColumnNames");
		json.writeStartArray();
		for (TableSchema.Column column : shape.columns()) {
			if (column.key()) {
				json.writeString(column.name());
			}
		}
		json.writeEndArray();
		json.writeName("columns");
		json.writeStartArray();
		int position = 1;
		for (TableSchema.Column column : shape.columns()) {
			json.writeStartObject();
			json.writeStringProperty("name", column.name());
			json.writeNumberProperty("jdbcType", jdbcType(column));
			json.writeNumberProperty("nativeType", Integer.toUnsignedLong(column.typeOid()));
			json.writeStringProperty("typeName", column.typeName());
			json.writeStringProperty("typeExpression", column.typeName());
			json.writeNumberProperty("position", position++);
			json.writeBooleanProperty("optional", column.nullable());
			json.writeEndObject();
		}
		json.writeEndArray();
		json.writeEndObject();
	}

	/**
	 * Returns the {@link Types} constant pgjdbc reports for a column's type (what
	 * Debezium's PostgreSQL connector reads through it): {@link Types#ARRAY} for an
	 * array, {@link Types#OTHER} for a type it has no other constant for.
	 */
	static int jdbcType(TableSchema.Column column) {
		if (column.typeName().endsWith("[]")) {
			return Types.ARRAY;
		}
		return switch (column.typeOid()) {
			case PgType.BOOL, PgType.BIT -> Types.BIT;
			case PgType.BYTEA -> Types.BINARY;
			case PgType.CHAR, PgType.BPCHAR -> Types.CHAR;
			case PgType.NAME, PgType.TEXT, PgType.VARCHAR -> Types.VARCHAR;
			case PgType.INT8, PgType.OID -> Types.BIGINT;
			case PgType.INT2 -> Types.SMALLINT;
			case PgType.INT4 -> Types.INTEGER;
			case PgType.FLOAT4 -> Types.REAL;
			case PgType.FLOAT8, PgType.MONEY -> Types.DOUBLE;
			case PgType.NUMERIC -> Types.NUMERIC;
			case PgType.DATE -> Types.DATE;
			case PgType.TIME, PgType.TIMETZ -> Types.TIME;
			case PgType.TIMESTAMP, PgType.TIMESTAMPTZ -> Types.TIMESTAMP;
			case PgType.XML -> Types.SQLXML;
			default -> Types.OTHER;
		};
	}

}
