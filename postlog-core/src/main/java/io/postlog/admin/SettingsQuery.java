package io.postlog.admin;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.postlog.PostlogException;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@link ReplicationSettings} from {@code pg_settings}, converting each value by
 * the unit the server reports, so that a setting given in {@code GB} or {@code min} reads
 * the same as one in {@code MB} or {@code s}. A setting the server lacks is simply not
 * among the rows.
 */
final class SettingsQuery {

	private static final String SETTINGS = "SELECT name, setting, unit FROM pg_settings WHERE name IN ("
			+ "'wal_level', 'max_replication_slots', 'max_wal_senders', 'max_slot_wal_keep_size', 'max_wal_size',"
			+ " 'wal_sender_timeout', 'idle_replication_slot_timeout', 'synchronized_standby_slots',"
			+ " 'sync_replication_slots', 'hot_standby_feedback')";

	// Every process with backend_type walsender holds one of max_wal_senders, whether it
	// streams or only runs SQL on a replication=database connection.
	private static final String USAGE = "SELECT (SELECT count(*) FROM pg_replication_slots),"
			+ " (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'walsender'), pg_is_in_recovery()";

	private SettingsQuery() {
	}

	static ReplicationSettings read(Connection connection, int serverVersion) {
		Map<String, Setting> settings = new HashMap<>();
		try (Statement statement = connection.createStatement()) {
			try (ResultSet row = statement.executeQuery(SETTINGS)) {
				while (row.next()) {
					settings.put(row.getString(1), new Setting(row.getString(2), row.getString(3)));
				}
			}
			try (ResultSet row = statement.executeQuery(USAGE)) {
				row.next();
				return new ReplicationSettings(serverVersion, row.getBoolean(3), text(settings, "wal_level"),
						integer(settings, "max_replication_slots"), row.getInt(1), integer(settings, "max_wal_senders"),
						row.getInt(2), limit(settings.get("max_slot_wal_keep_size")),
						bytes(settings.get("max_wal_size")), duration(settings.get("wal_sender_timeout")),
						nullableDuration(settings.get("idle_replication_slot_timeout")),
						nullableText(settings.get("synchronized_standby_slots")),
						nullableBoolean(settings.get("sync_replication_slots")),
						"on".equals(nullableText(settings.get("hot_standby_feedback"))));
			}
		}
		catch (SQLException ex) {
			throw new PostlogException("Could not read the server's replication settings", ex);
		}
	}

	private static String text(Map<String, Setting> settings, String name) {
		Setting setting = settings.get(name);
		if (setting == null) {
			throw new PostlogException("The server reports no setting " + name);
		}
		return setting.value();
	}

	private static int integer(Map<String, Setting> settings, String name) {
		return Integer.parseInt(text(settings, name));
	}

	private static @Nullable String nullableText(@Nullable Setting setting) {
		return (setting != null) ? setting.value() : null;
	}

	private static @Nullable Boolean nullableBoolean(@Nullable Setting setting) {
		return (setting != null) ? "on".equals(setting.value()) : null;
	}

	/** {@code -1} means no limit. */
	private static @Nullable Long limit(@Nullable Setting setting) {
		if (setting == null || Long.parseLong(setting.value()) < 0) {
			return null;
		}
		return bytes(setting);
	}

	static long bytes(@Nullable Setting setting) {
		if (setting == null) {
			return 0;
		}
		return Long.parseLong(setting.value()) * unitBytes(setting.unit());
	}

	private static Duration duration(@Nullable Setting setting) {
		Duration duration = nullableDuration(setting);
		return (duration != null) ? duration : Duration.ZERO;
	}

	static @Nullable Duration nullableDuration(@Nullable Setting setting) {
		if (setting == null) {
			return null;
		}
		long value = Long.parseLong(setting.value());
		if (value <= 0) {
			return Duration.ZERO;
		}
		String unit = (setting.unit() != null) ? setting.unit() : "ms";
		return switch (unit) {
			case "us" -> Duration.ofNanos(value * 1000);
			case "ms" -> Duration.ofMillis(value);
			case "s" -> Duration.ofSeconds(value);
			case "min" -> Duration.ofMinutes(value);
			case "h" -> Duration.ofHours(value);
			case "d" -> Duration.ofDays(value);
			default -> throw new PostlogException("Unknown time unit '" + unit + "' in pg_settings");
		};
	}

	/**
	 * Bytes per unit of a memory setting: {@code B}, {@code kB}, {@code MB}, {@code GB},
	 * {@code TB}, optionally with a count in front ({@code 8kB}, {@code 16MB}).
	 */
	static long unitBytes(@Nullable String unit) {
		if (unit == null || unit.isEmpty()) {
			return 1;
		}
		int digits = 0;
		while (digits < unit.length() && Character.isDigit(unit.charAt(digits))) {
			digits++;
		}
		long count = (digits > 0) ? Long.parseLong(unit.substring(0, digits)) : 1;
		long size = switch (unit.substring(digits)) {
			case "B" -> 1L;
			case "kB" -> 1024L;
			case "MB" -> 1024L * 1024;
			case "GB" -> 1024L * 1024 * 1024;
			case "TB" -> 1024L * 1024 * 1024 * 1024;
			default -> throw new PostlogException("Unknown memory unit '" + unit + "' in pg_settings");
		};
		return count * size;
	}

	record Setting(String value, @Nullable String unit) {

	}

}
