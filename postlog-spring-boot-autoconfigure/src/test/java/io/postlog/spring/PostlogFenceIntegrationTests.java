package io.postlog.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.postlog.Change;
import io.postlog.TableId;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@link PostlogFence} on a real server, against a listener that sleeps a millisecond per
 * change before it updates its read model: 1,000 writes from four concurrent writers,
 * each awaited, then read back from the read model, with 0 misses; a write to a table no
 * listener reads returns at once even while the listener is held; a held listener makes
 * the await time out; a token taken after the commit returns on a stream that has gone
 * idle; a rolled-back or read-only transaction returns at once.
 */
@PostgresTest
class PostlogFenceIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(20);

	@Test
	void eachWriteIsInTheReadModelOnceAwaited(PostgresDatabase database) throws Exception {
		database.execute("CREATE TABLE orders (id int PRIMARY KEY)", "CREATE TABLE audit (id int PRIMARY KEY)");
		try (ConfigurableApplicationContext context = PostlogListenersIntegrationTests.run(FenceApplication.class,
				database, "postlog.slot.name=fence", "postlog.publication.name=fence")) {
			CaughtUp.await(context, WAIT);
			PostlogFence fence = context.getBean(PostlogFence.class);
			ReadModel model = context.getBean(ReadModel.class);
			JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
			TransactionTemplate transactions = context.getBean(TransactionTemplate.class);

			AtomicInteger missed = new AtomicInteger();
			ExecutorService writers = Executors.newFixedThreadPool(4);
			try {
				List<Future<?>> done = new ArrayList<>();
				for (int writer = 0; writer < 4; writer++) {
					int first = writer * 250 + 1;
					done.add(writers.submit(() -> {
						for (int id = first; id < first + 250; id++) {
							int written = id;
							WriteToken token = transactions.execute((status) -> {
								jdbc.update("INSERT INTO orders VALUES (?)", written);
								return fence.token();
							});
							assertThat(token.tables()).containsExactly(TableId.parse("orders"));
							fence.await(token, WAIT);
							if (!model.ids.contains(written)) {
								missed.incrementAndGet();
							}
						}
						return null;
					}));
				}
				for (Future<?> writer : done) {
					writer.get(2, TimeUnit.MINUTES);
				}
			}
			finally {
				writers.shutdownNow();
			}
			assertThat(missed).hasValue(0);
			assertThat(model.ids).hasSize(1000);

			CountDownLatch release = model.hold(5000);
			WriteToken held = transactions.execute((status) -> {
				jdbc.update("INSERT INTO orders VALUES (5000)");
				return fence.token();
			});
			WriteToken unread = transactions.execute((status) -> {
				jdbc.update("INSERT INTO audit VALUES (1)");
				return fence.token();
			});
			assertThat(unread.tables()).containsExactly(TableId.parse("audit"));
			long start = System.nanoTime();
			fence.await(unread, Duration.ofMillis(100));
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(100));
			assertThatExceptionOfType(FenceTimeoutException.class)
				.isThrownBy(() -> fence.await(held, Duration.ofMillis(300)))
				.withMessageContaining("had not delivered up to")
				.withMessageContaining("within 300 ms");
			assertThat(model.ids).doesNotContain(5000);
			release.countDown();
			fence.await(held, WAIT);
			assertThat(model.ids).contains(5000);

			jdbc.update("INSERT INTO audit VALUES (2)");
			fence.await(fence.afterCommit(), WAIT);

			WriteToken rolledBack = transactions.execute((status) -> {
				jdbc.update("INSERT INTO orders VALUES (6000)");
				WriteToken token = fence.token();
				status.setRollbackOnly();
				return token;
			});
			assertThat(rolledBack.rolledBack()).isTrue();
			fence.await(rolledBack, Duration.ZERO);
			WriteToken readOnly = transactions.execute((status) -> {
				jdbc.queryForObject("SELECT count(*) FROM orders", Long.class);
				return fence.token();
			});
			assertThat(readOnly.tables()).isEmpty();
			fence.await(readOnly, Duration.ZERO);

			assertThatIllegalStateException().isThrownBy(fence::token);
			assertThatIllegalStateException().isThrownBy(() -> transactions.execute((status) -> fence.afterCommit()));
		}
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class FenceApplication {

		@Bean
		ReadModel readModel() {
			return new ReadModel();
		}

	}

	static class ReadModel {

		final Set<Integer> ids = ConcurrentHashMap.newKeySet();

		private volatile int heldId = -1;

		private volatile @Nullable CountDownLatch latch;

		CountDownLatch hold(int id) {
			CountDownLatch latch = new CountDownLatch(1);
			this.latch = latch;
			this.heldId = id;
			return latch;
		}

		@PgChangeListener(tables = "orders")
		void onOrder(Change change) throws InterruptedException {
			int id = change.after().get("id", Integer.class);
			CountDownLatch latch = this.latch;
			if (id == this.heldId && latch != null) {
				latch.await();
			}
			Thread.sleep(1);
			this.ids.add(id);
		}

	}

}
