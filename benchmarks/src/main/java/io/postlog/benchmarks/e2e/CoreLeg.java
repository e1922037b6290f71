package io.postlog.benchmarks.e2e;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ReplicationConsumer;
import io.postlog.decoder.PgLogicalDecoder;
import io.postlog.decoder.Wal2JsonDecoder;

/**
 * postlog core: a {@link ReplicationConsumer} on an existing slot and publication with a
 * change handler that reads every value. Arguments: {@code url= user= slot= publication=
 * expected= binary=true|false latency=false timeout=600}, and for streaming
 * {@code streaming=true memory=16777216 spill=<java.io.tmpdir> maxSpill=10737418240}
 * (bytes), after which it prints the bytes it spilled ({@code SPILLED bytes=}). With
 * {@code decoder=wal2json} it reads {@code table=} (default {@code bench_rows}) through
 * wal2json, numerics accepted without numbers as strings; with {@code decoder=pglogical}
 * the tables of {@code sets=} (default {@code default}) through pglogical_output; both
 * text values.
 */
public final class CoreLeg {

	private CoreLeg() {
	}

	public static void main(String[] args) throws Exception {
		boolean binary = Boolean.parseBoolean(Tally.arg(args, "binary", "true"));
		boolean latency = Boolean.parseBoolean(Tally.arg(args, "latency", "false"));
		boolean streaming = Boolean.parseBoolean(Tally.arg(args, "streaming", "false"));
		String decoder = Tally.arg(args, "decoder", "pgoutput");
		String defaultLeg = !decoder.equals("pgoutput") ? "core-" + decoder
				: streaming ? "core-streaming" : binary ? "core-binary" : "core-text";
		Tally tally = new Tally(Tally.arg(args, "leg", defaultLeg), Long.parseLong(Tally.arg(args, "expected", null)),
				latency)
			.warmup(Long.parseLong(Tally.arg(args, "warmup", "0")));
		ReplicationConsumer.Builder builder = ReplicationConsumer.builder()
			.jdbcUrl(Tally.arg(args, "url", null), Tally.arg(args, "user", "postgres"), null)
			.slotName(Tally.arg(args, "slot", null))
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationName(Tally.arg(args, "publication", null))
			.publicationMode(PublicationMode.EXISTING)
			.binary(binary)
			.changeHandler((change) -> tally.record(change.commitTime(), Touch.change(change)));
		switch (decoder) {
			case "wal2json" -> builder.binary(false)
				.decoder(Wal2JsonDecoder.forTables(List.of(TableId.parse(Tally.arg(args, "table", "bench_rows"))))
					.allowingNonFiniteNumbersAsNull(true));
			case "pglogical" -> builder.binary(false)
				.decoder(PgLogicalDecoder.forReplicationSets(List.of(Tally.arg(args, "sets", "default").split(","))));
			case "pgoutput" -> {
			}
			default -> throw new IllegalArgumentException("decoder=" + decoder);
		}
		if (streaming) {
			builder.streaming(Long.parseLong(Tally.arg(args, "memory", Long.toString(16L << 20))),
					Path.of(Tally.arg(args, "spill", System.getProperty("java.io.tmpdir"))),
					Long.parseLong(Tally.arg(args, "maxSpill", Long.toString(10L << 30))));
		}
		ReplicationConsumer consumer = builder.build();
		consumer.start();
		Ready.signal(args);
		int status = tally.awaitAndReport(Duration.ofSeconds(Long.parseLong(Tally.arg(args, "timeout", "600"))));
		if (streaming) {
			System.out.println("SPILLED bytes=" + consumer.spilledBytesTotal());
		}
		consumer.stop();
		System.exit(status);
	}

}
