package io.postlog.schema;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.postlog.pgoutput.PgOutputMessage;
import org.jspecify.annotations.Nullable;

/**
 * What the catalog says now about the table of a Relation message: its live attributes
 * (number, type, nullability) and the printed name of each announced column's type. The
 * catalog is read when the Relation message arrives, so it may already be ahead of the
 * stream; {@link SchemaTracker} uses an attribute only when its name and type agree with
 * the message. Implementations decide which connection answers.
 */
@FunctionalInterface
public interface SchemaCatalog {

	/**
	 * Reads the table of a relation.
	 * @param relation the Relation message
	 * @return what the catalog holds, or {@code null} if the table no longer exists
	 */
	@Nullable CatalogRelation read(PgOutputMessage.Relation relation);

	/**
	 * Reads the table of a relation over a connection (two catalog queries).
	 * @param connection a connection to the streamed database
	 * @param relation the Relation message
	 * @return what the catalog holds, or {@code null} if the table no longer exists
	 * @throws SQLException if a query fails
	 */
	static @Nullable CatalogRelation query(Connection connection, PgOutputMessage.Relation relation)
			throws SQLException {
		Map<String, CatalogRelation.Attribute> attributes = new HashMap<>();
		try (PreparedStatement statement = connection.prepareStatement(
				"SELECT attname, attnum, atttypid, atttypmod, attnotnull FROM pg_attribute WHERE attrelid = ? "
						+ "AND attnum > 0 AND NOT attisdropped")) {
			statement.setLong(1, Integer.toUnsignedLong(relation.relationId()));
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					attributes.put(rows.getString(1), new CatalogRelation.Attribute(rows.getInt(2),
							(int) rows.getLong(3), rows.getInt(4), rows.getBoolean(5)));
				}
			}
		}
		if (attributes.isEmpty()) {
			return null;
		}
		List<PgOutputMessage.Column> columns = relation.columns();
		Long[] oids = new Long[columns.size()];
		Integer[] modifiers = new Integer[columns.size()];
		for (int i = 0; i < oids.length; i++) {
			oids[i] = Integer.toUnsignedLong(columns.get(i).typeOid());
			modifiers[i] = columns.get(i).typeModifier();
		}
		List<String> typeNames = new ArrayList<>(oids.length);
		try (PreparedStatement statement = connection.prepareStatement("SELECT format_type(t, m) "
				+ "FROM unnest(?::int8[]::oid[], ?::int4[]) WITH ORDINALITY AS x(t, m, i) ORDER BY i")) {
			Array oidArray = connection.createArrayOf("int8", oids);
			Array modifierArray = connection.createArrayOf("int4", modifiers);
			statement.setArray(1, oidArray);
			statement.setArray(2, modifierArray);
			try (ResultSet rows = statement.executeQuery()) {
				while (rows.next()) {
					typeNames.add(rows.getString(1));
				}
			}
		}
		return new CatalogRelation(attributes, typeNames);
	}

	/**
	 * A table as the catalog holds it now.
	 *
	 * @param attributes the live attributes by name (copied)
	 * @param typeNames the {@code format_type} name of each column of the Relation
	 * message, in its order (copied)
	 */
	record CatalogRelation(Map<String, Attribute> attributes, List<String> typeNames) {

		/**
		 * Creates a catalog answer.
		 * @param attributes the attributes
		 * @param typeNames the type names
		 */
		public CatalogRelation {
			attributes = Map.copyOf(attributes);
			typeNames = List.copyOf(typeNames);
		}

		/**
		 * One live attribute.
		 *
		 * @param attnum its number, which a rename or type change keeps and a drop
		 * retires
		 * @param typeOid its type
		 * @param typeModifier its type modifier
		 * @param notNull whether it is {@code NOT NULL}
		 */
		public record Attribute(int attnum, int typeOid, int typeModifier, boolean notNull) {

		}

	}

}
