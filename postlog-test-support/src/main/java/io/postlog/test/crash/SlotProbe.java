package io.postlog.test.crash;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import io.postlog.test.PostgresDatabase;
import org.jspecify.annotations.Nullable;

/**
 * Reads one replication slot's state from {@code pg_replication_slots}, each call on a
 * connection of its own, and waits for the states a crash proof expects between kills.
 * LSNs are 64-bit positions ({@code 0} for none), as {@code io.postlog.Lsn.of} takes
 * them. Thread-safe.
 *
 * @param database the database the slot belongs to
 * @param slot the slot's name
 */
public record SlotProbe(PostgresDatabase database, String slot) {

	private static final Duration POLL = Duration.ofMillis(100);

	/**
	 * Returns the slot's {@code confirmed_flush_lsn}.
	 * @return the position, {@code 0} if the slot is missing or has none
	 */
	public long confirmedFlushLsn() {
		return parse(column("confirmed_flush_lsn::text"));
	}

	/**
	 * Returns the slot's {@code restart_lsn}.
	 * @return the position, {@code 0} if the slot is missing or has none
	 */
	public long restartLsn() {
		return parse(column("restart_lsn::text"));
	}

	/**
	 * Returns the process id of the walsender streaming the slot.
	 * @return the pid, {@code null} while no one streams it or if the slot is missing
	 */
	public @Nullable Integer activePid() {
		String pid = column("active_pid::text");
		return (pid != null) ? Integer.valueOf(pid) : null;
	}

	/**
	 * Returns whether the slot exists.
	 * @return {@code true} if {@code pg_replication_slots} lists it
	 */
	public boolean exists() {
		return column("slot_name::text") != null;
	}

	/**
	 * Waits until no one streams the slot, as after its consumer was killed and the
	 * server noticed the walsender's connection was gone.
	 * @param timeout how long to wait at most
	 * @throws AssertionError if it is still active when the time runs out
	 */
	public void awaitInactive(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		Integer pid;
		while ((pid = activePid()) != null) {
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Slot " + this.slot + " still active (pid " + pid + ") after " + timeout);
			}
			sleep();
		}
	}

	/**
	 * Waits until the slot has confirmed a position, for as long as it keeps confirming
	 * more: the wait fails only when the slot confirmed nothing new for {@code stall}. A
	 * consumer that catches up on a backlog passes however slowly the machine lets it;
	 * one that stopped fails. (A crash proof's writer writes for as long as its kill loop
	 * lasts, so the backlog the last consumer catches up on grows with the machine's
	 * load: a fixed total would test the machine.)
	 * @param lsn the position
	 * @param stall how long the slot may confirm nothing new
	 * @throws AssertionError if it confirmed nothing new for {@code stall} before it
	 * reached {@code lsn}
	 */
	public void awaitConfirmed(long lsn, Duration stall) {
		long started = System.nanoTime();
		long progressed = started;
		long last = confirmedFlushLsn();
		long confirmed = last;
		while (Long.compareUnsigned(confirmed, lsn) < 0) {
			long now = System.nanoTime();
			if (Long.compareUnsigned(confirmed, last) > 0) {
				last = confirmed;
				progressed = now;
			}
			else if (now - progressed > stall.toNanos()) {
				throw new AssertionError("Slot " + this.slot + " confirmed " + format(confirmed) + ", not "
						+ format(lsn) + ", and nothing new for " + stall + " (waited "
						+ Duration.ofNanos(now - started).toSeconds() + " s in all)");
			}
			sleep();
			confirmed = confirmedFlushLsn();
		}
	}

	/**
	 * Returns the server's current WAL write position.
	 * @param database a database on the server
	 * @return {@code pg_current_wal_lsn()}
	 */
	public static long currentLsn(PostgresDatabase database) {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT pg_current_wal_lsn()::text")) {
			row.next();
			return parse(row.getString(1));
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read the current WAL position: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Parses the server's text form of an LSN.
	 * @param text {@code X/Y} in hexadecimal, or {@code null}
	 * @return the position, {@code 0} for {@code null}
	 */
	public static long parse(@Nullable String text) {
		if (text == null) {
			return 0;
		}
		int slash = text.indexOf('/');
		return (Long.parseLong(text.substring(0, slash), 16) << 32) | Long.parseLong(text.substring(slash + 1), 16);
	}

	/**
	 * Formats a position as the server does.
	 * @param lsn the position
	 * @return {@code X/Y} in hexadecimal
	 */
	public static String format(long lsn) {
		return Long.toHexString(lsn >>> 32).toUpperCase() + "/" + Long.toHexString(lsn & 0xFFFFFFFFL).toUpperCase();
	}

	private @Nullable String column(String expression) {
		try (Connection connection = this.database.connect();
				PreparedStatement statement = connection
					.prepareStatement("SELECT " + expression + " FROM pg_replication_slots WHERE slot_name = ?")) {
			statement.setString(1, this.slot);
			try (ResultSet row = statement.executeQuery()) {
				return row.next() ? row.getString(1) : null;
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException("Cannot read slot " + this.slot + ": " + ex.getMessage(), ex);
		}
	}

	private static void sleep() {
		try {
			Thread.sleep(POLL.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

}
