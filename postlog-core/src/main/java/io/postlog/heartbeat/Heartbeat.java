package io.postlog.heartbeat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;
import java.util.Optional;

import io.postlog.LogicalMessage;
import io.postlog.Row;
import io.postlog.TableId;

/**
 * One heartbeat as written and as it comes back through the stream: on PostgreSQL 14+ a
 * non-transactional logical message with prefix {@value #PREFIX} and the content
 * {@code v1;<slot>;<instance>;<sequence>;<epoch millis>}; before 14 the row of the
 * heartbeat table for the slot, with the same fields as columns. The instance tells apart
 * the replicas of one application that share a slot. Immutable.
 *
 * @param slotName the slot whose reader should see it
 * @param instance the emitting process's id
 * @param sequence the emitter's counter, from 1
 * @param emittedAt when it was written (the emitter's clock, millisecond precision)
 */
public record Heartbeat(String slotName, String instance, long sequence, Instant emittedAt) {

	/** The prefix of heartbeat messages. */
	public static final String PREFIX = "postlog.heartbeat";

	private static final String VERSION = "v1";

	/**
	 * Creates a heartbeat.
	 * @param slotName the slot
	 * @param instance the emitting process
	 * @param sequence the counter
	 * @param emittedAt when it was written
	 */
	public Heartbeat {
		Objects.requireNonNull(slotName, "slotName");
		Objects.requireNonNull(instance, "instance");
		Objects.requireNonNull(emittedAt, "emittedAt");
		if (instance.indexOf(';') >= 0) {
			throw new IllegalArgumentException("The instance id must not contain ';'");
		}
	}

	/**
	 * Returns the content of the logical message for this heartbeat.
	 * @return UTF-8 bytes
	 */
	public byte[] content() {
		return (VERSION + ";" + this.slotName + ";" + this.instance + ";" + this.sequence + ";"
				+ this.emittedAt.toEpochMilli())
			.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Reads a heartbeat from a logical message.
	 * @param message a message from the stream
	 * @return the heartbeat, or empty if the message is not one (another prefix, or a
	 * content this version does not know)
	 */
	public static Optional<Heartbeat> fromMessage(LogicalMessage message) {
		if (!PREFIX.equals(message.prefix())) {
			return Optional.empty();
		}
		String[] fields = new String(message.content(), StandardCharsets.UTF_8).split(";", -1);
		if (fields.length != 5 || !VERSION.equals(fields[0])) {
			return Optional.empty();
		}
		try {
			return Optional.of(new Heartbeat(fields[1], fields[2], Long.parseLong(fields[3]),
					Instant.ofEpochMilli(Long.parseLong(fields[4]))));
		}
		catch (NumberFormatException ex) {
			return Optional.empty();
		}
	}

	/**
	 * Reads a heartbeat from a row of the heartbeat table ({@link HeartbeatWriter}).
	 * @param table the table the row belongs to
	 * @param heartbeatTable the heartbeat table
	 * @param row the row after an insert or update
	 * @return the heartbeat, or empty if the row is of another table, or lacks a field or
	 * has it in another type
	 */
	public static Optional<Heartbeat> fromRow(TableId table, TableId heartbeatTable, Row row) {
		if (!table.equals(heartbeatTable) || !row.contains("slot_name") || !row.contains("instance")
				|| !row.contains("sequence") || !row.contains("emitted_at")) {
			return Optional.empty();
		}
		try {
			String slotName = row.get("slot_name", String.class);
			String instance = row.get("instance", String.class);
			Long sequence = row.get("sequence", Long.class);
			OffsetDateTime emittedAt = row.get("emitted_at", OffsetDateTime.class);
			if (slotName == null || instance == null || sequence == null || emittedAt == null) {
				return Optional.empty();
			}
			return Optional.of(new Heartbeat(slotName, instance, sequence, emittedAt.toInstant()));
		}
		catch (ClassCastException | IllegalArgumentException ex) {
			return Optional.empty();
		}
	}

}
