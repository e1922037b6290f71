package io.postlog.spring;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.ReplicationConsumerException;
import io.postlog.consumer.Backfill;
import io.postlog.consumer.ColumnMasks;
import io.postlog.consumer.SnapshotProgress;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * {@code postlog.mask.*} in an application: a hashed, a redacted and a nulled column
 * never reach a listener in clear, in the after image, the before image of a
 * {@code REPLICA IDENTITY FULL} table or a snapshot row; a listener that fails on a row,
 * with its exception message quoting the row, leaves only masked values in the
 * dead-letter table and on the endpoint (shown with exception messages on); a hash
 * without a key fails start-up.
 */
@PostgresTest
class MaskingApplicationIntegrationTests {

	private static final String KEY = "mask-key-0123456789";

	private static final String SSN = "SSN-111-22-3333";

	private static final String EMAIL = "EMAIL-ann@example.org";

	private static final String NOTES = "NOTES-private";

	private final HttpClient http = HttpClient.newHttpClient();

	@AfterEach
	void clear() {
		People.received.clear();
	}

	@Test
	void maskedColumnsNeverReachAListenerADeadLetterOrTheEndpointInClear(PostgresDatabase database) throws Exception {
		database.execute("DROP TABLE IF EXISTS postlog_dead_letter", "DROP TABLE IF EXISTS mk_people",
				"CREATE TABLE mk_people (id int PRIMARY KEY, name text, ssn text, email text, notes text)",
				"ALTER TABLE mk_people REPLICA IDENTITY FULL",
				"INSERT INTO mk_people VALUES (1, 'Ann', '" + SSN + "', '" + EMAIL + "', '" + NOTES + "')");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(PeopleApplication.class,
				database, "postlog.slot.name=mk_slot", "postlog.publication.name=mk_pub",
				"postlog.snapshot.mode=initial", "postlog.mask.mk_people.ssn=hash",
				"postlog.mask.mk_people.email=redact", "postlog.mask.mk_people.notes=null", "postlog.mask-key=" + KEY,
				"postlog.listener.error-handler=dead-letter", "postlog.retry.initial-interval=20ms",
				"postlog.retry.max-attempts=2", "postlog.endpoint.show-exception-messages=true")) {
			// Written once the snapshot is handed over, so that they arrive as stream
			// changes
			// (a row written while its chunk is read arrives as that chunk's SNAPSHOT
			// row).
			await().atMost(Duration.ofSeconds(60)).until(() -> snapshotHandedOver(context));
			database.execute("UPDATE mk_people SET name = 'Anna' WHERE id = 1",
					"INSERT INTO mk_people VALUES (2, 'Bob', '" + SSN + "', '" + EMAIL + "', '" + NOTES + "')",
					"INSERT INTO mk_people VALUES (3, 'Cy', NULL, NULL, NULL)");
			CaughtUp.await(context, Duration.ofSeconds(60));
			await().atMost(Duration.ofSeconds(30))
				.until(() -> People.received.stream().anyMatch((change) -> change.after().get("id").equals(3)));
			Map<String, Object> masked = new LinkedHashMap<>();
			masked.put("ssn", hmac(SSN));
			masked.put("email", ColumnMasks.REDACTED);
			masked.put("notes", null);
			assertThat(People.received).extracting(Change::operation)
				.contains(Operation.SNAPSHOT, Operation.UPDATE, Operation.INSERT);
			for (Change change : People.received) {
				assertThat(change.toString()).doesNotContain(SSN, EMAIL, NOTES);
				if (!change.after().get("id").equals(3)) {
					assertThat(change.after().asMap()).containsAllEntriesOf(masked);
				}
				if (change.before() != null) {
					assertThat(change.before().asMap()).containsAllEntriesOf(masked);
				}
			}
			Change nulls = People.received.get(People.received.size() - 1);
			assertThat(nulls.after().get("ssn")).as("a hash of NULL is NULL").isNull();
			try (Connection connection = database.connect();
					Statement statement = connection.createStatement();
					ResultSet row = statement.executeQuery("SELECT change_key::text || change_row::text "
							+ "|| coalesce(exception_message, '') FROM postlog_dead_letter")) {
				assertThat(row.next()).as("the failed change was dead-lettered").isTrue();
				assertThat(row.getString(1)).contains(hmac(SSN), ColumnMasks.REDACTED)
					.doesNotContain(SSN, EMAIL, NOTES);
				assertThat(row.next()).isFalse();
			}
			String endpoint = get(context, "/actuator/postlog").body();
			assertThat(endpoint).as("the endpoint shows the listener's exception message")
				.contains("refused " + hmac(SSN));
			assertThat(endpoint).doesNotContain(SSN, EMAIL, NOTES);
		}
	}

	@Test
	void aHashWithoutAKeyFailsStartUp(PostgresDatabase database) {
		database.execute("CREATE TABLE IF NOT EXISTS mk_people (id int PRIMARY KEY, name text, ssn text, email text,"
				+ " notes text)");
		assertThatException()
			.isThrownBy(() -> PostlogListenersIntegrationTests.run(PeopleApplication.class, database,
					"postlog.slot.name=mk_nokey_slot", "postlog.publication.name=mk_nokey_pub",
					"postlog.mask.mk_people.ssn=hash"))
			.satisfies((ex) -> {
				Throwable cause = ex;
				while (cause != null && !(cause instanceof ReplicationConsumerException)) {
					cause = cause.getCause();
				}
				assertThat(cause).isNotNull()
					.hasMessageContaining("A hashed column needs a hash key of at least 16 bytes (postlog.mask-key)");
			});
	}

	private HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
		int port = ((WebServerApplicationContext) context).getWebServer().getPort();
		return this.http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	static String hmac(String value) throws Exception {
		Mac mac = Mac.getInstance("HmacSHA256");
		mac.init(new SecretKeySpec(KEY.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
		return HexFormat.of().formatHex(mac.doFinal(value.getBytes(StandardCharsets.UTF_8)));
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class PeopleApplication {

		@Bean
		People people() {
			return new People();
		}

	}

	static class People {

		static final List<Change> received = new CopyOnWriteArrayList<>();

		@PgChangeListener(tables = "mk_people")
		void onPerson(Change change) {
			received.add(change);
			if (change.after() != null && Integer.valueOf(2).equals(change.after().get("id"))) {
				// A listener's own message quoting the row: what it got is masked.
				throw new IllegalStateException("refused " + change.after().get("ssn") + " " + change.after());
			}
		}

	}

	private static boolean snapshotHandedOver(ConfigurableApplicationContext context) {
		for (PostlogConsumerGroup group : context.getBean(PostlogListenerRegistry.class).groups()) {
			SnapshotProgress snapshot = group.snapshot();
			if (snapshot == null || !snapshot.complete()
					|| group.backfills()
						.stream()
						.anyMatch((backfill) -> backfill.state() != Backfill.State.COMPLETED)) {
				return false;
			}
		}
		return true;
	}

}
