package io.postlog.kafka;

import java.nio.charset.StandardCharsets;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

import io.postlog.Change;
import io.postlog.SchemaChange;
import io.postlog.TableId;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;

/**
 * Writes a change as a CloudEvent (specification 1.0, Kafka protocol binding): {@code id}
 * the change id, {@code source} {@code /postlog/} and the relay's slot, {@code type}
 * {@code io.postlog.change.} and the operation in lower case ({@code insert},
 * {@code update}, {@code delete}, {@code truncate}, {@code snapshot}), {@code subject}
 * the table as {@code schema.table}, {@code time} the commit time, and as data postlog's
 * own change JSON ({@code application/json}). In binary mode the attributes are
 * {@code ce_} headers and the value is the data; in structured mode the value is the
 * whole event.
 * <p>
 * A schema change is an event of its own {@code type}, {@code io.postlog.schema.changed},
 * with {@code id} the schema change's id ({@link SchemaRecords}), the same
 * {@code source}, {@code subject} the table, no {@code time} (a schema change carries no
 * commit time) and as data postlog's schema change JSON ({@link SchemaRecords#json}).
 * Delivery thread only.
 */
final class CloudEventsJson implements ChangeFormatter, SchemaFormatter {

	/** The type of every change event, before its operation. */
	static final String TYPE_PREFIX = "io.postlog.change.";

	/** The type of every schema change event. */
	static final String SCHEMA_TYPE = "io.postlog.schema.changed";

	private static final byte[] SPEC_VERSION = "1.0".getBytes(StandardCharsets.UTF_8);

	private static final byte[] JSON = "application/json".getBytes(StandardCharsets.UTF_8);

	private static final byte[] CLOUD_EVENT_JSON = "application/cloudevents+json; charset=UTF-8"
		.getBytes(StandardCharsets.UTF_8);

	private final CloudEventsMode mode;

	private final String source;

	CloudEventsJson(CloudEventsMode mode, String slotName) {
		this.mode = mode;
		this.source = "/postlog/" + slotName;
	}

	@Override
	public byte[] value(Change change, Headers headers) {
		String type = TYPE_PREFIX + change.operation().name().toLowerCase(Locale.ROOT);
		String time = DateTimeFormatter.ISO_INSTANT.format(change.commitTime());
		return event(change.id(), type, change.table(), time, ChangeJson.change(change), headers);
	}

	@Override
	public byte[] value(SchemaChange change, String id, Headers headers) {
		return event(id, SCHEMA_TYPE, change.table(), null, SchemaRecords.json(change), headers);
	}

	private byte[] event(String id, String type, TableId table, @Nullable String time, byte[] data, Headers headers) {
		String subject = table.schema() + "." + table.name();
		if (this.mode == CloudEventsMode.BINARY) {
			headers.add("ce_specversion", SPEC_VERSION);
			headers.add("ce_id", utf8(id));
			headers.add("ce_source", utf8(this.source));
			headers.add("ce_type", utf8(type));
			headers.add("ce_subject", utf8(subject));
			if (time != null) {
				headers.add("ce_time", utf8(time));
			}
			headers.add("content-type", JSON);
			return data;
		}
		headers.add("content-type", CLOUD_EVENT_JSON);
		return ChangeJson.write((json) -> {
			json.writeStartObject();
			json.writeStringProperty("specversion", "1.0");
			json.writeStringProperty("id", id);
			json.writeStringProperty("source", this.source);
			json.writeStringProperty("type", type);
			json.writeStringProperty("subject", subject);
			if (time != null) {
				json.writeStringProperty("time", time);
			}
			json.writeStringProperty("datacontenttype", "application/json");
			json.writeName("data");
			json.writeRawValue(new String(data, StandardCharsets.UTF_8));
			json.writeEndObject();
		});
	}

	private static byte[] utf8(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
