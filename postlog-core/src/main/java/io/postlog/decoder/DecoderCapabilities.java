package io.postlog.decoder;

/**
 * What a decoder's plugin can carry, and the oldest server it runs on. Immutable.
 *
 * @param binary whether values can arrive in binary (and from which server version see
 * {@link LogicalDecoder#check})
 * @param messages whether logical decoding messages can arrive
 * @param streaming whether in-progress transactions can be streamed
 * @param truncate whether {@code TRUNCATE} arrives as a change
 * @param minServerVersion the oldest {@code server_version_num} the decoder runs on
 */
public record DecoderCapabilities(boolean binary, boolean messages, boolean streaming, boolean truncate,
		int minServerVersion) {

}
