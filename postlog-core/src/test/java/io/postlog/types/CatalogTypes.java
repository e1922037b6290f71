package io.postlog.types;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import io.postlog.test.PostgresDatabase;
import org.jspecify.annotations.Nullable;

/**
 * Enums, domains and arrays of them from {@code pg_type}, as the consumer's catalog
 * look-up resolves them: an enum as its label, a domain as its base type, an array
 * through its element.
 *
 * @param database the database to ask
 */
public record CatalogTypes(PostgresDatabase database) implements TypeLookup {

	@Override
	public @Nullable ValueDecoder lookup(int typeOid, ValueDecoders decoders) {
		try (Connection connection = this.database.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT typtype, typbasetype, typelem, typcategory FROM pg_type WHERE oid = ?")) {
			statement.setLong(1, Integer.toUnsignedLong(typeOid));
			try (ResultSet row = statement.executeQuery()) {
				if (!row.next()) {
					return null;
				}
				if ("e".equals(row.getString(1))) {
					return decoders.decoderFor(PgType.TEXT);
				}
				if ("d".equals(row.getString(1))) {
					return decoders.decoderFor((int) row.getLong(2));
				}
				if ("A".equals(row.getString(4)) && row.getLong(3) != 0) {
					return decoders.arrayOf(typeOid, decoders.decoderFor((int) row.getLong(3)));
				}
				return null;
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
