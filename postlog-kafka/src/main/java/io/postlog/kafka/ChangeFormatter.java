package io.postlog.kafka;

import io.postlog.Change;
import org.apache.kafka.common.header.Headers;

/**
 * Writes the value of a change record in one {@link RelayFormat}, and adds the headers
 * that form carries. Delivery thread only.
 */
interface ChangeFormatter {

	/**
	 * Writes a change's record value.
	 * @param change the change
	 * @param headers the record's headers, to which the form's own are added
	 * @return the value's bytes
	 */
	byte[] value(Change change, Headers headers);

	/**
	 * Returns the formatter of a form.
	 * @param format the form
	 * @param mode how a CloudEvent is carried, for {@link RelayFormat#CLOUDEVENTS}
	 * @param slotName the relay's slot, which names the events' source
	 * @param database the name of the relayed database, read when first needed
	 * @return the formatter
	 */
	static ChangeFormatter of(RelayFormat format, CloudEventsMode mode, String slotName, DatabaseName database) {
		return switch (format) {
			case POSTLOG -> (change, headers) -> ChangeJson.change(change);
			case DEBEZIUM -> new DebeziumJson(slotName, database::get);
			case CLOUDEVENTS -> new CloudEventsJson(mode, slotName);
		};
	}

}
