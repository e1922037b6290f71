package io.postlog.test;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("matrix")
@PostgresTest(settings = { "wal_level=replica", "wal_sender_timeout=3s" })
class CustomSettingsIntegrationTests {

	@Test
	void classWithSettingsGetsAServerOfItsOwn(PostgresDatabase database) {
		assertThat(database.server()).isNotSameAs(EmbeddedPostgresServer.shared());
		assertThat(database.server().setting("wal_level")).isEqualTo("replica");
		assertThat(database.server().setting("wal_sender_timeout")).isEqualTo("3s");
	}

}
