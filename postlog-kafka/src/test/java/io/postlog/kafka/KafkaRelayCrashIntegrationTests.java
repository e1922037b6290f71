package io.postlog.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.ReplicationAdmin;
import io.postlog.admin.SlotLifecycle;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The crash marquee: the relaying Spring Boot application runs in a child JVM and is
 * killed with SIGKILL at random points (a third of them during start-up, the others while
 * it relays) ({@code postlog.kafka.crash.kills} times, 5 in {@code verify} and 20 with
 * {@code -Pkafka-crash}) while a writer commits transactions of 1 to 1,500 inserts, half
 * of them also updating an earlier row; then a last child catches up and stops cleanly. A
 * {@code read_committed} consumer must see every change exactly once (each key's every
 * version, once, in order), although children died with Kafka transactions open and with
 * Kafka commits the slot had not yet heard of. The children commit to Kafka every 50 ms
 * at the latest, so that more kills land between a Kafka commit and the slot's
 * confirmation; the 20-kill run checks that some did.
 */
@PostgresTest
class KafkaRelayCrashIntegrationTests {

	private static final String SLOT = "kafka_crash";

	private static final String TOPIC = "public.crash";

	private static final JsonMapper json = JsonMapper.builder().build();

	private static KafkaTestBroker broker;

	private final Path directory = Paths.get("target", "kafka-crash-test");

	@BeforeAll
	static void startBroker() {
		broker = KafkaTestBroker.start();
	}

	@AfterAll
	static void stopBroker() {
		broker.close();
	}

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
		Random random = new Random(0x5eed);
		Writer writer = new Writer(database);
		Thread writerThread = new Thread(writer, "kafka-crash-writer");
		long started = System.nanoTime();
		int aheadOfSlot = 0;
		writerThread.start();
		try {
			for (int generation = 0; generation < kills; generation++) {
				Process child = startChild(database, generation);
				// Every third kill lands inside start-up; the others once the relay has
				// read its position back and relays, at random points, however slowly the
				// JVM starts.
				if (generation % 3 != 0) {
					Path log = log(generation);
					await().atMost(Duration.ofSeconds(120))
						.until(() -> Files.exists(log)
								&& Files.readString(log, StandardCharsets.UTF_8).contains("resumes after"));
					Thread.sleep(200 + random.nextInt(3000));
				}
				else {
					Thread.sleep(500 + random.nextInt(4000));
				}
				child.destroyForcibly();
				assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
				await().atMost(Duration.ofSeconds(30)).until(() -> activePid(database) == null);
				Lsn confirmed = confirmedFlush(database);
				Lsn relayed = relayedPosition();
				if (relayed.isValid() && confirmed.isValid() && !relayed.isBefore(confirmed)) {
					// Kafka committed a transaction the slot had not confirmed: the next
					// child must skip it rather than relay it again.
					aheadOfSlot++;
				}
			}
		}
		finally {
			writer.stop.set(true);
			writerThread.join(TimeUnit.SECONDS.toMillis(30));
		}
		assertThat(writer.failure.get()).isNull();
		Lsn end = currentLsn(database);
		Process last = startChild(database, kills);
		try {
			await().atMost(Duration.ofSeconds(180)).until(() -> confirmedFlush(database).compareTo(end) >= 0);
		}
		finally {
			last.getOutputStream().close();
			if (!last.waitFor(60, TimeUnit.SECONDS)) {
				last.destroyForcibly();
			}
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
				+ writer.transactions + " transactions, " + records.size() + " records read, " + aheadOfSlot
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

	private Process startChild(PostgresDatabase database, int generation) throws IOException {
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		ProcessBuilder builder = new ProcessBuilder(java, "-Xmx384m", "-XX:TieredStopAtLevel=1", "-cp",
				System.getProperty("java.class.path"), CrashTestRelayApplication.class.getName(),
				"--spring.datasource.url=" + database.jdbcUrl(), "--spring.datasource.username=" + database.username(),
				"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(), "--postlog.kafka.enabled=true",
				"--postlog.kafka.tables=crash", "--postlog.kafka.slot.name=" + SLOT,
				"--postlog.kafka.publication.name=" + SLOT, "--postlog.status-interval=1s",
				"--postlog.retry.initial-interval=100ms", "--postlog.retry.max-interval=1s",
				"--postlog.retry.max-attempts=-1", "--postlog.kafka.batch-delay=50ms",
				"--logging.level.org.apache.kafka=WARN");
		builder.redirectErrorStream(true);
		builder.redirectOutput(log(generation).toFile());
		return builder.start();
	}

	private Path log(int generation) {
		return this.directory.resolve("child-" + generation + ".log");
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

	private static Integer activePid(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement
					.executeQuery("SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'")) {
			return rows.next() ? (Integer) rows.getObject(1) : null;
		}
	}

	private static Lsn confirmedFlush(PostgresDatabase database) throws Exception {
		try (Connection connection = database.connect();
				Statement statement = connection.createStatement();
				ResultSet rows = statement.executeQuery(
						"SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'")) {
			return (rows.next() && rows.getString(1) != null) ? Lsn.parse(rows.getString(1)) : Lsn.INVALID;
		}
	}

	private static Lsn currentLsn(PostgresDatabase database) throws Exception {
		return KafkaRelayIntegrationTests.currentLsnOf(database);
	}

	/**
	 * Commits transactions of 1 to 1,500 new rows with consecutive keys, half of them
	 * also updating one of the first 50 rows, until stopped.
	 */
	private static final class Writer implements Runnable {

		private final PostgresDatabase database;

		final AtomicBoolean stop = new AtomicBoolean();

		final AtomicLong written = new AtomicLong();

		final AtomicReference<Throwable> failure = new AtomicReference<>();

		volatile int transactions;

		Writer(PostgresDatabase database) {
			this.database = database;
		}

		@Override
		public void run() {
			Random random = new Random(42);
			try (Connection connection = this.database.connect(); Statement statement = connection.createStatement()) {
				connection.setAutoCommit(false);
				while (!this.stop.get()) {
					int dice = random.nextInt(100);
					int size = (dice < 70) ? 1 + random.nextInt(5)
							: (dice < 95) ? 10 + random.nextInt(90) : 200 + random.nextInt(1300);
					long from = this.written.get() + 1;
					statement.execute("INSERT INTO crash SELECT g, 1 FROM generate_series(" + from + ", "
							+ (from + size - 1) + ") g");
					if (from > 1 && random.nextBoolean()) {
						long key = 1 + random.nextInt((int) Math.min(50, from - 1));
						statement.executeUpdate("UPDATE crash SET v = v + 1 WHERE k = " + key);
					}
					connection.commit();
					this.written.addAndGet(size);
					this.transactions++;
					Thread.sleep(10);
				}
			}
			catch (Throwable ex) {
				this.failure.set(ex);
			}
		}

	}

}
