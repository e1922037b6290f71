package io.postlog.kafka;

/**
 * The form of the relay's change records and schema change records
 * ({@code postlog.kafka.format}). Whatever the form, a record's topic, key and partition
 * are the same, and it carries the headers {@code postlog-id} and
 * {@code postlog-commit-lsn}; outbox records are the application's own payloads and take
 * no form.
 */
public enum RelayFormat {

	/**
	 * postlog's own change JSON: {@code op}, {@code table}, {@code before},
	 * {@code after}, {@code commitLsn}, {@code xid}, {@code commitTime}, {@code id}; and
	 * postlog's schema change JSON.
	 */
	POSTLOG,

	/**
	 * Debezium's change event envelope without schema: {@code before}, {@code after},
	 * {@code source} (with {@code lsn}, {@code txId}, {@code schema}, {@code table},
	 * {@code ts_ms}), {@code op} ({@code c}, {@code u}, {@code d}, {@code r}, {@code t})
	 * and {@code ts_ms}, as Flink's {@code debezium-json} format and Debezium's sinks
	 * read it; schema changes as records of Debezium's schema change topic
	 * ({@code databaseName}, {@code schemaName}, {@code ddl}, {@code tableChanges}).
	 */
	DEBEZIUM,

	/**
	 * A CloudEvent (version 1.0, Kafka protocol binding) whose {@code id} is the change
	 * id and whose data is postlog's own change JSON, in the {@linkplain CloudEventsMode
	 * mode} chosen; a schema change is a CloudEvent of type
	 * {@code io.postlog.schema.changed} whose data is postlog's schema change JSON.
	 */
	CLOUDEVENTS

}
