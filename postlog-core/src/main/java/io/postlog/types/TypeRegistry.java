package io.postlog.types;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The types one stream announced: pgoutput's Type messages, or the ones a decoder of
 * another plugin synthesised, each naming a type OID with a schema and a name. pgoutput
 * announces a domain under its own OID with its base type's name, so a domain of a
 * built-in type still decodes as its base type after the domain was dropped and the
 * catalog no longer knows it. A type's decoder is, in this order, the one
 * {@link ValueDecoders} resolves (registered, built in, or found by its lookup), the
 * built-in type the stream announced it as, or else the raw decoder. An enum the catalog
 * no longer knows cannot be told from any other type by its announcement, so it stays raw
 * (its label as a {@code String} in text, its label's bytes in binary); that is logged
 * once per type. Not thread-safe: one per stream.
 */
public final class TypeRegistry {

	private static final Logger logger = LoggerFactory.getLogger(TypeRegistry.class);

	/**
	 * pg_catalog's names of the built-in types postlog decodes ({@code _int4} for
	 * arrays).
	 */
	private static final Map<String, Integer> BUILTIN_NAMES = builtinNames();

	private final ValueDecoders values;

	private final Map<Integer, String> announced = new HashMap<>();

	private final Set<Integer> warned = new HashSet<>();

	/**
	 * Creates a registry.
	 * @param values the decoders to resolve types with first
	 */
	public TypeRegistry(ValueDecoders values) {
		this.values = values;
	}

	/**
	 * Records a type the stream announced, replacing an earlier announcement of its OID.
	 * @param typeOid the type's OID
	 * @param namespace its schema; an empty one (pgoutput's way of sending
	 * {@code pg_catalog}) means {@code pg_catalog}
	 * @param name its name (for a domain, pgoutput sends its base type's)
	 */
	public void announce(int typeOid, String namespace, String name) {
		this.announced.put(typeOid, (namespace.isEmpty() ? "pg_catalog" : namespace) + "." + name);
	}

	/**
	 * Returns the decoder of a type.
	 * @param typeOid the type's OID
	 * @return the decoder, never {@code null}
	 */
	public ValueDecoder decoderFor(int typeOid) {
		ValueDecoder decoder = this.values.decoderFor(typeOid);
		if (!ValueDecoders.isRaw(decoder)) {
			return decoder;
		}
		String name = this.announced.get(typeOid);
		if (name == null) {
			return decoder;
		}
		Integer builtin = name.startsWith("pg_catalog.") ? BUILTIN_NAMES.get(name.substring(11)) : null;
		if (builtin != null) {
			return this.values.decoderFor(builtin);
		}
		if (this.warned.add(typeOid)) {
			logger.warn("Type OID {} ({}) is neither built in nor in the catalog (dropped since?): "
					+ "its values are delivered raw", Integer.toUnsignedString(typeOid), name);
		}
		return decoder;
	}

	/**
	 * Returns the OID of a built-in type postlog decodes, by its {@code pg_catalog} name.
	 * @param name the type's name, such as {@code int4} or {@code _int4}
	 * @return the OID, or {@code null} if postlog decodes no built-in type of that name
	 */
	static @Nullable Integer builtinOid(String name) {
		return BUILTIN_NAMES.get(name);
	}

	/**
	 * Reads {@link PgType}'s constants, whose names are the types' {@code pg_catalog}
	 * names in upper case (a test checks them against the catalog), so the two lists
	 * cannot drift apart.
	 */
	private static Map<String, Integer> builtinNames() {
		Map<String, Integer> names = new HashMap<>();
		for (Field field : PgType.class.getFields()) {
			if (!Modifier.isStatic(field.getModifiers()) || field.getType() != int.class) {
				continue;
			}
			String constant = field.getName().toLowerCase(java.util.Locale.ROOT);
			String name = constant.endsWith("_array")
					? "_" + constant.substring(0, constant.length() - "_array".length()) : constant;
			try {
				names.put(name, field.getInt(null));
			}
			catch (IllegalAccessException ex) {
				throw new IllegalStateException(ex);
			}
		}
		return Map.copyOf(names);
	}

}
