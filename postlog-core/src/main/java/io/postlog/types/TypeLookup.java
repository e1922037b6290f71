package io.postlog.types;

import org.jspecify.annotations.Nullable;

/**
 * Finds a decoder for a type that is neither built in nor registered, typically with a
 * catalog query: an enum decodes as {@code decoders.decoderFor(PgType.TEXT)} (its label),
 * a domain as {@code decoders.decoderFor(baseTypeOid)}, an array of either as
 * {@code decoders.arrayOf(decoders.decoderFor(elementOid))}. {@link ValueDecoders} calls
 * it at most once per OID and caches the answer, possibly from several threads, so an
 * implementation must be thread-safe.
 */
@FunctionalInterface
public interface TypeLookup {

	/**
	 * Returns the decoder for a type.
	 * @param typeOid the type's OID
	 * @param decoders the decoders asking, to build on
	 * @return the decoder, or {@code null} to decode the type's values raw
	 * ({@code String} for text, {@code byte[]} for binary)
	 */
	@Nullable ValueDecoder lookup(int typeOid, ValueDecoders decoders);

}
