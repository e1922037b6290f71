package io.postlog.benchmarks.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import io.postlog.benchmarks.e2e.Tally;
import io.postlog.kafka.KafkaRelay;
import io.postlog.kafka.PostlogKafkaRelay;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The Kafka relay of a Spring Boot application ({@code postlog.kafka.enabled=true}) on an
 * existing slot and publication, relaying {@code bench_rows} to the KRaft broker
 * {@code kafka=} names (a {@link BenchBrokerProcess}), else to one embedded in the same JVM
 * (topic {@code public.bench_rows}, 3 partitions); a
 * {@code read_committed} consumer thread counts the records, so the leg's rate is from
 * the first record a consumer can read to the last. The relay writes the form
 * {@code postlog.kafka.format} names ({@code postlog}, {@code debezium} or
 * {@code cloudevents}, in its default binary mode); the reader checks that every record
 * is in that form, and the leg fails when one is not. Arguments: {@code url},
 * {@code user}, {@code slot}, {@code publication}, {@code expected}, {@code timeout}
 * (600), {@code format} ({@code postlog}), {@code leg} ({@code kafka-relay}) and
 * {@code kafka} (none), each as
 * {@code key=value}. After the {@code RESULT} line it prints the records' mean key, value
 * and header bytes (of every 64th record) and the Kafka transactions ({@code KAFKA}): the shape the
 * {@code kafka-producer} floor sends.
 */
public final class KafkaRelayLeg {

	private KafkaRelayLeg() {
	}

	public static void main(String[] args) throws Exception {
		String format = Tally.arg(args, "format", "postlog");
		Predicate<ConsumerRecord<byte[], byte[]>> inForm = form(format);
		Tally tally = new Tally(Tally.arg(args, "leg", "kafka-relay"),
				Long.parseLong(Tally.arg(args, "expected", null)), false);
		AtomicLong misformed = new AtomicLong();
		try (BenchBroker broker = BenchBroker.of(args)) {
			broker.topic("public.bench_rows", 3);
			Map<String, Object> properties = new HashMap<>();
			properties.put("spring.datasource.url", Tally.arg(args, "url", null));
			properties.put("spring.datasource.username", Tally.arg(args, "user", "postgres"));
			properties.put("spring.kafka.bootstrap-servers", broker.servers());
			properties.put("postlog.kafka.enabled", "true");
			properties.put("postlog.kafka.tables", "bench_rows");
			properties.put("postlog.kafka.slot.name", Tally.arg(args, "slot", null));
			properties.put("postlog.kafka.slot.lifecycle", "existing");
			properties.put("postlog.kafka.publication.name", Tally.arg(args, "publication", null));
			properties.put("postlog.kafka.publication.mode", "existing");
			properties.put("postlog.kafka.offsets-topic", "postlog.offsets");
			properties.put("postlog.kafka.format", format);
			properties.put("spring.main.banner-mode", "off");
			properties.put("logging.level.org.apache.kafka", "WARN");
			properties.put("logging.level.kafka", "WARN");
			properties.put("logging.level.state.change.logger", "WARN");
			SpringApplication application = new SpringApplication(RelayApp.class);
			application.setDefaultProperties(properties);
			boolean[] done = new boolean[1];
			long[] bytes = new long[5];
			Thread reader = broker.read("public.bench_rows", (record) -> {
				if (!inForm.test(record)) {
					misformed.incrementAndGet();
				}
				tally.record(0L, record.value().length);
				// The mean sizes from every 64th record: decoding each header's name for
				// its length made this reader do more per record than the floors' readers.
				if ((++bytes[4] & 63) == 0) {
					bytes[0]++;
					bytes[1] += Math.max(0, record.serializedKeySize());
					bytes[2] += record.serializedValueSize();
					for (Header header : record.headers()) {
						bytes[3] += header.key().length() + header.value().length;
					}
				}
			}, () -> done[0]);
			int status;
			long transactions = -1;
			try (ConfigurableApplicationContext context = application.run()) {
				status = tally.awaitAndReport(Duration.ofSeconds(Long.parseLong(Tally.arg(args, "timeout", "600"))));
				KafkaRelay relay = context.getBean(PostlogKafkaRelay.class).relay();
				if (relay != null) {
					transactions = relay.progress().transactions();
				}
			}
			done[0] = true;
			reader.join(5000);
			long n = Math.max(1, bytes[0]);
			System.out.println("KAFKA kafka_transactions=" + transactions + " key_bytes=" + bytes[1] / n
					+ " value_bytes=" + bytes[2] / n + " header_bytes=" + bytes[3] / n);
			if (status == 0 && misformed.get() > 0) {
				System.out.println("FAILED leg=" + Tally.arg(args, "leg", "kafka-relay") + " " + misformed.get()
						+ " records not in the " + format + " format");
				status = 1;
			}
			System.exit(status);
		}
	}

	/**
	 * Returns whether a record is in a format's form: postlog's change JSON begins with
	 * {@code op}, Debezium's envelope with {@code before}, a binary-mode CloudEvent has a
	 * {@code ce_id} header.
	 */
	private static Predicate<ConsumerRecord<byte[], byte[]>> form(String format) {
		return switch (format) {
			case "postlog" -> (record) -> startsWith(record.value(), "{\"op\":");
			case "debezium" -> (record) -> startsWith(record.value(), "{\"before\":");
			case "cloudevents" -> (record) -> record.headers().lastHeader("ce_id") != null;
			default -> throw new IllegalArgumentException("Unknown format " + format);
		};
	}

	private static boolean startsWith(byte[] value, String prefix) {
		byte[] bytes = prefix.getBytes(StandardCharsets.US_ASCII);
		return value.length >= bytes.length && Arrays.equals(value, 0, bytes.length, bytes, 0, bytes.length);
	}

	/** The application: nothing but the auto-configured relay. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class RelayApp {

	}

}
