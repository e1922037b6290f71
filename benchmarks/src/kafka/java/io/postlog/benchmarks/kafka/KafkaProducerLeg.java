package io.postlog.benchmarks.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import io.postlog.benchmarks.e2e.Tally;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * The Kafka relay's floor: what the broker and the Kafka client alone cost on this
 * machine. pgjdbc's replication stream is read in a loop as {@code pgjdbc-raw} reads it,
 * decoding nothing; each Insert, Update and Delete becomes one record of the relay's mean
 * size ({@code key_bytes}, {@code value_bytes}, two headers of {@code header_bytes} in
 * all; {@code KafkaRelayLeg} prints its means), keyed by a counter so that records spread
 * over the partitions as the relay's do. They go to the same kind of broker (the one
 * {@code kafka=} names, else one in this JVM) and
 * {@code read_committed} reader as the relay's ({@code public.bench_rows}, 3 partitions),
 * through two transactional producers taken in turn with the relay's settings
 * (idempotence, {@code acks=all}, {@code batch.size} 256 KB): a Kafka transaction covers
 * up to {@code batch} (100) source transactions (the first: one, so that the reader's
 * clock starts with the stream) and commits, with an offset record, when
 * the batch is full or nothing more is waiting on the socket, after which the slot is
 * acknowledged, as the relay commits. Arguments: {@code url= user= slot= publication=
 * expected= timeout=600 batch=100 key_bytes= value_bytes= header_bytes= kafka=}.
 */
public final class KafkaProducerLeg {

	private static final String TOPIC = "public.bench_rows";

	private static final String OFFSETS = "postlog.offsets";

	private KafkaProducerLeg() {
	}

	public static void main(String[] args) throws Exception {
		long expected = Long.parseLong(Tally.arg(args, "expected", null));
		Tally tally = new Tally("kafka-producer", expected, false);
		int batch = Integer.parseInt(Tally.arg(args, "batch", "100"));
		Shape shape = Shape.of(args);
		String slot = Tally.arg(args, "slot", null);
		Properties properties = new Properties();
		PGProperty.USER.set(properties, Tally.arg(args, "user", "postgres"));
		PGProperty.REPLICATION.set(properties, "database");
		PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
		PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
		long timeoutNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(Tally.arg(args, "timeout", "600")));
		try (BenchBroker broker = BenchBroker.of(args)) {
			broker.topic(TOPIC, 3);
			broker.topic(OFFSETS, 1);
			boolean[] done = new boolean[1];
			Thread counter = broker.read(TOPIC, (record) -> tally.record(0L, record.value().length), () -> done[0]);
			@SuppressWarnings("unchecked")
			KafkaProducer<byte[], byte[]>[] producers = new KafkaProducer[] { producer(broker, "bench-producer"),
					producer(broker, "bench-producer-1") };
			for (KafkaProducer<byte[], byte[]> producer : producers) {
				producer.initTransactions();
			}
			try (Connection connection = DriverManager.getConnection(Tally.arg(args, "url", null), properties)) {
				PGReplicationStream stream = connection.unwrap(PGConnection.class)
					.getReplicationAPI()
					.replicationStream()
					.logical()
					.withSlotName(slot)
					.withStartPosition(LogSequenceNumber.INVALID_LSN)
					.withSlotOption("proto_version", "1")
					.withSlotOption("publication_names", Tally.arg(args, "publication", null))
					.withStatusInterval(10, TimeUnit.SECONDS)
					.start();
				Relay relay = new Relay(stream, producers, shape, batch, slot);
				Thread reader = new Thread(relay::run, "producer-reader");
				reader.setDaemon(true);
				reader.start();
				int status = tally.awaitAndReport(Duration.ofNanos(timeoutNanos));
				System.out.println("KAFKA kafka_transactions=" + relay.transactions);
				done[0] = true;
				counter.join(5000);
				for (KafkaProducer<byte[], byte[]> producer : producers) {
					producer.close(Duration.ZERO);
				}
				System.exit(status);
			}
		}
	}

	static KafkaProducer<byte[], byte[]> producer(BenchBroker broker, String transactionalId) {
		// RelayClientProperties.producer()'s settings.
		Map<String, Object> properties = new HashMap<>();
		properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.servers());
		properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
		properties.put(ProducerConfig.ACKS_CONFIG, "all");
		properties.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) Duration.ofMinutes(5).toMillis());
		properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Duration.ofSeconds(30).toMillis());
		properties.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
		properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
		return new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
	}

	/** The bytes of every record: a value and two headers, the same for each. */
	record Shape(int keyBytes, int valueBytes, int headerBytes) {

		static Shape of(String[] args) {
			return new Shape(Integer.parseInt(Tally.arg(args, "key_bytes", "11")),
					Integer.parseInt(Tally.arg(args, "value_bytes", "327")),
					Integer.parseInt(Tally.arg(args, "header_bytes", "52")));
		}


		byte[] value() {
			byte[] value = new byte[this.valueBytes];
			Arrays.fill(value, (byte) 'x');
			return value;
		}

		RecordHeaders headers() {
			// postlog-id and postlog-commit-lsn: the header names count in the size.
			int values = Math.max(2, this.headerBytes - "postlog-id".length() - "postlog-commit-lsn".length());
			byte[] id = new byte[values * 3 / 4];
			byte[] lsn = new byte[values - id.length];
			Arrays.fill(id, (byte) '0');
			Arrays.fill(lsn, (byte) '0');
			RecordHeaders headers = new RecordHeaders();
			headers.add("postlog-id", id);
			headers.add("postlog-commit-lsn", lsn);
			headers.setReadOnly();
			return headers;
		}

		/** A key of {@code keyBytes} bytes ending with the counter's digits. */
		byte[] key(long counter) {
			byte[] key = new byte[Math.max(this.keyBytes, 20)];
			Arrays.fill(key, (byte) '0');
			long n = counter;
			for (int i = key.length - 1; i >= 0 && n > 0; i--, n /= 10) {
				key[i] = (byte) ('0' + n % 10);
			}
			return (key.length == this.keyBytes) ? key : Arrays.copyOfRange(key, key.length - this.keyBytes, key.length);
		}

	}

	/** The reading thread: records, transactions and acknowledgements. */
	private static final class Relay {

		private final PGReplicationStream stream;

		private final KafkaProducer<byte[], byte[]>[] producers;

		private final Shape shape;

		private final byte[] value;

		private final RecordHeaders headers;

		private final int batch;

		private final byte[] slotKey;

		private int turn;

		private boolean open;

		private int sourceTransactions;

		private long counter;

		private LogSequenceNumber lastCommit = LogSequenceNumber.INVALID_LSN;

		volatile long transactions;

		Relay(PGReplicationStream stream, KafkaProducer<byte[], byte[]>[] producers, Shape shape, int batch,
				String slot) {
			this.stream = stream;
			this.producers = producers;
			this.shape = shape;
			this.value = shape.value();
			this.headers = shape.headers();
			this.batch = batch;
			this.slotKey = slot.getBytes(StandardCharsets.UTF_8);
		}

		void run() {
			try {
				while (true) {
					ByteBuffer payload = this.stream.readPending();
					if (payload == null) {
						// Nothing waiting: commit what is open, as the relay does.
						commit();
						payload = this.stream.read();
					}
					byte tag = payload.get(payload.position());
					if (tag == 'I' || tag == 'U' || tag == 'D') {
						send();
					}
					else if (tag == 'C') {
						this.lastCommit = this.stream.getLastReceiveLSN();
						// The first Kafka transaction holds one source transaction: the
						// reader's clock starts with the stream, not 100 transactions in.
						if (++this.sourceTransactions >= this.batch || this.transactions == 0) {
							commit();
						}
					}
				}
			}
			catch (Exception ex) {
				System.out.println("reader failed: " + ex);
			}
		}

		private void send() {
			KafkaProducer<byte[], byte[]> producer = this.producers[this.turn];
			if (!this.open) {
				producer.beginTransaction();
				this.open = true;
			}
			producer.send(new ProducerRecord<>(TOPIC, null, this.shape.key(++this.counter), this.value, this.headers));
		}

		private void commit() {
			this.sourceTransactions = 0;
			if (!this.open) {
				return;
			}
			KafkaProducer<byte[], byte[]> producer = this.producers[this.turn];
			String position = "{\"slot\":\"bench\",\"commitLsn\":\"" + this.lastCommit.asString() + "\"}";
			producer.send(new ProducerRecord<>(OFFSETS, null, this.slotKey, position.getBytes(StandardCharsets.UTF_8)));
			producer.commitTransaction();
			this.open = false;
			this.transactions++;
			this.turn = (this.turn + 1) % this.producers.length;
			this.stream.setFlushedLSN(this.lastCommit);
			this.stream.setAppliedLSN(this.lastCommit);
		}

	}

}
