package io.postlog.kafka;

/**
 * How a CloudEvent is carried in a Kafka record, as the CloudEvents Kafka protocol
 * binding defines the two modes.
 */
public enum CloudEventsMode {

	/**
	 * The record's value is postlog's change JSON, and the event's attributes are
	 * {@code ce_}-prefixed headers with {@code content-type: application/json}: a reader
	 * that knows nothing of CloudEvents reads the value as with the {@code postlog}
	 * format.
	 */
	BINARY,

	/**
	 * The record's value is the whole event as JSON ({@code specversion}, {@code id},
	 * {@code source}, {@code type}, ..., {@code data}), with
	 * {@code content-type: application/cloudevents+json; charset=UTF-8}.
	 */
	STRUCTURED

}
