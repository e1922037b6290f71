package io.postlog.consumer;

import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

import io.postlog.types.TypeLookup;
import io.postlog.types.ValueDecoder;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;

/**
 * Resolves types that are not built in from {@code pg_type} on the admin connection, once
 * per OID (the decoders remember the answer): enums decode to their label, domains as
 * their base type, arrays of either through their element type. Other types stay raw.
 * Thread-safe.
 */
final class CatalogTypeLookup implements TypeLookup {

	private static final String QUERY = "SELECT typtype, typbasetype, typelem, typcategory FROM pg_type WHERE oid = ?";

	private final AdminConnections admin;

	CatalogTypeLookup(AdminConnections admin) {
		this.admin = admin;
	}

	@Override
	public @Nullable ValueDecoder lookup(int typeOid, ValueDecoders decoders) {
		PgTypeRow type = this.admin.apply("Looking up type OID " + typeOid, (connection) -> {
			try (PreparedStatement statement = connection.prepareStatement(QUERY)) {
				statement.setLong(1, Integer.toUnsignedLong(typeOid));
				try (ResultSet row = statement.executeQuery()) {
					return row.next()
							? new PgTypeRow(row.getString(1), row.getLong(2), row.getLong(3), row.getString(4)) : null;
				}
			}
		});
		if (type == null) {
			return null;
		}
		if ("e".equals(type.typtype())) {
			return EnumLabel.INSTANCE;
		}
		if ("d".equals(type.typtype()) && type.typbasetype() != 0) {
			return decoders.decoderFor((int) type.typbasetype());
		}
		if ("A".equals(type.typcategory()) && type.typelem() != 0) {
			return decoders.arrayOf(typeOid, decoders.decoderFor((int) type.typelem()));
		}
		return null;
	}

	private record PgTypeRow(String typtype, long typbasetype, long typelem, String typcategory) {

	}

	/**
	 * An enum value: its label, which is also what {@code enum_send} sends.
	 */
	private static final class EnumLabel implements ValueDecoder {

		static final EnumLabel INSTANCE = new EnumLabel();

		@Override
		public Object decodeText(byte[] utf8) {
			return new String(utf8, StandardCharsets.UTF_8);
		}

		@Override
		public Object decodeBinary(byte[] value) {
			return new String(value, StandardCharsets.UTF_8);
		}

		@Override
		public Object decodeText(byte[] source, int offset, int length) {
			return new String(source, offset, length, StandardCharsets.UTF_8);
		}

		@Override
		public Object decodeBinary(byte[] source, int offset, int length) {
			return new String(source, offset, length, StandardCharsets.UTF_8);
		}

	}

}
