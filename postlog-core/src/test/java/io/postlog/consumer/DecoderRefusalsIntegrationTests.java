package io.postlog.consumer;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.CapturedStdErr;
import io.postlog.Change;
import io.postlog.Operation;
import io.postlog.PostlogException;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.admin.SlotPluginMismatchException;
import io.postlog.decoder.DecoderRefusedException;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.PgLogicalDecoder;
import io.postlog.decoder.Wal2JsonDecoder;
import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.test.PluginLaneTest;
import io.postlog.test.PostgresDatabase;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Each refusal of the wal2json and pglogical decoders as
 * {@link ReplicationConsumer#start()} shows it on the plugin lane's server, with nothing
 * set up behind it, and the text values those decoders stream by default, said once.
 */
@PluginLaneTest
class DecoderRefusalsIntegrationTests {

	private static final TableId KEYLESS = TableId.parse("keyless");

	private static final TableId KEYED = TableId.parse("keyed");

	private static final TableId RATIOS = TableId.parse("ratios");

	private final PostgresDatabase database;

	private final List<ReplicationConsumer> consumers = new CopyOnWriteArrayList<>();

	@TempDir
	Path spill;

	DecoderRefusalsIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@BeforeAll
	static void createSchema(PostgresDatabase database) {
		database.execute("CREATE EXTENSION pglogical",
				"SELECT pglogical.create_node(node_name := 'refusals', dsn := 'dbname=" + database.name() + "')",
				"CREATE TABLE keyless (v text)", "CREATE TABLE keyed (id int PRIMARY KEY, v text)",
				"CREATE TABLE ratios (id int PRIMARY KEY, ratio float8)",
				"SELECT pglogical.replication_set_add_table('default', 'keyed')");
	}

	@AfterEach
	void stopConsumers() {
		this.consumers.forEach(ReplicationConsumer::stop);
	}

	@Test
	void wal2jsonRefusesAKeylessTableUnlessInsertOnlyTablesAreAllowed() {
		Wal2JsonDecoder decoder = Wal2JsonDecoder.forTables(List.of(KEYLESS));
		refused("keyless_slot", decoder, "Decoder wal2json: tables [public.keyless] have no primary key or replica "
				+ "identity index and are not REPLICA IDENTITY FULL, so wal2json would drop their updates and deletes");
		List<Change> changes = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = start(
				builder("keyless_slot", decoder.allowingInsertOnlyTables(true)).changeHandler(changes::add));
		this.database.execute("INSERT INTO keyless VALUES ('a')", "UPDATE keyless SET v = 'b'",
				"INSERT INTO keyless VALUES ('c')");
		await().atMost(Duration.ofSeconds(30)).until(() -> changes.size() >= 2);
		assertThat(changes).extracting(Change::operation).containsExactly(Operation.INSERT, Operation.INSERT);
		assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
	}

	@Test
	void wal2jsonRefusesFloatColumnsWhoseNonFiniteValuesWouldArriveAsNull() {
		refused("ratios_slot", Wal2JsonDecoder.forTables(List.of(RATIOS)),
				"Decoder wal2json: columns [public.ratios.ratio] are float4, float8 or numeric, whose NaN and "
						+ "Infinity wal2json before 2.6 sends as null");
	}

	@Test
	void wal2jsonWithoutNumbersAsStringsIsRefusedAndTheSlotMadeForItDropped() {
		refused("strings_slot", Wal2JsonDecoder.forTables(List.of(RATIOS)).withNumericsAsStrings(true),
				"Decoder wal2json: the server's wal2json does not know the option numeric-data-types-as-string");
	}

	@Test
	void wal2jsonAndPglogicalStreamTextSaidOnceAndRefuseBinaryAskedFor() {
		LogicalDecoder wal2json = Wal2JsonDecoder.forTables(List.of(KEYED));
		LogicalDecoder pglogical = PgLogicalDecoder.forReplicationSets(List.of("default"));
		refused("binary_slot", wal2json, true, "Decoder wal2json: wal2json sends values as text only");
		refused("binary_slot", pglogical, true, "Decoder pglogical: postlog reads pglogical's values as text only");
		try (CapturedStdErr log = CapturedStdErr.start()) {
			start(builder("text_wal2json", wal2json).changeHandler((change) -> {
			}));
			start(builder("text_pglogical", pglogical).changeHandler((change) -> {
			}));
			assertThat(log.text().lines().filter((line) -> line.contains("sends text values")))
				.anyMatch((line) -> line.contains("Decoder wal2json sends text values; slot text_wal2json"))
				.anyMatch((line) -> line.contains("Decoder pglogical sends text values; slot text_pglogical"))
				.hasSize(2);
		}
	}

	@Test
	void streamingIsRefusedByWal2jsonAndPglogical() {
		refused("streaming_slot", streaming(Wal2JsonDecoder.forTables(List.of(KEYED))),
				"Decoder wal2json: wal2json cannot stream in-progress transactions");
		refused("streaming_slot", streaming(PgLogicalDecoder.forReplicationSets(List.of("default"))),
				"Decoder pglogical: pglogical_output cannot stream in-progress transactions");
	}

	private ReplicationConsumer.Builder streaming(LogicalDecoder decoder) {
		return builder("streaming_slot", decoder).streaming(1 << 20, this.spill, 1 << 30).changeHandler((change) -> {
		});
	}

	@Test
	void pglogicalRefusesAMessageHandlerHeartbeatsAndMissingReplicationSets() {
		refused("messages_slot", builder("messages_slot", PgLogicalDecoder.forReplicationSets(List.of("default")))
			.messageHandler((message) -> {
			}), "Decoder pglogical: pglogical_output does not send logical decoding messages");
		refused("heartbeats_slot",
				builder("heartbeats_slot", PgLogicalDecoder.forReplicationSets(List.of("default")))
					.heartbeatMonitor(new HeartbeatTracker("heartbeats_slot", Duration.ofMinutes(1)))
					.changeHandler((change) -> {
					}),
				"Decoder pglogical: heartbeats come back as logical decoding messages from PostgreSQL 14 on, which "
						+ "pglogical_output does not send");
		ReplicationConsumer missing = builder("sets_slot", PgLogicalDecoder.forReplicationSets(List.of("no_such_set")))
			.changeHandler((change) -> {
			})
			.build();
		assertThatExceptionOfType(PostlogException.class).isThrownBy(missing::start)
			.withMessageContaining("pglogical replication sets [no_such_set] do not exist on the local node");
		assertThat(slots("sets_slot")).isZero();
	}

	@Test
	void aSlotOfAnotherPluginIsRefused() {
		this.database.execute("SELECT pg_create_logical_replication_slot('other_plugin', 'pgoutput')");
		ReplicationConsumer consumer = builder("other_plugin", Wal2JsonDecoder.forTables(List.of(KEYED)))
			.changeHandler((change) -> {
			})
			.build();
		assertThatExceptionOfType(SlotPluginMismatchException.class).isThrownBy(consumer::start)
			.withMessageContaining("wal2json");
		assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
	}

	private void refused(String slot, LogicalDecoder decoder, String message) {
		refused(slot, builder(slot, decoder).changeHandler((change) -> {
		}), message);
	}

	private void refused(String slot, LogicalDecoder decoder, boolean binary, String message) {
		refused(slot, builder(slot, decoder).binary(binary).changeHandler((change) -> {
		}), message);
	}

	private void refused(String slot, ReplicationConsumer.Builder builder, String message) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		assertThatExceptionOfType(DecoderRefusedException.class).isThrownBy(consumer::start)
			.withMessageContaining(message);
		assertThat(consumer.state()).isEqualTo(ConsumerState.FAILED);
		assertThat(slots(slot)).as("slots named %s", slot).isZero();
	}

	private ReplicationConsumer.Builder builder(String slot, LogicalDecoder decoder) {
		return ReplicationConsumer.builder()
			.jdbcUrl(this.database.jdbcUrl(), this.database.username(), null)
			.slotName(slot)
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.decoder(decoder);
	}

	private ReplicationConsumer start(ReplicationConsumer.Builder builder) {
		ReplicationConsumer consumer = builder.build();
		this.consumers.add(consumer);
		consumer.start();
		return consumer;
	}

	private int slots(String slot) {
		try {
			return Integer.parseInt(ReplicationConsumerIntegrationTests.query(this.database,
					"SELECT count(*)::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'"));
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

}
