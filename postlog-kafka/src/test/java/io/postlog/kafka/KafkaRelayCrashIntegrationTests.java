package io.postlog.kafka;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.test.crash.ChildJvm;
import io.postlog.test.crash.KillLoop;
import io.postlog.test.crash.SlotProbe;
import io.postlog.test.crash.SourceWriter;
import io.postlog.test.crash.Workloads;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The crash marquee: the relaying Spring Boot application runs in a child JVM and is
 * killed with SIGKILL at random points (a third of them during start-up, the others while
 * it relays) ({@code postlog.kafka.crash.kills} times, 5 in {@code verify} and 20 with
 * {@code -Pkafka-crash}) while a writer commits up to {@value #WRITER_LIMIT} transactions
 * of 1 to 1,500 inserts, half of them also updating an earlier row; then a last child
 * catches up and stops cleanly. A {@code read_committed} consumer must see every change
 * exactly once (each key's every version, once, in order), although children died with
 * Kafka transactions open and with Kafka commits the slot had not yet heard of. The
 * children commit to Kafka every 50 ms at the latest, so that more kills land between a
 * Kafka commit and the slot's confirmation; the 20-kill run checks that some did.
 */
@PostgresTest
@Tag("crash")
class KafkaRelayCrashIntegrationTests {

	@RegisterExtension
	static final KillLoop killLoop = new KillLoop();

	private static final String SLOT = "kafka_crash";

	private static final String TOPIC = "public.crash";

	private static final long WRITER_LIMIT = 12_000;

	private static final JsonMapper json = JsonMapper.builder().build();

	@RegisterExtension
	static final KafkaTestBroker broker = KafkaTestBroker.perClass();

	private final Path directory = Paths.get("target", "kafka-crash-test");

	@Test
	void sigkilledRelayDeliversEveryChangeExactlyOnceToReadCommittedConsumers(PostgresDatabase database)
			throws Exception {
		int kills = Integer.getInteger("postlog.kafka.crash.kills", 5);
		database.execute("CREATE TABLE crash (k bigint PRIMARY KEY, v int NOT NULL)");
		broker.createTopic(TOPIC, 3);
		// The slot exists before the writer starts, so every written change is in it.
		try (Connection connection = database.connect()) {
			ReplicationAdmin admin = new ReplicationAdmin(connection);
			admin.ensurePublication(SLOT, PublicationMode.CREATE_IF_MISSING, List.of(TableId.parse("crash")));
			admin.ensureSlot(SLOT, SlotLifecycle.CREATE_IF_MISSING);
		}
		Files.createDirectories(this.directory);
		Random random = killLoop.random("kills");
		SlotProbe probe = new SlotProbe(database, SLOT);
		long started = System.nanoTime();
		int aheadOfSlot = 0;
		SourceWriter writer = SourceWriter.on(database)
			.name("kafka-crash-writer")
			.random(killLoop.random("writer"))
			.pause(Duration.ofMillis(10))
			// A quiet machine writes about 9,000 transactions in the 20 kills; a loaded
			// one,
			// whose children start slowly, would write for as long as they take, and the
			// last child would catch up on all of it. The kills that come after the last
			// transaction land while the children still relay the backlog.
			.limit(WRITER_LIMIT)
			.start(Workloads.insertsWithUpdates("crash"));
		try {
			for (int generation = 0; generation < kills; generation++) {
				try (ChildJvm child = startChild(database, generation)) {
					// Every third kill lands inside start-up; the others once the relay
					// has read its position back and relays, at random points, however
					// slowly the JVM starts.
					if (generation % 3 != 0) {
						child.awaitOutput("resumes after", Duration.ofSeconds(120));
						Thread.sleep(KillLoop.between(random, 200, 3000).toMillis());
					}
					else {
						Thread.sleep(KillLoop.between(random, 500, 4000).toMillis());
					}
					child.kill();
				}
				probe.awaitInactive(Duration.ofSeconds(30));
				Lsn confirmed = Lsn.of(probe.confirmedFlushLsn());
				Lsn relayed = relayedPosition();
				if (relayed.isValid() && confirmed.isValid() && !relayed.isBefore(confirmed)) {
					// Kafka committed a transaction the slot had not confirmed: the next
					// child must skip it rather than relay it again.
					aheadOfSlot++;
				}
			}
		}
		finally {
			writer.stop();
		}
		long end = SlotProbe.currentLsn(database);
		try (ChildJvm last = startChild(database, kills)) {
			probe.awaitConfirmed(end, Duration.ofSeconds(120));
			last.stop(Duration.ofSeconds(60));
		}
		Map<Long, Integer> written = new HashMap<>();
		long changes = 0;
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery("SELECT k, v FROM crash")) {
			while (rows.next()) {
				written.put(rows.getLong(1), rows.getInt(2));
				changes += rows.getInt(2);
			}
		}
		List<ConsumerRecord<byte[], byte[]>> records = broker.readAll(TOPIC, changes, Duration.ofSeconds(120));
		long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
		System.out.println("[measure] Kafka relay crash test: " + kills + " kills, " + changes + " changes in "
				+ writer.transactions() + " transactions, " + records.size() + " records read, " + aheadOfSlot
				+ " kills with Kafka ahead of the slot, " + seconds + " s");
		Set<String> ids = new HashSet<>();
		Map<Long, Integer> versions = new HashMap<>();
		for (ConsumerRecord<byte[], byte[]> record : records) {
			JsonNode value = json.readTree(record.value());
			String id = value.get("id").stringValue();
			assertThat(ids.add(id)).as("change %s seen once", id).isTrue();
			long key = value.get("after").get("k").longValue();
			int version = value.get("after").get("v").intValue();
			Integer previous = versions.put(key, version);
			assertThat(version).as("version of key %s after %s", key, previous)
				.isEqualTo((previous != null) ? previous + 1 : 1);
		}
		assertThat(versions).as("every key's last version").isEqualTo(written);
		if (kills >= 20) {
			assertThat(aheadOfSlot).as("kills between a Kafka commit and the slot's confirmation").isPositive();
		}
		assertThat(records).as("records").hasSize((int) changes);
	}

	private ChildJvm startChild(PostgresDatabase database, int generation) {
		return ChildJvm.of(CrashTestRelayApplication.class)
			.heap("384m")
			.args("--spring.datasource.url=" + database.jdbcUrl(),
					"--spring.datasource.username=" + database.username(),
					"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(), "--postlog.kafka.enabled=true",
					"--postlog.kafka.tables=crash", "--postlog.kafka.slot.name=" + SLOT,
					"--postlog.kafka.publication.name=" + SLOT, "--postlog.status-interval=1s",
					"--postlog.retry.initial-interval=100ms", "--postlog.retry.max-interval=1s",
					"--postlog.retry.max-attempts=-1", "--postlog.kafka.batch-delay=50ms",
					"--logging.level.org.apache.kafka=WARN")
			.start(this.directory.resolve("child-" + generation + ".log"));
	}

	private static Lsn relayedPosition() {
		OffsetsTopic offsets = new OffsetsTopic("postlog.offsets", SLOT,
				() -> new org.apache.kafka.clients.consumer.KafkaConsumer<>(
						Map.of("bootstrap.servers", broker.bootstrapServers(), "isolation.level", "read_committed",
								"enable.auto.commit", false),
						new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
						new org.apache.kafka.common.serialization.ByteArrayDeserializer()),
				Duration.ofSeconds(30));
		try {
			return offsets.read();
		}
		catch (KafkaRelayException ex) {
			return Lsn.INVALID;
		}
	}

}
