package io.postlog.consumer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import io.postlog.test.EmbeddedPostgresServer;
import io.postlog.test.PostgresDatabase;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static io.postlog.consumer.ReplicationConsumerIntegrationTests.activePid;
import static io.postlog.consumer.ReplicationConsumerIntegrationTests.query;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer over TLS: the server has {@code ssl=on} with a self-signed certificate for
 * {@code 127.0.0.1} from the test resources ({@code tls/}, made for these tests only and
 * valid until 2126), and the consumer's URL asks for {@code sslmode=verify-full} with
 * that certificate as its root. pgjdbc layers its TLS socket on the socket postlog's
 * probe makes, so the close of a stopping stream goes through the probe's linger
 * underneath the TLS socket's own close; the stop test shows the final acknowledgement
 * still reaches the slot.
 */
class TlsIntegrationTests {

	private static Path tls;

	private static EmbeddedPostgresServer server;

	private static PostgresDatabase database;

	private final List<ReplicationConsumer> consumers = new ArrayList<>();

	@BeforeAll
	static void startServer() throws IOException {
		tls = Files.createTempDirectory("postlog-tls-");
		Path certificate = copy("server.crt");
		// The server refuses a key that others may read.
		Path key = copy("server.key");
		Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
		server = EmbeddedPostgresServer.builder()
			.setting("ssl", "on")
			.setting("ssl_cert_file", certificate.toString())
			.setting("ssl_key_file", key.toString())
			.start();
		database = server.createDatabase();
	}

	@AfterAll
	static void stopServer() throws IOException {
		if (server != null) {
			server.close();
		}
		try (Stream<Path> files = Files.list(tls)) {
			for (Path file : files.toList()) {
				Files.delete(file);
			}
		}
		Files.delete(tls);
	}

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void changesArriveOverAnEncryptedReplicationConnection() throws Exception {
		database.execute("CREATE TABLE sealed (id int PRIMARY KEY, note text)");
		Set<Integer> ids = ConcurrentHashMap.newKeySet();
		start("sealed_slot", "sealed", (change) -> ids.add(change.after().get("id", Integer.class)));
		database.execute("INSERT INTO sealed SELECT g, 'n' || g FROM generate_series(1, 100) g");
		await().atMost(Duration.ofSeconds(30)).until(() -> ids.size() == 100);
		Integer walsender = activePid(database, "sealed_slot");
		assertThat(walsender).as("the slot's walsender").isNotNull();
		assertThat(query(database, "SELECT ssl::text FROM pg_stat_ssl WHERE pid = " + walsender))
			.as("the walsender's connection is encrypted")
			.isEqualTo("true");
		// Every session in the database but the query's own: postlog's.
		assertThat(query(database,
				"SELECT count(*) FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid WHERE a.datname = "
						+ "current_database() AND a.pid <> pg_backend_pid() AND NOT s.ssl"))
			.as("postlog's sessions without TLS")
			.isEqualTo("0");
	}

	@Test
	void stopWhileTheServerSendsLeavesTheSlotAtTheAcknowledgedPosition() throws Exception {
		BusyStops.run(database, (slot, handler) -> start(slot, "busy", handler));
	}

	private ReplicationConsumer start(String slot, String table, ChangeHandler handler) {
		String url = database.jdbcUrl() + "?sslmode=verify-full&sslrootcert=" + tls.resolve("server.crt");
		ReplicationConsumer consumer = ReplicationConsumerIntegrationTests
			.builder(url, database.username(), slot, table)
			.changeHandler(handler)
			.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	private static Path copy(String name) {
		Path target = tls.resolve(name);
		try (InputStream resource = TlsIntegrationTests.class.getResourceAsStream("/tls/" + name)) {
			assertThat(resource).as("test resource tls/%s", name).isNotNull();
			Files.copy(resource, target, StandardCopyOption.REPLACE_EXISTING);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return target;
	}

}
