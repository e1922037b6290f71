package io.postlog.admin;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.time.Duration;
import java.util.Optional;

import io.postlog.PostlogException;

/**
 * Finds a slot that holds changes from before its publication existed. pgoutput looks the
 * publication up as of each change it decodes: up to PostgreSQL 17 a change from before
 * the publication existed fails with SQLState {@code 42704} on every attempt; PostgreSQL
 * 18 skips it with a WARNING ({@code 55000}, "skipped loading publication").
 * <p>
 * There is no creation time to compare, so the check asks the server itself: it decodes
 * the slot's pending changes once with {@code pg_logical_slot_peek_binary_changes} (which
 * moves nothing), up to the current position and the first output row, under a statement
 * timeout. That is the exact code path streaming will take. A cheap test comes first and
 * usually ends the check: when the publication's row in {@code pg_publication} is older
 * (by {@code age(xmin)}) than the slot's {@code catalog_xmin}, the publication existed
 * before any change the slot still has to decode.
 */
final class PublicationOrderCheck {

	/** The major version that added {@code pg_replication_slot_advance}. */
	private static final int ADVANCE_VERSION = 11;

	private final Connection connection;

	PublicationOrderCheck(Connection connection) {
		this.connection = connection;
	}

	Optional<StartupFinding> run(SlotInfo slot, String publicationName, boolean publicationExists, Duration timeout) {
		if (!slot.isLogical() || slot.isLost() || slot.active() || slot.temporary()) {
			// An active slot streams (so it can), a lost one is reported on its own.
			return Optional.empty();
		}
		try {
			if (publicationExists && publicationOlderThanSlot(slot.slotName(), publicationName)) {
				return Optional.empty();
			}
			return decode(slot, publicationName, timeout);
		}
		catch (SQLException ex) {
			return Optional.of(StartupFinding.warning(StartupFinding.Check.PUBLICATION_AFTER_SLOT,
					"Could not check whether replication slot '" + slot.slotName()
							+ "' holds changes from before publication '" + publicationName + "' existed (SQLState "
							+ PgErrors.sqlState(ex) + ")",
					"If streaming fails with 'publication does not exist', see postlog's operations guide"));
		}
	}

	private boolean publicationOlderThanSlot(String slotName, String publicationName) throws SQLException {
		try (PreparedStatement statement = this.connection
			.prepareStatement("SELECT age(p.xmin) > age(s.catalog_xmin) FROM pg_publication p, pg_replication_slots s"
					+ " WHERE p.pubname = ? AND s.slot_name = ?")) {
			statement.setString(1, publicationName);
			statement.setString(2, slotName);
			try (ResultSet row = statement.executeQuery()) {
				return row.next() && row.getBoolean(1);
			}
		}
	}

	private Optional<StartupFinding> decode(SlotInfo slot, String publicationName, Duration timeout)
			throws SQLException {
		boolean autoCommit = this.connection.getAutoCommit();
		this.connection.setAutoCommit(false);
		try (PreparedStatement limit = this.connection
			.prepareStatement("SELECT set_config('statement_timeout', ?, true)");
				PreparedStatement peek = this.connection.prepareStatement(
						"SELECT count(*) FROM pg_logical_slot_peek_binary_changes(?, pg_current_wal_lsn(), 1,"
								+ " 'proto_version', '1', 'publication_names', ?)")) {
			limit.setString(1, Long.toString(Math.max(1, timeout.toMillis())));
			limit.executeQuery().close();
			peek.setString(1, slot.slotName());
			peek.setString(2, PgIdentifiers.quote("publication", publicationName));
			peek.executeQuery().close();
			return skippedWarning(peek.getWarnings(), slot, publicationName);
		}
		catch (SQLException ex) {
			return decodeFailure(ex, slot, publicationName, timeout);
		}
		finally {
			this.connection.rollback();
			this.connection.setAutoCommit(autoCommit);
		}
	}

	private static Optional<StartupFinding> skippedWarning(SQLWarning warnings, SlotInfo slot, String publicationName) {
		for (SQLWarning warning = warnings; warning != null; warning = warning.getNextWarning()) {
			if (PgErrors.isObjectNotInPrerequisiteState(warning)) {
				return Optional.of(StartupFinding.warning(StartupFinding.Check.PUBLICATION_AFTER_SLOT,
						"Replication slot '" + slot.slotName() + "' holds changes after " + slot.confirmedFlushLsn()
								+ " from before publication '" + publicationName
								+ "' existed; PostgreSQL skips them, so they are not delivered",
						"Nothing to do if those changes are not needed; otherwise re-read the tables once"));
			}
		}
		return Optional.empty();
	}

	private String fix(String slotName) throws SQLException {
		String drop = "drop the slot (SELECT pg_drop_replication_slot('" + slotName
				+ "')) and let postlog create it after the publication. Create publications before slots.";
		if (this.connection.getMetaData().getDatabaseMajorVersion() < ADVANCE_VERSION) {
			return "Skip the changes from before the publication: " + drop;
		}
		return "Skip the changes from before the publication: SELECT pg_replication_slot_advance('" + slotName
				+ "', pg_current_wal_lsn()); or " + drop;
	}

	private Optional<StartupFinding> decodeFailure(SQLException ex, SlotInfo slot, String publicationName,
			Duration timeout) throws SQLException {
		if (PgErrors.isUndefinedObject(ex)) {
			PostlogException failure = new PublicationCreatedAfterSlotException(slot.slotName(), publicationName,
					slot.confirmedFlushLsn(), ex);
			return Optional
				.of(StartupFinding.failure(StartupFinding.Check.PUBLICATION_AFTER_SLOT, failure, fix(slot.slotName())));
		}
		if (PgErrors.isObjectInUse(ex)) {
			return Optional.empty();
		}
		if (PgErrors.isQueryCanceled(ex)) {
			return Optional.of(StartupFinding.warning(StartupFinding.Check.PUBLICATION_AFTER_SLOT,
					"Could not decode the pending changes of replication slot '" + slot.slotName() + "' within "
							+ timeout + " to check that publication '" + publicationName + "' covers them",
					"If streaming fails with 'publication does not exist', see postlog's operations guide"));
		}
		throw ex;
	}

}
