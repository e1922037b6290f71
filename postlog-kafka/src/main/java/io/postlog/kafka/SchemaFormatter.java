package io.postlog.kafka;

import io.postlog.SchemaChange;
import org.apache.kafka.common.header.Headers;

/**
 * Writes the value of a schema change record in one {@link RelayFormat}, and adds the
 * headers that form carries. Delivery thread only.
 */
interface SchemaFormatter {

	/**
	 * Writes a schema change's record value.
	 * @param change the schema change
	 * @param id the schema change's id ({@link SchemaRecords})
	 * @param headers the record's headers, to which the form's own are added
	 * @return the value's bytes
	 */
	byte[] value(SchemaChange change, String id, Headers headers);

	/**
	 * Returns the formatter of a form.
	 * @param format the form
	 * @param mode how a CloudEvent is carried, for {@link RelayFormat#CLOUDEVENTS}
	 * @param slotName the relay's slot, which names the events' source
	 * @param database the name of the relayed database, read when first needed
	 * @return the formatter
	 */
	static SchemaFormatter of(RelayFormat format, CloudEventsMode mode, String slotName, DatabaseName database) {
		return switch (format) {
			case POSTLOG -> (change, id, headers) -> SchemaRecords.json(change);
			case DEBEZIUM -> new DebeziumSchemaJson(slotName, database::get);
			case CLOUDEVENTS -> new CloudEventsJson(mode, slotName);
		};
	}

}
