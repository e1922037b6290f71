package io.postlog.benchmarks.e2e;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * The JVM floor: pgjdbc's replication stream read in a loop, counting Insert, Update and
 * Delete tags and decoding nothing but the commit time of Begin messages (for the latency
 * run). With {@code handoff=true} ({@code pgjdbc-handoff}) the reading thread counts
 * nothing itself: at each Commit it hands the transaction's tags to a second thread
 * through a {@link LinkedBlockingQueue}, which counts them. That is the least a consumer
 * with a dedicated reader thread and a separate delivery thread (postlog's) pays on top
 * of the floor: one thread wake-up per transaction. Arguments: {@code url= user= slot=
 * publication= expected= latency=false handoff=false timeout=600}.
 */
public final class RawPgjdbcLeg {

	private static final long POSTGRES_EPOCH_SECONDS = 946_684_800L;

	private RawPgjdbcLeg() {
	}

	public static void main(String[] args) throws Exception {
		long expected = Long.parseLong(Tally.arg(args, "expected", null));
		boolean latency = Boolean.parseBoolean(Tally.arg(args, "latency", "false"));
		boolean handOff = Boolean.parseBoolean(Tally.arg(args, "handoff", "false"));
		Tally tally = new Tally(handOff ? "pgjdbc-handoff" : "pgjdbc-raw", expected, latency)
			.warmup(Long.parseLong(Tally.arg(args, "warmup", "0")));
		Properties properties = new Properties();
		PGProperty.USER.set(properties, Tally.arg(args, "user", "postgres"));
		PGProperty.REPLICATION.set(properties, "database");
		PGProperty.ASSUME_MIN_SERVER_VERSION.set(properties, "10");
		PGProperty.PREFER_QUERY_MODE.set(properties, "simple");
		long timeoutNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(Tally.arg(args, "timeout", "600")));
		try (Connection connection = DriverManager.getConnection(Tally.arg(args, "url", null), properties)) {
			PGReplicationStream stream = connection.unwrap(PGConnection.class)
				.getReplicationAPI()
				.replicationStream()
				.logical()
				.withSlotName(Tally.arg(args, "slot", null))
				.withStartPosition(LogSequenceNumber.INVALID_LSN)
				.withSlotOption("proto_version", "1")
				.withSlotOption("publication_names", Tally.arg(args, "publication", null))
				.withStatusInterval(10, TimeUnit.SECONDS)
				.start();
			Thread reader;
			if (handOff) {
				BlockingQueue<Committed> queue = new LinkedBlockingQueue<>(1024);
				reader = new Thread(() -> readAndHandOff(stream, queue), "raw-reader");
				Thread delivery = new Thread(() -> count(queue, tally), "raw-delivery");
				delivery.setDaemon(true);
				delivery.start();
			}
			else {
				reader = new Thread(() -> read(stream, tally), "raw-reader");
			}
			reader.setDaemon(true);
			reader.start();
			Ready.signal(args);
			int status = tally.awaitAndReport(Duration.ofNanos(timeoutNanos));
			System.exit(status);
		}
	}

	private static void readAndHandOff(PGReplicationStream stream, BlockingQueue<Committed> queue) {
		Instant commitTime = Instant.EPOCH;
		StringBuilder tags = new StringBuilder();
		try {
			while (true) {
				ByteBuffer payload = stream.read();
				byte tag = payload.get(payload.position());
				if (tag == 'I' || tag == 'U' || tag == 'D') {
					tags.append((char) tag);
				}
				else if (tag == 'B') {
					commitTime = beginTime(payload);
				}
				else if (tag == 'C') {
					queue.put(new Committed(commitTime, tags.toString()));
					tags.setLength(0);
					stream.setFlushedLSN(stream.getLastReceiveLSN());
					stream.setAppliedLSN(stream.getLastReceiveLSN());
				}
			}
		}
		catch (Exception ex) {
			System.out.println("reader failed: " + ex.getClass().getName());
		}
	}

	private static void count(BlockingQueue<Committed> queue, Tally tally) {
		try {
			while (true) {
				Committed committed = queue.take();
				for (int i = 0; i < committed.tags.length(); i++) {
					tally.record(committed.commitTime, (byte) committed.tags.charAt(i));
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Begin: tag, final LSN, then the commit time in microseconds since 2000-01-01. */
	private static Instant beginTime(ByteBuffer payload) {
		long micros = payload.getLong(payload.position() + 9);
		return Instant.ofEpochSecond(POSTGRES_EPOCH_SECONDS + Math.floorDiv(micros, 1_000_000L),
				Math.floorMod(micros, 1_000_000L) * 1_000L);
	}

	private record Committed(Instant commitTime, String tags) {

	}

	private static void read(PGReplicationStream stream, Tally tally) {
		Instant commitTime = Instant.EPOCH;
		try {
			while (true) {
				ByteBuffer payload = stream.read();
				byte tag = payload.get(payload.position());
				if (tag == 'I' || tag == 'U' || tag == 'D') {
					tally.record(commitTime, tag);
				}
				else if (tag == 'B') {
					commitTime = beginTime(payload);
				}
				else if (tag == 'C') {
					stream.setFlushedLSN(stream.getLastReceiveLSN());
					stream.setAppliedLSN(stream.getLastReceiveLSN());
				}
			}
		}
		catch (Exception ex) {
			System.out.println("reader failed: " + ex.getClass().getName());
		}
	}

}
