package io.postlog.benchmarks.kafka;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.postlog.benchmarks.e2e.Tally;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka legs' broker as a process of its own, as a deployed broker runs: an embedded
 * KRaft broker ({@link BenchBroker}'s settings) that first serves a warm-up, {@code warmup}
 * records (default 1,000,000) of the relay's mean size sent through a transactional
 * producer in transactions of 10,000 and read back by a {@code read_committed} reader,
 * so that the broker's own code is compiled before a leg starts, as a broker that has
 * been up for a while has it. Then it writes its bootstrap servers into the file
 * {@code ready} names and serves until it is killed. The warm-up runs in this process
 * only: the leg's JVM, with its Kafka clients, starts as cold as a relay does.
 * Arguments: {@code ready= warmup=1000000}.
 */
public final class BenchBrokerProcess {

	private static final String WARMUP_TOPIC = "bench.warmup";

	private BenchBrokerProcess() {
	}

	public static void main(String[] args) throws Exception {
		Path ready = Path.of(Tally.arg(args, "ready", null));
		long records = Long.parseLong(Tally.arg(args, "warmup", "1000000"));
		BenchBroker broker = BenchBroker.start();
		long started = System.nanoTime();
		warmUp(broker, records);
		System.out.printf("BROKER warmup_records=%d warmup_s=%.1f%n", records,
				(System.nanoTime() - started) / 1e9);
		Path written = Files.writeString(ready.resolveSibling(ready.getFileName() + ".tmp"), broker.servers(),
				StandardCharsets.UTF_8);
		Files.move(written, ready);
		Thread.sleep(Long.MAX_VALUE);
	}

	private static void warmUp(BenchBroker broker, long records) throws InterruptedException {
		broker.topic(WARMUP_TOPIC, 3);
		AtomicLong read = new AtomicLong();
		boolean[] done = new boolean[1];
		Thread reader = broker.read(WARMUP_TOPIC, (record) -> read.incrementAndGet(), () -> done[0]);
		Map<String, Object> properties = new HashMap<>();
		properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.servers());
		properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
		properties.put(ProducerConfig.ACKS_CONFIG, "all");
		properties.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
		properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-warmup");
		byte[] value = new byte[330];
		Arrays.fill(value, (byte) 'x');
		try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties, new ByteArraySerializer(),
				new ByteArraySerializer())) {
			producer.initTransactions();
			for (long sent = 0; sent < records;) {
				producer.beginTransaction();
				for (int i = 0; i < 10_000 && sent < records; i++, sent++) {
					byte[] key = Long.toString(sent).getBytes(StandardCharsets.US_ASCII);
					producer.send(new ProducerRecord<>(WARMUP_TOPIC, key, value));
				}
				producer.commitTransaction();
			}
		}
		long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
		while (read.get() < records && System.nanoTime() < deadline) {
			Thread.sleep(50);
		}
		done[0] = true;
		reader.join(Duration.ofSeconds(5).toMillis());
		if (read.get() < records) {
			throw new IllegalStateException("The warm-up read " + read.get() + " of " + records + " records");
		}
	}

}
