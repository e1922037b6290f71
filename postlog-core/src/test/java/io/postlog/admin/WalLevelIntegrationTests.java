package io.postlog.admin;

import java.sql.Connection;

import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

@Tag("matrix")
@PostgresTest(settings = "wal_level=replica")
class WalLevelIntegrationTests {

	@Test
	void ensureSlotOnAReplicaLevelServerNamesTheVersionAndTheSetting(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			assertThat(admin.walLevel()).isEqualTo("replica");
			int version = database.serverVersion();
			for (SlotLifecycle lifecycle : SlotLifecycle.values()) {
				assertThatExceptionOfType(WalLevelException.class)
					.isThrownBy(() -> admin.ensureSlot("postlog", lifecycle))
					.withMessageContaining("wal_level=replica")
					.withMessageContaining("wal_level=logical")
					.withMessageContaining("(" + version + ")")
					.satisfies((ex) -> {
						assertThat(ex.serverVersion()).isEqualTo(version);
						assertThat(ex.walLevel()).isEqualTo("replica");
					});
			}
			assertThat(admin.slot("postlog")).isEmpty();
		}
	}

}
