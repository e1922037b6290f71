package io.postlog.stream;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Row;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.TupleValue;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoders;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Server-wide settings that change the text a walsender prints ({@code ALTER SYSTEM},
 * then {@code pg_reload_conf()}, on a server of this class's own): what arrives on a
 * plain pgjdbc stream without {@link SessionSettings}, that every form still decodes to
 * the value the binary form gives, and that a {@link ReplicationConsumer} streaming text
 * delivers the exact values whatever the server's settings.
 */
@PostgresTest(settings = "max_wal_senders=20")
class SessionSettingsIntegrationTests {

	private static final ValueDecoders VALUES = ValueDecoders.standard();

	private static final String INTERVALS = "('0'), ('1 year 2 mons 3 days 04:05:06.789'), "
			+ "('-1 year -2 mons +3 days -04:05:06'), ('-1 day +02:00'), ('-00:00:00.000001'), "
			+ "('2147483647:59:59.999999'), ('-2147483647:59:59.999999'), ('-1 hour -0.5 seconds'), "
			+ "('-178956970 years -8 mons'), ('-2147483648 days'), ('1 year -1 day'), ('25:00')";

	private final PostgresDatabase database;

	private static final AtomicInteger slots = new AtomicInteger();

	SessionSettingsIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@BeforeAll
	static void createTables(PostgresDatabase database) {
		database.execute("CREATE TABLE floats (id serial PRIMARY KEY, f8 float8, f4 float4)",
				"CREATE TABLE intervals (id serial PRIMARY KEY, v interval)",
				"CREATE TABLE times (id serial PRIMARY KEY, d date, ts timestamp, tstz timestamptz, t time, "
						+ "ttz timetz)",
				"CREATE TABLE blobs (id serial PRIMARY KEY, b bytea)",
				"CREATE PUBLICATION settings_pub FOR TABLE floats, intervals, times, blobs");
	}

	@AfterEach
	void resetServer() {
		this.database.execute("ALTER SYSTEM RESET ALL", "SELECT pg_reload_conf()");
	}

	@Test
	void loweredExtraFloatDigitsArePinnedBackToExactFloats() throws Exception {
		alterSystem("extra_float_digits", "-3");
		assertThat(show(PgOutputCapture.connections(this.database), "extra_float_digits"))
			.as("a pgjdbc replication connection takes the server's extra_float_digits")
			.isEqualTo("-3");
		assertThat(show(PgOutputCapture.pinnedConnections(this.database), "extra_float_digits")).isEqualTo("3");
		String unpinned = slot();
		String consumed = slot();
		this.database.execute("INSERT INTO floats (f8, f4) VALUES (pi(), '0.3')");
		try (PgOutputCapture capture = PgOutputCapture.openUnpinned(this.database, unpinned, "settings_pub", VALUES)) {
			assertThat(texts(capture.readTransaction(), 1)).containsExactly("3.14159265359");
		}
		Row row = delivered(consumed, "floats", 1).get(0);
		assertThat(row.get("f8")).isEqualTo(Math.PI);
		assertThat(row.get("f4")).isEqualTo(0.3f);
	}

	@Test
	void everyIntervalStyleTheServerDefaultsToDecodesToTheBinaryValue() throws Exception {
		List<Object> expected = binaryValues("interval_send(v::interval)", PgType.INTERVAL,
				"(VALUES " + INTERVALS + ") AS t(v)");
		String[][] styles = { { "postgres", "1 year" }, { "postgres_verbose", "@ " }, { "sql_standard", "+1-2 +3" },
				{ "iso_8601", "P1Y2M3DT" } };
		for (String[] style : styles) {
			alterSystem("IntervalStyle", style[0]);
			String slot = slot();
			this.database.execute("INSERT INTO intervals (v) VALUES " + INTERVALS);
			try (PgOutputCapture capture = PgOutputCapture.openUnpinned(this.database, slot, "settings_pub", VALUES)) {
				List<PgOutputMessage> transaction = capture.readTransaction();
				assertThat(texts(transaction, 1)).as(style[0]).anyMatch((text) -> text.startsWith(style[1]));
				assertThat(values(capture, transaction, "v")).as(style[0]).isEqualTo(expected);
			}
		}
		alterSystem("IntervalStyle", "iso_8601");
		assertThat(show(PgOutputCapture.pinnedConnections(this.database), "IntervalStyle")).isEqualTo("postgres");
		String consumed = slot();
		this.database.execute("INSERT INTO intervals (v) VALUES " + INTERVALS);
		assertThat(delivered(consumed, "intervals", 12)).extracting((row) -> row.get("v")).isEqualTo(expected);
	}

	@Test
	void anyDateStyleTheServerDefaultsToArrivesAsIsoThroughPgjdbc() throws Exception {
		String rows = "(VALUES ('2024-02-29'::date, '2024-02-29 13:45:56.123456'::timestamp, "
				+ "'2024-02-29 13:45:56.123456+02'::timestamptz, '13:45:56.5'::time, '13:45:56+05:30'::timetz), "
				+ "('0044-03-15 BC', '0044-03-15 11:00:00 BC', '1900-01-01 00:00:00+00:53:28', '24:00:00', "
				+ "'00:00:00-12'))";
		List<Object> expected = binaryValues("timestamptz_send(v)", PgType.TIMESTAMPTZ, rows + " AS r(a, b, v)");
		for (String style : new String[] { "SQL, DMY", "German, DMY", "Postgres, MDY", "SQL, MDY" }) {
			alterSystem("DateStyle", style);
			String slot = slot();
			this.database.execute("INSERT INTO times (d, ts, tstz, t, ttz) SELECT * FROM " + rows + " AS v");
			try (PgOutputCapture capture = PgOutputCapture.openUnpinned(this.database, slot, "settings_pub", VALUES)) {
				List<PgOutputMessage> transaction = capture.readTransaction();
				assertThat(texts(transaction, 1)).as(style).containsExactly("2024-02-29", "0044-03-15 BC");
				assertThat(values(capture, transaction, "tstz")).as(style).isEqualTo(expected);
			}
		}
		String consumed = slot();
		this.database.execute("INSERT INTO times (d, ts, tstz, t, ttz) SELECT * FROM " + rows + " AS v");
		List<Row> delivered = delivered(consumed, "times", 2);
		assertThat(delivered).extracting((row) -> row.get("tstz")).isEqualTo(expected);
		assertThat(delivered).extracting((row) -> row.get("d"))
			.containsExactly(LocalDate.of(2024, 2, 29), LocalDate.of(-43, 3, 15));
	}

	@Test
	void pgjdbcClosesAReplicationConnectionWhoseDateStyleLeavesIso() throws Exception {
		try (Connection connection = PgOutputCapture.connections(this.database).connect();
				Statement statement = connection.createStatement()) {
			assertThatExceptionOfType(SQLException.class).isThrownBy(() -> statement.execute("SET DateStyle = 'SQL'"))
				.withMessageContaining("DateStyle");
			assertThat(connection.isClosed()).isTrue();
		}
	}

	@Test
	void escapedByteaTheServerDefaultsToDecodesAndThePinnedConnectionSendsHex() throws Exception {
		alterSystem("bytea_output", "escape");
		String slot = slot();
		String consumed = slot();
		this.database.execute("INSERT INTO blobs (b) VALUES ('\\x00ff5c27410a'::bytea)");
		byte[] bytes = { 0, (byte) 0xff, '\\', '\'', 'A', '\n' };
		try (PgOutputCapture capture = PgOutputCapture.openUnpinned(this.database, slot, "settings_pub", VALUES)) {
			List<PgOutputMessage> transaction = capture.readTransaction();
			assertThat(texts(transaction, 1)).containsExactly("\\000\\377\\\\'A\\012");
			assertThat(values(capture, transaction, "b")).singleElement().isEqualTo(bytes);
		}
		assertThat(delivered(consumed, "blobs", 1).get(0).get("b")).isEqualTo(bytes);
		assertThat(show(PgOutputCapture.pinnedConnections(this.database), "bytea_output")).isEqualTo("hex");
		assertThat(show(PgOutputCapture.pinnedConnections(this.database), "lc_monetary")).isEqualTo("C");
	}

	private String slot() {
		String slot = "settings_" + slots.incrementAndGet();
		this.database.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
		return slot;
	}

	/**
	 * What a consumer streaming text values from the slot delivers of a table's first
	 * inserts.
	 */
	private List<Row> delivered(String slot, String table, int count) {
		List<Row> rows = new CopyOnWriteArrayList<>();
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(this.database.jdbcUrl(), this.database.username(), null)
			.slotName(slot)
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationName("settings_pub")
			.publicationMode(PublicationMode.EXISTING)
			.binary(false)
			.changeHandler((change) -> {
				if (change.table().name().equals(table)) {
					rows.add(change.after());
				}
			})
			.build();
		try {
			consumer.start();
			await().atMost(Duration.ofSeconds(30)).until(() -> rows.size() >= count);
		}
		finally {
			consumer.stop();
		}
		return List.copyOf(rows);
	}

	private void alterSystem(String name, String value) {
		this.database.execute("ALTER SYSTEM SET " + name + " = '" + value + "'", "SELECT pg_reload_conf()");
	}

	private static String show(ReplicationConnectionFactory connections, String name) throws SQLException {
		try (Connection connection = connections.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SHOW " + name)) {
			row.next();
			return row.getString(1);
		}
	}

	/** The text values of one column (by position) of the transaction's inserts. */
	private static List<String> texts(List<PgOutputMessage> transaction, int column) {
		List<String> texts = new ArrayList<>();
		for (PgOutputMessage message : transaction) {
			if (message instanceof PgOutputMessage.Insert insert
					&& insert.newTuple().get(column) instanceof TupleValue.Text text) {
				texts.add(new String(text.bytes(), StandardCharsets.UTF_8));
			}
		}
		return texts;
	}

	private static List<Object> values(PgOutputCapture capture, List<PgOutputMessage> transaction, String column) {
		List<Object> values = new ArrayList<>();
		for (PgOutputMessage message : transaction) {
			if (message instanceof PgOutputMessage.Insert) {
				values.add(capture.decode((PgOutputMessage.Insert) message).get(column));
			}
		}
		return values;
	}

	/** What the binary send function gives for each value, decoded, in row order. */
	private List<Object> binaryValues(String send, int typeOid, String from) throws SQLException {
		List<Object> values = new ArrayList<>();
		try (Connection connection = this.database.connect();
				Statement statement = connection.createStatement();
				ResultSet row = statement.executeQuery("SELECT " + send + " FROM " + from)) {
			while (row.next()) {
				values.add(VALUES.decodeBinary(typeOid, row.getBytes(1)));
			}
		}
		return values;
	}

}
