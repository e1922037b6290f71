package io.postlog.admin;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Function names that changed with PostgreSQL 10, chosen by the server version (no 9.6
 * server runs here).
 */
class ServerVersionGatesTests {

	@Test
	void currentWalPositionUsesTheXlogNameOn96() {
		assertThat(ReplicationAdmin.currentLsnFunction(90624)).isEqualTo("pg_current_xlog_location()");
		assertThat(ReplicationAdmin.currentLsnFunction(100000)).isEqualTo("pg_current_wal_lsn()");
		assertThat(ReplicationAdmin.currentLsnFunction(170006)).isEqualTo("pg_current_wal_lsn()");
	}

}
