package io.postlog.decoder;

import io.postlog.PostlogException;

/**
 * A payload of the {@code wal2json} or {@code pglogical_output} plugin is malformed or
 * out of place (a change outside a transaction, a commit without its LSN). The message
 * names the plugin, what was being read, the offset and the reason, never a row value.
 * (pgoutput's own payloads raise {@link io.postlog.pgoutput.PgOutputDecodingException}.)
 */
public class PluginDecodingException extends PostlogException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param plugin the output plugin
	 * @param what the message or field being read
	 * @param offset the byte offset in the payload, or -1 if the payload as a whole
	 * @param reason why it failed; must not contain row values
	 */
	public PluginDecodingException(String plugin, String what, int offset, String reason) {
		super("Cannot decode " + plugin + " " + what + ((offset >= 0) ? " at offset " + offset : "") + ": " + reason);
	}

}
