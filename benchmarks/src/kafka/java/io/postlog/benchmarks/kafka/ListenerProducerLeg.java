package io.postlog.benchmarks.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.postlog.Change;
import io.postlog.benchmarks.e2e.Tally;
import io.postlog.benchmarks.e2e.Touch;
import io.postlog.spring.PgChangeListener;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Kafka relay's floor with decoding: the {@code spring-change} leg's application (a
 * {@code @PgChangeListener} of {@link Change} that reads every value) whose listener
 * also sends each change as one record through the relay's two transactional producers,
 * as {@code kafka-producer} sends them: the relay's mean record shape, fixed bytes (no
 * JSON), a Kafka transaction per 100 source transactions (the first: one) with its offset
 * record, the producers taken in turn. So it costs what the listener and the producer floor cost
 * together in one JVM, and nothing of the relay's own (its JSON, its headers from the
 * change, its checkpoint contract: the slot here is acknowledged when the listener
 * returns, before the Kafka transaction commits, which a relay must not do). A thread
 * commits the open transaction once no change came for 50 ms, so that the last batch is
 * read. Arguments: {@code url= user= slot= publication= expected= timeout=600 kafka=
 * key_bytes= value_bytes= header_bytes=}.
 */
public final class ListenerProducerLeg {

	private static final String TOPIC = "public.bench_rows";

	private static final String OFFSETS = "postlog.offsets";

	static @Nullable Producing producing;

	private ListenerProducerLeg() {
	}

	public static void main(String[] args) throws Exception {
		Tally tally = new Tally("kafka-listener-producer", Long.parseLong(Tally.arg(args, "expected", null)), false);
		try (BenchBroker broker = BenchBroker.of(args)) {
			broker.topic(TOPIC, 3);
			broker.topic(OFFSETS, 1);
			boolean[] done = new boolean[1];
			Thread counter = broker.read(TOPIC, (record) -> tally.record(0L, record.value().length), () -> done[0]);
			@SuppressWarnings("unchecked")
			KafkaProducer<byte[], byte[]>[] producers = new KafkaProducer[] {
					KafkaProducerLeg.producer(broker, "bench-listener-producer"),
					KafkaProducerLeg.producer(broker, "bench-listener-producer-1") };
			for (KafkaProducer<byte[], byte[]> producer : producers) {
				producer.initTransactions();
			}
			Producing current = new Producing(producers, KafkaProducerLeg.Shape.of(args));
			producing = current;
			Thread committer = new Thread(current::commitWhenIdle, "bench-idle-committer");
			committer.setDaemon(true);
			committer.start();
			Map<String, Object> properties = new HashMap<>();
			properties.put("spring.datasource.url", Tally.arg(args, "url", null));
			properties.put("spring.datasource.username", Tally.arg(args, "user", "postgres"));
			properties.put("postlog.slot.name", Tally.arg(args, "slot", null));
			properties.put("postlog.slot.lifecycle", "existing");
			properties.put("postlog.publication.name", Tally.arg(args, "publication", null));
			properties.put("postlog.publication.mode", "existing");
			properties.put("spring.main.banner-mode", "off");
			properties.put("logging.level.org.apache.kafka", "WARN");
			SpringApplication application = new SpringApplication(ListenerApp.class);
			application.setDefaultProperties(properties);
			int status;
			try (ConfigurableApplicationContext context = application.run()) {
				status = tally.awaitAndReport(Duration.ofSeconds(Long.parseLong(Tally.arg(args, "timeout", "600"))));
			}
			System.out.println("KAFKA kafka_transactions=" + current.transactions);
			done[0] = true;
			counter.join(5000);
			for (KafkaProducer<byte[], byte[]> producer : producers) {
				producer.close(Duration.ZERO);
			}
			System.exit(status);
		}
	}

	/** The application: the listener, and no relay. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ListenerApp {

		@Bean
		ProducingListener producingListener() {
			return new ProducingListener();
		}

	}

	static class ProducingListener {

		@PgChangeListener(tables = "bench_rows")
		void onChange(Change change) {
			Producing current = producing;
			if (current == null) {
				throw new IllegalStateException("No producers");
			}
			current.send(change);
		}

	}

	/** The producers, the open Kafka transaction and its source transactions. */
	static final class Producing {

		private static final int BATCH = 100;

		private static final long IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

		private final ReentrantLock lock = new ReentrantLock();

		private final KafkaProducer<byte[], byte[]>[] producers;

		private final KafkaProducerLeg.Shape shape;

		private final byte[] value;

		private final RecordHeaders headers;

		private int turn;

		private boolean open;

		private long commitLsn = -1;

		private int sourceTransactions;

		private long counter;

		private long touched;

		private volatile long lastSendNanos;

		volatile long transactions;

		Producing(KafkaProducer<byte[], byte[]>[] producers, KafkaProducerLeg.Shape shape) {
			this.producers = producers;
			this.shape = shape;
			this.value = shape.value();
			this.headers = shape.headers();
		}

		void send(Change change) {
			this.lock.lock();
			try {
				this.touched += Touch.change(change);
				if (change.commitLsn().value() != this.commitLsn) {
					// The first Kafka transaction holds one source transaction, so that the
					// reader's clock starts with the stream, as kafka-producer's does.
					if (this.open && (++this.sourceTransactions >= BATCH || this.transactions == 0)) {
						commit();
					}
					this.commitLsn = change.commitLsn().value();
				}
				KafkaProducer<byte[], byte[]> producer = this.producers[this.turn];
				if (!this.open) {
					producer.beginTransaction();
					this.open = true;
				}
				producer.send(
						new ProducerRecord<>(TOPIC, null, this.shape.key(++this.counter), this.value, this.headers));
				this.lastSendNanos = System.nanoTime();
			}
			finally {
				this.lock.unlock();
			}
		}

		void commitWhenIdle() {
			while (true) {
				try {
					Thread.sleep(10);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
				if (System.nanoTime() - this.lastSendNanos < IDLE_NANOS) {
					continue;
				}
				this.lock.lock();
				try {
					if (this.open && System.nanoTime() - this.lastSendNanos >= IDLE_NANOS) {
						commit();
					}
				}
				catch (RuntimeException ex) {
					// The leg fails with its cause, not later on a count that never came.
					System.out.println("idle commit failed: " + ex);
					System.exit(1);
				}
				finally {
					this.lock.unlock();
				}
			}
		}

		private void commit() {
			KafkaProducer<byte[], byte[]> producer = this.producers[this.turn];
			String position = "{\"slot\":\"bench\",\"commitLsn\":\"" + this.commitLsn + "\",\"touched\":"
					+ this.touched + "}";
			producer.send(new ProducerRecord<>(OFFSETS, null, "bench".getBytes(StandardCharsets.UTF_8),
					position.getBytes(StandardCharsets.UTF_8)));
			producer.commitTransaction();
			this.open = false;
			this.sourceTransactions = 0;
			this.transactions++;
			this.turn = (this.turn + 1) % this.producers.length;
		}

	}

}
