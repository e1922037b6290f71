package io.postlog.benchmarks.e2e;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.postgresql.PGConnection;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * The JVM floor: pgjdbc's replication stream read in a loop, counting Insert, Update and
 * Delete tags and decoding nothing but the commit time of Begin messages (for the latency
 * run). Arguments: {@code url= user= slot= publication= expected= latency=false
 * timeout=600}.
 */
public final class RawPgjdbcLeg {

	private static final long POSTGRES_EPOCH_SECONDS = 946_684_800L;

	private RawPgjdbcLeg() {
	}

	public static void main(String[] args) throws Exception {
		long expected = Long.parseLong(Tally.arg(args, "expected", null));
		boolean latency = Boolean.parseBoolean(Tally.arg(args, "latency", "false"));
		Tally tally = new Tally("pgjdbc-raw", expected, latency).warmup(Long.parseLong(Tally.arg(args, "warmup", "0")));
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
			Thread reader = new Thread(() -> read(stream, tally), "raw-reader");
			reader.setDaemon(true);
			reader.start();
			Ready.signal(args);
			int status = tally.awaitAndReport(Duration.ofNanos(timeoutNanos));
			System.exit(status);
		}
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
					// Begin: tag, final LSN, then the commit time in microseconds since
					// 2000-01-01.
					long micros = payload.getLong(payload.position() + 9);
					commitTime = Instant.ofEpochSecond(POSTGRES_EPOCH_SECONDS + Math.floorDiv(micros, 1_000_000L),
							Math.floorMod(micros, 1_000_000L) * 1_000L);
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
