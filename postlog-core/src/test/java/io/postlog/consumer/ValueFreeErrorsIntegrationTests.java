package io.postlog.consumer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import io.postlog.TableId;
import io.postlog.consumer.checkpoint.CheckpointStoreException;
import io.postlog.pgoutput.RowDecodingException;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.types.PgType;
import io.postlog.types.ValueDecoder;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delivery contract 10: a row value never reaches an exception message postlog writes or
 * a log line of postlog's own, whether the handler fails on the row or the row cannot be
 * decoded, a sink transaction's commit is refused by a unique key (the server's
 * {@code DETAIL} quoting the value, on the application's data source), or a backfill
 * chunk cannot be decoded. A handler's own exception is logged as it is (its stack trace
 * with each failed attempt), so a value it quotes appears only in that exception's own
 * line.
 */
@PostgresTest
@Tag("matrix")
class ValueFreeErrorsIntegrationTests {

	private static final String SECRET = "SECRET-7f3a";

	private static final RetryPolicy TWO_ATTEMPTS = new RetryPolicy(Duration.ofMillis(50), 2, Duration.ofMillis(100),
			2);

	@Test
	void failingHandlerLeavesTheRowValueOutOfMessagesAndLogs(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE shipped (id int PRIMARY KEY, secret text)");
		Set<Throwable> thrownByHandler = Collections.newSetFromMap(new IdentityHashMap<>());
		Causes causes = new Causes();
		ByteArrayOutputStream logs = ReplicationConsumerIntegrationTests.captureStdErr();
		ReplicationConsumer consumer = builder(database, "shipped").listener(causes).changeHandler((change) -> {
			// The handler's own exception quotes the value, as real ones often do.
			RuntimeException ex = new IllegalStateException("cannot ship " + change.after().get("secret"));
			thrownByHandler.add(ex);
			throw ex;
		}).build();
		try {
			consumer.start();
			database.execute("INSERT INTO shipped VALUES (1, '" + SECRET + "')");
			// The handler's error handler stops it alone: its failure is the cause.
			await().atMost(Duration.ofSeconds(30))
				.until(() -> consumer.subscription("changeHandler").state() == SubscriptionState.STOPPED);
			assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		}
		finally {
			consumer.stop();
			ReplicationConsumerIntegrationTests.restoreStdErr();
		}
		assertThat(thrownByHandler).hasSize(2);
		assertThat(causes.all).hasSizeGreaterThanOrEqualTo(2).allSatisfy((cause) -> {
			assertThat(cause).isInstanceOf(HandlerFailedException.class)
				.hasMessageContaining("public.shipped")
				.hasMessageContaining("commit LSN");
			// The handler's exception is the cause, untouched; everything postlog wrote
			// is
			// value-free.
			assertThat(thrownByHandler).contains(cause.getCause());
			assertThat(messages(cause, thrownByHandler)).noneMatch((message) -> message.contains(SECRET));
		});
		String log = logs.toString(StandardCharsets.UTF_8);
		assertThat(log).contains("shipped_slot").contains("Subscription 'changeHandler' failed on change 0");
		String handlersOwnLine = thrownByHandler.iterator().next().toString();
		assertThat(log.lines().filter((line) -> line.contains(SECRET))).isNotEmpty()
			.allSatisfy((line) -> assertThat(line.replaceFirst("^Caused by: ", "")).isEqualTo(handlersOwnLine));
	}

	@Test
	void undecodableValueLeavesTheRowValueOutOfMessagesAndLogs(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE coded (id int PRIMARY KEY, secret varchar(40))");
		// A decoder that fails the way careless ones do: with the input in its message.
		ValueDecoder strict = new ValueDecoder() {

			@Override
			public Object decodeText(byte[] utf8) {
				return Integer.valueOf(new String(utf8, StandardCharsets.UTF_8));
			}

			@Override
			public Object decodeBinary(byte[] value) {
				return decodeText(value);
			}

		};
		Causes causes = new Causes();
		ByteArrayOutputStream logs = ReplicationConsumerIntegrationTests.captureStdErr();
		ReplicationConsumer consumer = builder(database, "coded").listener(causes)
			.valueDecoders(ValueDecoders.standard().withDecoder(PgType.VARCHAR, strict))
			.changeHandler((change) -> {
			})
			.build();
		try {
			consumer.start();
			database.execute("INSERT INTO coded VALUES (1, '" + SECRET + "')");
			await().atMost(Duration.ofSeconds(30)).until(() -> consumer.state() == ConsumerState.FAILED);
		}
		finally {
			consumer.stop();
			ReplicationConsumerIntegrationTests.restoreStdErr();
		}
		// A value that cannot be decoded fails the consumer at once: retrying cannot
		// help.
		assertThat(causes.all).hasSize(1).allSatisfy((cause) -> {
			assertThat(chain(cause)).anySatisfy((link) -> assertThat(link).isInstanceOf(RowDecodingException.class)
				.hasMessageContaining("'secret'")
				.hasMessageContaining("public.coded")
				.hasMessageContaining("type OID 1043"));
			assertThat(messages(cause, Set.of())).noneMatch((message) -> message.contains(SECRET));
		});
		assertThat(logs.toString(StandardCharsets.UTF_8)).contains("coded_slot").doesNotContain(SECRET);
	}

	@Test
	void sinkCommitRejectedByAUniqueKeyLeavesThePlantedValueOutOfMessagesAndLogs(PostgresDatabase database)
			throws Exception {
		// Checked at commit, so the violation is the sink commit's, postlog's own, and
		// the application's data source (a pool postlog cannot configure) sends the
		// server's DETAIL: Key (email)=(...) already exists.
		database.execute("CREATE TABLE signups (id int PRIMARY KEY, email text)",
				"CREATE TABLE emails (email text UNIQUE DEFERRABLE INITIALLY DEFERRED)",
				"INSERT INTO emails VALUES ('" + SECRET + "')");
		JdbcCheckpointStore store = JdbcCheckpointStore.of(JdbcCheckpointStoreIntegrationTests.dataSource(database),
				"signups_slot");
		Causes causes = new Causes();
		ByteArrayOutputStream logs = ReplicationConsumerIntegrationTests.captureStdErr();
		ReplicationConsumer consumer = builder(database, "signups").listener(causes)
			.checkpointStore(store)
			.changeHandler((change) -> {
				try (java.sql.PreparedStatement insert = store.connection()
					.prepareStatement("INSERT INTO emails VALUES (?)")) {
					insert.setString(1, change.after().get("email", String.class));
					insert.executeUpdate();
				}
				catch (java.sql.SQLException ex) {
					throw new IllegalStateException(ex);
				}
			})
			.build();
		try {
			consumer.start();
			database.execute("INSERT INTO signups VALUES (1, '" + SECRET + "')");
			await().atMost(Duration.ofSeconds(60))
				.until(() -> causes.all.stream()
					.anyMatch((cause) -> chain(cause).stream().anyMatch(CheckpointStoreException.class::isInstance)));
		}
		finally {
			consumer.stop();
			ReplicationConsumerIntegrationTests.restoreStdErr();
		}
		Set<Throwable> serverErrors = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable cause : causes.all) {
			chain(cause).stream().filter(java.sql.SQLException.class::isInstance).forEach(serverErrors::add);
		}
		// The server's text is in the chain, kept for the application, and quotes the
		// value; nothing postlog wrote does.
		assertThat(serverErrors).isNotEmpty().anySatisfy((server) -> assertThat(server.getMessage()).contains(SECRET));
		assertThat(causes.all).allSatisfy(
				(cause) -> assertThat(messages(cause, serverErrors)).noneMatch((message) -> message.contains(SECRET)));
		String log = logs.toString(StandardCharsets.UTF_8);
		assertThat(log).contains("signups_slot").contains("23505").doesNotContain(SECRET);
	}

	@Test
	void backfillChunkThatCannotBeDecodedLeavesThePlantedValueOutOfMessagesAndLogs(PostgresDatabase database)
			throws Exception {
		database.execute("CREATE TABLE filled (id int PRIMARY KEY, secret varchar(40))",
				"INSERT INTO filled SELECT g, 'plain' FROM generate_series(1, 50) g",
				"INSERT INTO filled VALUES (51, '" + SECRET + "')");
		ByteArrayOutputStream logs = ReplicationConsumerIntegrationTests.captureStdErr();
		ReplicationConsumer consumer = builder(database, "filled").backfills(10)
			.valueDecoders(ValueDecoders.standard().withDecoder(PgType.VARCHAR, quoting()))
			.changeHandler((change) -> {
			})
			.build();
		Backfill backfill;
		try {
			consumer.start();
			backfill = consumer.backfill(List.of(TableId.parse("filled")));
			await().atMost(Duration.ofSeconds(60)).until(() -> backfill.state() == Backfill.State.FAILED);
			assertThat(consumer.state()).isEqualTo(ConsumerState.RUNNING);
		}
		finally {
			consumer.stop();
			ReplicationConsumerIntegrationTests.restoreStdErr();
		}
		assertThat(backfill.failure()).isNotNull();
		assertThat(messages(backfill.failure(), Set.of())).noneMatch((message) -> message.contains(SECRET));
		assertThat(logs.toString(StandardCharsets.UTF_8)).contains("filled_slot").doesNotContain(SECRET);
	}

	/**
	 * A decoder that fails the way careless ones do: with the input in its message.
	 */
	private static ValueDecoder quoting() {
		return new ValueDecoder() {

			@Override
			public Object decodeText(byte[] utf8) {
				String text = new String(utf8, StandardCharsets.UTF_8);
				if (text.contains(SECRET)) {
					throw new IllegalArgumentException("cannot decode " + text);
				}
				return text;
			}

			@Override
			public Object decodeBinary(byte[] value) {
				return decodeText(value);
			}

		};
	}

	private static ReplicationConsumer.Builder builder(PostgresDatabase database, String table) {
		return ReplicationConsumer.builder()
			.jdbcUrl(database.jdbcUrl(), database.username(), null)
			.slotName(table + "_slot")
			.publicationName(table + "_pub")
			.tables(List.of(new TableId("public", table)))
			.retryPolicy(TWO_ATTEMPTS);
	}

	private static List<Throwable> chain(Throwable failure) {
		List<Throwable> chain = new ArrayList<>();
		for (Throwable link = failure; link != null && !chain.contains(link); link = link.getCause()) {
			chain.add(link);
		}
		return chain;
	}

	/**
	 * Messages and string forms of a failure's chain, suppressed exceptions included,
	 * leaving out the given exceptions that are not postlog's.
	 */
	private static List<String> messages(Throwable failure, Set<Throwable> foreign) {
		List<String> messages = new ArrayList<>();
		for (Throwable link : chain(failure)) {
			if (foreign.contains(link)) {
				continue;
			}
			messages.add(String.valueOf(link.getMessage()));
			messages.add(link.toString());
			for (Throwable suppressed : link.getSuppressed()) {
				messages.addAll(messages(suppressed, foreign));
			}
		}
		return messages;
	}

	/**
	 * Every failure the consumer reported to its listener.
	 */
	static final class Causes implements ConsumerListener {

		final List<Throwable> all = new CopyOnWriteArrayList<>();

		@Override
		public void stateChanged(ConsumerState previous, ConsumerState current, @Nullable Throwable cause) {
			if (cause != null) {
				this.all.add(cause);
			}
		}

		@Override
		public void retrying(int attempt, Duration backOff, Throwable cause) {
			this.all.add(cause);
		}

		@Override
		public void subscriptionStateChanged(SubscriptionControl control, SubscriptionState previous,
				@Nullable Throwable cause) {
			if (cause != null) {
				this.all.add(cause);
			}
		}

	}

}
