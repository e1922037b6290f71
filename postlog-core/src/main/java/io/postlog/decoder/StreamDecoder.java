package io.postlog.decoder;

import java.nio.ByteBuffer;
import java.util.List;

import io.postlog.pgoutput.PgOutputMessage;

/**
 * Decodes the payloads of one stream (one replication connection, from its first payload
 * on) into the messages pgoutput yields, keeping whatever the plugin's protocol needs
 * between payloads (the open transaction, relations, a startup message). Not thread-safe:
 * used by the thread that reads the stream; a new one for every connect.
 */
public interface StreamDecoder {

	/**
	 * Decodes one payload. The tuple values of the messages may be slices of the
	 * payload's array, not copies: use them before the payload's bytes change.
	 * @param payload one output plugin message, consumed
	 * @return the messages it stands for, in order, possibly none (a startup message, a
	 * logical message nobody asked for)
	 * @throws io.postlog.PostlogException typed {@link PluginDecodingException} (or, for
	 * pgoutput, {@link io.postlog.pgoutput.PgOutputDecodingException}) if the payload is
	 * malformed or out of place
	 */
	List<PgOutputMessage> decode(ByteBuffer payload);

}
