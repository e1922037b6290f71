package io.postlog.stream;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The session settings a value's text form depends on, pinned on the replication
 * connection so that no server, database or role default can change what a value decodes
 * to: the output plugin runs in the walsender and prints values with that session's
 * settings.
 * <ul>
 * <li>{@code DateStyle=ISO}: pgjdbc asks for it at start-up and closes a connection whose
 * {@code DateStyle} stops starting with {@code ISO}; pinned all the same.</li>
 * <li>{@code IntervalStyle=postgres}, which pgjdbc leaves to the server (the decoder
 * reads every style, but one is less to go wrong).</li>
 * <li>{@code extra_float_digits=3}: below 1, {@code float4} and {@code float8} print
 * rounded (on every version), which no decoder can undo.</li>
 * <li>{@code bytea_output=hex}: wal2json strips the first two characters of a
 * {@code bytea}'s text on the assumption that they are hex's {@code \x}.</li>
 * <li>{@code lc_monetary=C}: {@code money}'s text follows the locale (symbol,
 * separators); the binary form, a count of cents, is formatted as under {@code C}.</li>
 * </ul>
 * {@link #statements()} are {@code SET}s for the replication connection right after it
 * connects (PostgreSQL 10 and later accept SQL on a {@code replication=database}
 * connection; 9.6 does not), as {@link PgLogicalStreamFactory} runs them;
 * {@link #startupOptions()} is the same as pgjdbc's {@code options} connection property,
 * which every version takes. Stateless.
 */
final class SessionSettings {

	private static final Map<String, String> SETTINGS = pinned();

	private SessionSettings() {
	}

	/**
	 * Returns the pinned settings, name to value, in the order they are set.
	 * @return the settings
	 */
	static Map<String, String> settings() {
		return SETTINGS;
	}

	private static Map<String, String> pinned() {
		Map<String, String> settings = new LinkedHashMap<>();
		settings.put("DateStyle", "ISO");
		settings.put("IntervalStyle", "postgres");
		settings.put("extra_float_digits", "3");
		settings.put("bytea_output", "hex");
		settings.put("lc_monetary", "C");
		return Collections.unmodifiableMap(settings);
	}

	/**
	 * Returns the {@code SET} statements that pin the settings.
	 * @return the statements, such as {@code SET DateStyle = 'ISO'}
	 */
	static List<String> statements() {
		return settings().entrySet()
			.stream()
			.map((setting) -> "SET " + setting.getKey() + " = '" + setting.getValue() + "'")
			.toList();
	}

	/**
	 * Returns the settings as start-up options, for pgjdbc's {@code options} property.
	 * Start-up options rank below the parameters pgjdbc sends itself ({@code DateStyle},
	 * {@code extra_float_digits}), which agree with these when
	 * {@code assumeMinServerVersion} is 9.0 or later.
	 * @return the options, such as {@code -c DateStyle=ISO -c IntervalStyle=postgres}
	 */
	static String startupOptions() {
		StringJoiner options = new StringJoiner(" ");
		settings().forEach((name, value) -> options.add("-c " + name + "=" + value));
		return options.toString();
	}

	/**
	 * Runs the {@code SET} statements on a connection (PostgreSQL 10 and later).
	 * @param connection a replication or ordinary connection, not closed
	 * @throws SQLException if a statement fails, for the caller to translate (a broken
	 * connection is a lost one)
	 */
	static void apply(Connection connection) throws SQLException {
		try (Statement statement = connection.createStatement()) {
			for (String sql : statements()) {
				statement.execute(sql);
			}
		}
	}

}
