package io.postlog.stream;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.postlog.Lsn;

/**
 * What to stream: {@code START_REPLICATION SLOT slotName LOGICAL startLsn} with
 * pgoutput's options.
 *
 * @param slotName the slot
 * @param publicationNames the publications ({@code publication_names})
 * @param protocolVersion pgoutput's {@code proto_version}
 * @param binary whether to ask for binary values ({@code binary}, PostgreSQL 14+)
 * @param messages whether to ask for logical decoding messages ({@code messages},
 * PostgreSQL 14+)
 * @param startLsn where to start; {@link Lsn#INVALID} starts at the slot's confirmed
 * position
 * @param statusInterval how often to send standby status updates
 * @param temporarySlot whether to create the slot first, as a temporary slot of the
 * stream's own connection ({@code CREATE_REPLICATION_SLOT ... TEMPORARY}), dropped by the
 * server when the connection ends
 * @param streaming whether to ask pgoutput to stream in-progress transactions
 * ({@code streaming 'on'}, PostgreSQL 14+), which needs protocol version 2 or later
 */
public record StreamRequest(String slotName, List<String> publicationNames, int protocolVersion, boolean binary,
		boolean messages, Lsn startLsn, Duration statusInterval, boolean temporarySlot, boolean streaming) {

	/**
	 * Creates a request.
	 * @param slotName the slot
	 * @param publicationNames the publications
	 * @param protocolVersion the protocol version
	 * @param binary whether values are binary
	 * @param messages whether messages are wanted
	 * @param startLsn where to start
	 * @param statusInterval the status interval
	 * @param temporarySlot whether to create a temporary slot first
	 * @param streaming whether to stream in-progress transactions
	 * @throws IllegalArgumentException if streaming is asked for with protocol version 1
	 */
	public StreamRequest {
		Objects.requireNonNull(slotName, "slotName");
		publicationNames = List.copyOf(publicationNames);
		Objects.requireNonNull(startLsn, "startLsn");
		Objects.requireNonNull(statusInterval, "statusInterval");
		if (streaming && protocolVersion < 2) {
			throw new IllegalArgumentException(
					"Streaming in-progress transactions needs pgoutput protocol version 2 or later, not "
							+ protocolVersion);
		}
	}

	/**
	 * Creates a request that does not stream in-progress transactions.
	 * @param slotName the slot
	 * @param publicationNames the publications
	 * @param protocolVersion the protocol version
	 * @param binary whether values are binary
	 * @param messages whether messages are wanted
	 * @param startLsn where to start
	 * @param statusInterval the status interval
	 * @param temporarySlot whether to create a temporary slot first
	 */
	public StreamRequest(String slotName, List<String> publicationNames, int protocolVersion, boolean binary,
			boolean messages, Lsn startLsn, Duration statusInterval, boolean temporarySlot) {
		this(slotName, publicationNames, protocolVersion, binary, messages, startLsn, statusInterval, temporarySlot,
				false);
	}

}
