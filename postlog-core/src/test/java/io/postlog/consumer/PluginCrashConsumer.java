package io.postlog.consumer;

import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.postlog.Change;
import io.postlog.Row;
import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import io.postlog.decoder.LogicalDecoder;
import io.postlog.decoder.PgLogicalDecoder;
import io.postlog.decoder.Wal2JsonDecoder;

/**
 * A consumer of the wal2json or pglogical plugin for
 * {@link PluginConsumerCrashIntegrationTests} to run in a child JVM: it appends each
 * delivered change's id, commit LSN, key and version to a file, flushed before the
 * handler returns, so that a kill loses nothing the handler completed. Stops cleanly when
 * its standard input closes.
 */
final class PluginCrashConsumer {

	private PluginCrashConsumer() {
	}

	/**
	 * Runs the consumer.
	 * @param args JDBC URL, user, slot, table, output file, decoder ({@code wal2json} or
	 * {@code pglogical}, which streams the {@code default} replication set)
	 * @throws Exception if the consumer cannot start
	 */
	public static void main(String[] args) throws Exception {
		LogicalDecoder decoder = "pglogical".equals(args[5]) ? PgLogicalDecoder.forReplicationSets(List.of("default"))
				: Wal2JsonDecoder.forTables(List.of(new TableId("public", args[3])));
		try (Writer out = new BufferedWriter(
				new OutputStreamWriter(new FileOutputStream(args[4], true), StandardCharsets.UTF_8))) {
			ReplicationConsumer consumer = ReplicationConsumer.builder()
				.jdbcUrl(args[0], args[1], null)
				.slotName(args[2])
				.slotLifecycle(SlotLifecycle.EXISTING)
				.decoder(decoder)
				.statusInterval(Duration.ofSeconds(1))
				.retryPolicy(new RetryPolicy(Duration.ofMillis(100), 2, Duration.ofSeconds(1), -1))
				.changeHandler((change) -> write(out, change))
				.build();
			consumer.start();
			System.out.println("started");
			System.out.flush();
			while (System.in.read() != -1) {
				// Wait for the parent to close standard input.
			}
			consumer.stop();
		}
	}

	private static void write(Writer out, Change change) throws IOException {
		Row row = change.after();
		out.write(change.id() + " " + change.commitLsn() + " " + row.get("k") + " " + row.get("v") + "\n");
		out.flush();
	}

}
