package io.postlog.snapshot;

import java.util.ArrayList;
import java.util.List;

import io.postlog.admin.PgIdentifiers;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of a backfill chunk's read, {@link BackfillReader}'s keyset-paged {@code COPY}:
 * identifiers quoted, the key that the read goes on from written as literals of its text
 * form. Stateless.
 */
final class ChunkSql {

	private ChunkSql() {
	}

	/**
	 * Returns the {@code COPY} of one chunk: the key's text (unless the table's
	 * {@link BackfillTable#keyTextFromValues} makes it from the last row's values), then
	 * every published column, of the rows within the range (and the publication's row
	 * filter) after the given key, in key order, at most {@code limit}.
	 * @param table the table
	 * @param range the range, or {@code null} for the whole table (a range of another
	 * table, or of a column the table no longer publishes, is ignored: a superset is
	 * safe)
	 * @param after the key to read on from, in its text form, or {@code null} from the
	 * start
	 * @param limit the most rows
	 * @param binary whether values come in binary
	 * @return the statement
	 */
	static String of(BackfillTable table, @Nullable ChunkRange range, @Nullable List<String> after, int limit,
			boolean binary) {
		TablePlan plan = table.plan;
		List<String> keys = new ArrayList<>();
		for (int position : table.keyPositions) {
			keys.add(PgIdentifiers.quote("column", plan.columnNames.get(position)));
		}
		StringBuilder sql = new StringBuilder("COPY (SELECT ");
		if (!table.keyTextFromValues) {
			for (String key : keys) {
				sql.append(key).append("::text, ");
			}
		}
		for (int i = 0; i < plan.columnNames.size(); i++) {
			sql.append((i > 0) ? ", " : "").append(PgIdentifiers.quote("column", plan.columnNames.get(i)));
		}
		sql.append(" FROM ").append(PgIdentifiers.quote(plan.table));
		List<String> conditions = new ArrayList<>();
		if (plan.rowFilter != null) {
			conditions.add("(" + plan.rowFilter + ")");
		}
		if (range != null && range.table().equals(plan.table)
				&& (range.column() == null || plan.columnNames.contains(range.column()))) {
			String where = range.where();
			if (where != null) {
				conditions.add("(" + where + ")");
			}
		}
		if (after != null) {
			if (after.size() != keys.size()) {
				throw new IllegalArgumentException("A key of " + keys.size() + " columns, not " + after.size());
			}
			List<String> literals = new ArrayList<>();
			for (String value : after) {
				literals.add(literal(value));
			}
			conditions.add("(" + String.join(", ", keys) + ") > (" + String.join(", ", literals) + ")");
			if (keys.size() == 1) {
				conditions.set(conditions.size() - 1, keys.get(0) + " > " + literals.get(0));
			}
		}
		if (!conditions.isEmpty()) {
			sql.append(" WHERE ").append(String.join(" AND ", conditions));
		}
		// Qualified, as the key's text in the select list has the key column's name.
		String qualifier = PgIdentifiers.quote(plan.table) + ".";
		sql.append(" ORDER BY ")
			.append(qualifier)
			.append(String.join(", " + qualifier, keys))
			.append(" LIMIT ")
			.append(limit);
		sql.append(") TO STDOUT (FORMAT ").append(binary ? "binary" : "text").append(")");
		return sql.toString();
	}

	/**
	 * Quotes a key's text as a string literal; with standard conforming strings only the
	 * quote needs doubling.
	 */
	static String literal(String value) {
		if (value.indexOf('\0') >= 0) {
			throw new IllegalArgumentException("A key's text holds NUL");
		}
		return "'" + value.replace("'", "''") + "'";
	}

}
