package io.postlog.decoder;

import io.postlog.PostlogException;

/**
 * A decoder cannot do what was asked of it on this server or these tables: a capability
 * its plugin cannot express, a server version it does not run on, a table whose changes
 * it would lose. Raised at start, before any slot is created; the message names the
 * decoder, the reason and the fix, never a row value.
 */
public class DecoderRefusedException extends PostlogException {

	private static final long serialVersionUID = 1L;

	private final String decoder;

	/**
	 * Creates an exception.
	 * @param decoder the decoder's name ({@code pgoutput}, {@code wal2json},
	 * {@code pglogical})
	 * @param message what is refused and what to do about it
	 */
	public DecoderRefusedException(String decoder, String message) {
		super("Decoder " + decoder + ": " + message);
		this.decoder = decoder;
	}

	/**
	 * Returns the decoder that refused.
	 * @return its name
	 */
	public String decoder() {
		return this.decoder;
	}

}
