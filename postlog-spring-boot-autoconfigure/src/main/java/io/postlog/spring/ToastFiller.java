package io.postlog.spring;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import io.postlog.Change;
import io.postlog.PostlogException;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.UnchangedToast;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PgIdentifiers;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;

/**
 * Replaces the {@link UnchangedToast} markers of a change's after image as a listener's
 * {@link ToastPolicy} says, before the listener's shape turns the change into its
 * argument. Installed only for listeners whose policy is not {@link ToastPolicy#MARKER};
 * a change without a marker passes untouched. Thread-safe: lanes share it.
 */
final class ToastFiller {

	private final ListenerEndpoint endpoint;

	private final @Nullable DataSource dataSource;

	private final AtomicLong reselects;

	private final Map<TableId, List<String>> keys = new ConcurrentHashMap<>();

	private final ValueDecoders decoders = ValueDecoders.standard();

	private ToastFiller(ListenerEndpoint endpoint, @Nullable DataSource dataSource, AtomicLong reselects) {
		this.endpoint = endpoint;
		this.dataSource = dataSource;
		this.reselects = reselects;
	}

	/**
	 * Returns the filler of a listener, or {@code null} for the marker.
	 * @param endpoint the listener
	 * @param dataSource the application's data source, or {@code null}
	 * @param reselects counts the rows read again
	 * @return the filler
	 * @throws PostlogException if the policy cannot work here
	 */
	static @Nullable ToastFiller of(ListenerEndpoint endpoint, @Nullable DataSource dataSource, AtomicLong reselects) {
		ToastPolicy policy = endpoint.toast().policy();
		if (policy == ToastPolicy.MARKER || !(endpoint.invoker() instanceof ChangeInvoker)) {
			return null;
		}
		if (policy == ToastPolicy.RESELECT && dataSource == null) {
			throw new PostlogException("Listener '" + endpoint.id() + "' has toast = RESELECT, which reads rows "
					+ "through the application's DataSource, and there is none");
		}
		if (policy == ToastPolicy.RESOLVER && endpoint.toast().resolver() == null) {
			throw new PostlogException(
					"Listener '" + endpoint.id() + "' has toast = RESOLVER without a " + "ToastResolver bean");
		}
		return new ToastFiller(endpoint, dataSource, reselects);
	}

	/**
	 * Returns the invoker that fills before it binds.
	 */
	ChangeInvoker invoker(ChangeInvoker invoker) {
		return new Filling(invoker, this);
	}

	Change fill(Change change) {
		Row after = change.after();
		if (after == null) {
			return change;
		}
		Set<String> unchanged = new LinkedHashSet<>();
		for (String column : after.columns()) {
			if (after.isUnchangedToast(column)) {
				unchanged.add(column);
			}
		}
		if (unchanged.isEmpty()) {
			return change;
		}
		Map<String, @Nullable Object> values = switch (this.endpoint.toast().policy()) {
			case REQUIRE_FULL -> fromBefore(change.before(), unchanged);
			case RESELECT -> reselect(change.table(), after, unchanged);
			case RESOLVER -> resolve(change, unchanged);
			case MARKER -> Map.of();
		};
		values.keySet().retainAll(unchanged);
		return new Change(change.operation(), change.table(), change.before(), after.with(values), change.xid(),
				change.commitLsn(), change.commitTime(), change.index(), change.id());
	}

	private static Map<String, @Nullable Object> fromBefore(@Nullable Row before, Set<String> columns) {
		Map<String, @Nullable Object> values = new LinkedHashMap<>();
		if (before != null) {
			for (String column : columns) {
				if (before.contains(column) && !before.isUnchangedToast(column)) {
					values.put(column, before.get(column));
				}
			}
		}
		return values;
	}

	private Map<String, @Nullable Object> resolve(Change change, Set<String> columns) {
		ToastResolver resolver = this.endpoint.toast().resolver();
		try {
			return new LinkedHashMap<>(resolver.resolve(change, Set.copyOf(columns)));
		}
		catch (RuntimeException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new PostlogException(
					"The ToastResolver of listener '" + this.endpoint.id() + "' failed for table " + change.table(),
					ex);
		}
	}

	/**
	 * Reads the columns' current values by the row's key, as text decoded by the stream's
	 * decoders (the value a listener would have been given). A row gone meanwhile keeps
	 * its markers.
	 */
	private Map<String, @Nullable Object> reselect(TableId table, Row after, Set<String> columns) {
		List<String> key = this.keys.computeIfAbsent(table, this::key);
		StringBuilder sql = new StringBuilder("SELECT ");
		List<String> names = new ArrayList<>(columns);
		for (int i = 0; i < names.size(); i++) {
			String quoted = PgIdentifiers.quote("column", names.get(i));
			sql.append((i > 0) ? ", " : "")
				.append(quoted)
				.append("::text, pg_catalog.pg_typeof(")
				.append(quoted)
				.append(")::oid");
		}
		sql.append(" FROM ").append(PgIdentifiers.quote(table)).append(" WHERE ");
		for (int i = 0; i < key.size(); i++) {
			sql.append((i > 0) ? " AND " : "").append(PgIdentifiers.quote("column", key.get(i))).append(" = ?");
		}
		Map<String, @Nullable Object> values = new LinkedHashMap<>();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement(sql.toString())) {
			for (int i = 0; i < key.size(); i++) {
				statement.setObject(i + 1, after.get(key.get(i)));
			}
			try (ResultSet row = statement.executeQuery()) {
				this.reselects.incrementAndGet();
				if (row.next()) {
					for (int i = 0; i < names.size(); i++) {
						String text = row.getString(2 * i + 1);
						values.put(names.get(i), (text != null) ? this.decoders.decodeText((int) row.getLong(2 * i + 2),
								text.getBytes(StandardCharsets.UTF_8)) : null);
					}
				}
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Listener '" + this.endpoint.id() + "' could not read unchanged TOASTed "
					+ "columns " + names + " of table " + table + " again (" + PgErrors.describe(ex) + ")", ex);
		}
		return values;
	}

	private List<String> key(TableId table) {
		List<String> key = new ArrayList<>();
		try (Connection connection = this.dataSource.getConnection();
				PreparedStatement statement = connection.prepareStatement("SELECT a.attname FROM pg_catalog.pg_class c"
						+ " JOIN pg_catalog.pg_index i ON i.indrelid = c.oid"
						+ " AND CASE c.relreplident WHEN 'i' THEN i.indisreplident ELSE i.indisprimary END"
						+ " JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n) ON true"
						+ " JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum"
						+ " WHERE c.oid = ?::regclass ORDER BY k.n")) {
			statement.setString(1, PgIdentifiers.quote(table));
			try (ResultSet row = statement.executeQuery()) {
				while (row.next()) {
					key.add(row.getString(1));
				}
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Listener '" + this.endpoint.id() + "' could not read the key of table " + table
					+ " (" + PgErrors.describe(ex) + ")", ex);
		}
		if (key.isEmpty()) {
			throw new PostlogException("Listener '" + this.endpoint.id() + "' has toast = RESELECT, which reads a row "
					+ "again by its key, and table " + table + " has no primary key or replica identity index");
		}
		return List.copyOf(key);
	}

	/**
	 * A change invoker that fills the markers before the listener's shape binds.
	 */
	private static final class Filling extends ChangeInvoker {

		private final ChangeInvoker delegate;

		private final ToastFiller filler;

		Filling(ChangeInvoker delegate, ToastFiller filler) {
			super(delegate.method());
			this.delegate = delegate;
			this.filler = filler;
		}

		@Override
		boolean accepts(Change change) {
			return this.delegate.accepts(change);
		}

		@Override
		Object payload(Change change) {
			return this.delegate.payload(this.filler.fill(change));
		}

	}

}
