package io.postlog.decoder;

import java.sql.Connection;
import java.util.Map;

/**
 * One logical decoding output plugin as postlog streams with it
 * ({@code postlog.decoder}): the plugin a slot is created for, the options
 * {@code START_REPLICATION} passes it, how its tables are chosen, what it can carry, the
 * refusals at start of what it cannot, and a decoder per stream that yields the messages
 * pgoutput yields, so that listeners see the same {@code Change}s whatever the plugin.
 * Implementations are immutable and thread-safe; their stream decoders are not.
 * <p>
 * Start-up calls {@link #check} before any slot or publication is created and
 * {@link #checkSlot} once a permanent slot exists, streams with {@link #plugin()} and
 * {@link #startOptions}, and on every connect makes a new {@link #newStream} for the
 * payloads of that connection.
 */
public interface LogicalDecoder {

	/**
	 * Returns the decoder's name, as {@code postlog.decoder} spells it.
	 * @return {@code pgoutput}, {@code wal2json} or {@code pglogical}
	 */
	String name();

	/**
	 * Returns the output plugin slots are created with
	 * ({@code pg_create_logical_replication_slot(slot, plugin)},
	 * {@code CREATE_REPLICATION_SLOT slot LOGICAL plugin}) and that an existing slot must
	 * have.
	 * @return the plugin, such as {@code pglogical_output}
	 */
	String plugin();

	/**
	 * Returns what the plugin can carry.
	 * @return the capabilities
	 */
	DecoderCapabilities capabilities();

	/**
	 * Returns how the plugin chooses the tables it sends.
	 * @return the table selection
	 */
	TableSelection tableSelection();

	/**
	 * Checks, before any slot is created, that this decoder can serve the request on this
	 * server and these tables, and returns the request it will serve: the same, or with
	 * binary values turned off where only the server version stands in the way (pgoutput
	 * below 14; the caller says so once).
	 * @param serverVersion the server's {@code server_version_num}
	 * @param request what the consumer wants
	 * @param catalog the catalog, for checks of the tables
	 * @return the request to stream with
	 * @throws DecoderRefusedException naming the decoder, if it cannot serve the request
	 */
	DecoderRequest check(int serverVersion, DecoderRequest request, DecoderCatalog catalog);

	/**
	 * Checks, once the slot exists and before streaming from it, what only the plugin on
	 * the server can answer (such as which options its version knows). Does nothing by
	 * default.
	 * @param connection an ordinary connection to the slot's database
	 * @param slotName a slot of {@link #plugin()} that no process streams from
	 * @param request the checked request
	 * @throws DecoderRefusedException naming the decoder, if the plugin cannot serve it
	 */
	default void checkSlot(Connection connection, String slotName, DecoderRequest request) {
	}

	/**
	 * Returns the options {@code START_REPLICATION ... LOGICAL lsn (options)} passes the
	 * plugin, for a request {@link #check} returned. pgjdbc quotes the names and wraps
	 * the values in single quotes without escaping; no value holds a single quote.
	 * @param serverVersion the server's {@code server_version_num}
	 * @param request the checked request
	 * @return the options, name to value, in a fixed order
	 */
	Map<String, String> startOptions(int serverVersion, DecoderRequest request);

	/**
	 * Returns a decoder for the payloads of one new stream (call it on every connect).
	 * @param serverVersion the server's {@code server_version_num}
	 * @param request the checked request the stream was started with
	 * @param catalog the catalog, which the decoder may read now and while decoding
	 * @return the stream's decoder
	 */
	StreamDecoder newStream(int serverVersion, DecoderRequest request, DecoderCatalog catalog);

}
