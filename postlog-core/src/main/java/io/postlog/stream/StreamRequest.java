package io.postlog.stream;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.postlog.Lsn;

/**
 * What to stream: {@code START_REPLICATION SLOT slotName LOGICAL startLsn (options)} for
 * one output plugin, with the options its decoder chose
 * ({@link io.postlog.decoder.LogicalDecoder#startOptions}). Immutable.
 *
 * @param slotName the slot
 * @param plugin the output plugin, which a temporary slot is created with
 * @param options the plugin's options, name to value, passed in this order (copied)
 * @param startLsn where to start; {@link Lsn#INVALID} starts at the slot's confirmed
 * position
 * @param statusInterval how often to send standby status updates
 * @param temporarySlot whether to create the slot first, as a temporary slot of the
 * stream's own connection ({@code CREATE_REPLICATION_SLOT ... TEMPORARY}), dropped by the
 * server when the connection ends
 */
public record StreamRequest(String slotName, String plugin, Map<String, String> options, Lsn startLsn,
		Duration statusInterval, boolean temporarySlot) {

	/**
	 * Creates a request.
	 * @param slotName the slot
	 * @param plugin the output plugin
	 * @param options the plugin's options, in order
	 * @param startLsn where to start
	 * @param statusInterval the status interval
	 * @param temporarySlot whether to create a temporary slot first
	 */
	public StreamRequest {
		Objects.requireNonNull(slotName, "slotName");
		Objects.requireNonNull(plugin, "plugin");
		Map<String, String> ordered = new LinkedHashMap<>();
		options.forEach((name, value) -> ordered.put(Objects.requireNonNull(name, "option name"),
				Objects.requireNonNull(value, "option value")));
		options = Collections.unmodifiableMap(ordered);
		Objects.requireNonNull(startLsn, "startLsn");
		Objects.requireNonNull(statusInterval, "statusInterval");
	}

}
