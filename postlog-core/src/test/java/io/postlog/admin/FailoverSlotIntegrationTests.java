package io.postlog.admin;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import io.postlog.PostlogException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Failover slots: created with failover on 17+, refused before 17 naming the version.
 */
@Tag("matrix")
@PostgresTest
class FailoverSlotIntegrationTests {

	private final PostgresDatabase database;

	private Connection connection;

	private ReplicationAdmin admin;

	FailoverSlotIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@BeforeEach
	void connect() throws SQLException {
		this.connection = this.database.connect();
		this.admin = new ReplicationAdmin(this.connection);
	}

	@AfterEach
	void dropSlotsAndClose() throws SQLException {
		try (Statement statement = this.connection.createStatement()) {
			statement.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
					+ " WHERE database = current_database() AND NOT active");
		}
		this.connection.close();
	}

	@Test
	void failoverSlotIsCreatedWithFailoverFrom17AndRefusedBefore() throws SQLException {
		int version = this.admin.serverVersion();
		if (version >= 170000) {
			SlotInfo slot = this.admin.ensureSlot("failover_slot", SlotLifecycle.CREATE_IF_MISSING, true);
			assertThat(slot.failover()).isTrue();
			assertThat(slot.synced()).isFalse();
			assertThat(query("SELECT failover::text FROM pg_replication_slots WHERE slot_name = 'failover_slot'"))
				.isEqualTo("true");
		}
		else {
			assertThatExceptionOfType(ServerVersionException.class)
				.isThrownBy(() -> this.admin.ensureSlot("failover_slot", SlotLifecycle.CREATE_IF_MISSING, true))
				.withMessage("Failover slots need PostgreSQL 17 or later; the server is PostgreSQL "
						+ ReplicationAdmin.versionText(version))
				.satisfies((ex) -> {
					assertThat(ex.requiredVersion()).isEqualTo(170000);
					assertThat(ex.serverVersion()).isEqualTo(version);
				});
			assertThat(this.admin.slot("failover_slot")).isEmpty();
		}
	}

	@Test
	void theTwoArgumentEnsureSlotStillCreatesAnOrdinarySlot() {
		SlotInfo slot = this.admin.ensureSlot("plain_slot", SlotLifecycle.CREATE_IF_MISSING);
		assertThat(slot.failover()).isEqualTo((this.admin.serverVersion() >= 170000) ? false : null);
		assertThat(this.admin.ensureSlot("plain_slot", SlotLifecycle.EXISTING, false)).isEqualTo(slot);
	}

	@Test
	void anExistingSlotWithoutFailoverIsKeptAsItIs() {
		assumeTrue(this.admin.serverVersion() >= 170000, "failover slots need PostgreSQL 17");
		SlotInfo plain = this.admin.ensureSlot("kept_plain", SlotLifecycle.CREATE_IF_MISSING);
		SlotInfo again = this.admin.ensureSlot("kept_plain", SlotLifecycle.CREATE_IF_MISSING, true);
		assertThat(again.failover()).isFalse();
		assertThat(again.restartLsn()).isEqualTo(plain.restartLsn());
	}

	@Test
	void aTemporarySlotCannotFailOver() {
		if (this.admin.serverVersion() < 170000) {
			assertThatExceptionOfType(ServerVersionException.class)
				.isThrownBy(() -> this.admin.ensureSlot("temp_failover", SlotLifecycle.TEMPORARY, true));
			return;
		}
		assertThatExceptionOfType(PostlogException.class)
			.isThrownBy(() -> this.admin.ensureSlot("temp_failover", SlotLifecycle.TEMPORARY, true))
			.withMessageContaining("temporary");
	}

	private String query(String sql) throws SQLException {
		try (Statement statement = this.connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
			row.next();
			return row.getString(1);
		}
	}

}
