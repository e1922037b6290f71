package io.postlog.decoder;

/**
 * What the consumer wants from a stream, independent of the plugin. Immutable.
 *
 * @param binary whether values should arrive in binary (pgoutput on PostgreSQL 14+ only)
 * @param messages whether logical decoding messages ({@code pg_logical_emit_message})
 * should arrive
 * @param streaming whether in-progress transactions should be streamed (pgoutput on
 * PostgreSQL 14+ only)
 */
public record DecoderRequest(boolean binary, boolean messages, boolean streaming) {

	/**
	 * Text values, no messages, no streaming.
	 * @return the plainest request
	 */
	public static DecoderRequest text() {
		return new DecoderRequest(false, false, false);
	}

	/**
	 * Returns this request with binary values turned off.
	 * @return a request for text values
	 */
	public DecoderRequest withoutBinary() {
		return new DecoderRequest(false, this.messages, this.streaming);
	}

}
