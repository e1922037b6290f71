package io.postlog.benchmarks.debezium;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.embedded.Connect;
import io.debezium.engine.format.Json;
import io.postlog.benchmarks.e2e.Tally;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.jspecify.annotations.Nullable;

/**
 * Debezium embedded with the PostgreSQL connector (pgoutput, an existing slot and
 * publication, no snapshot, offsets in memory). {@code format=connect} hands the handler
 * Kafka Connect records, whose every value it reads (no serialisation);
 * {@code format=json} serialises each record to JSON as a Debezium Server or Kafka
 * pipeline would. Arguments: {@code host= port= user= database= slot= publication=
 * expected= format=connect|json latency=false timeout=600}.
 */
public final class DebeziumLeg {

	private DebeziumLeg() {
	}

	public static void main(String[] args) throws Exception {
		boolean json = "json".equals(Tally.arg(args, "format", "connect"));
		boolean latency = Boolean.parseBoolean(Tally.arg(args, "latency", "false"));
		Tally tally = new Tally(Tally.arg(args, "leg", json ? "debezium-json" : "debezium-connect"),
				Long.parseLong(Tally.arg(args, "expected", null)), latency)
			.warmup(Long.parseLong(Tally.arg(args, "warmup", "0")));
		Properties props = ConnectorProperties.of(args, "bench", "10000");
		props.setProperty("snapshot.mode", "no_data");
		props.setProperty("table.include.list", "public.bench_rows");
		ExecutorService executor = Executors.newSingleThreadExecutor();
		DebeziumEngine<?> engine;
		if (json) {
			engine = DebeziumEngine.create(Json.class)
				.using(props)
				.notifying((ChangeEvent<String, String> event) -> json(event, tally))
				.using(ready(args))
				.build();
		}
		else {
			engine = DebeziumEngine.create(Connect.class)
				.using(props)
				.notifying((ChangeEvent<SourceRecord, SourceRecord> event) -> connect(event.value(), tally))
				.using(ready(args))
				.build();
		}
		executor.execute(engine);
		int status = tally.awaitAndReport(Duration.ofSeconds(Long.parseLong(Tally.arg(args, "timeout", "600"))));
		engine.close();
		executor.shutdown();
		System.exit(status);
	}

	private static DebeziumEngine.ConnectorCallback ready(String[] args) {
		return new DebeziumEngine.ConnectorCallback() {

			@Override
			public void taskStarted() {
				String file = Tally.arg(args, "ready", "");
				if (!file.isEmpty()) {
					try {
						Files.writeString(Path.of(file), "ready\n");
					}
					catch (IOException ex) {
						throw new UncheckedIOException(ex);
					}
				}
			}

		};
	}

	private static void connect(@Nullable SourceRecord record, Tally tally) {
		if (record == null || !(record.value() instanceof Struct envelope)) {
			return;
		}
		if (envelope.schema().field("op") == null) {
			return;
		}
		String op = envelope.getString("op");
		if (!"c".equals(op) && !"u".equals(op) && !"d".equals(op)) {
			return;
		}
		long touched = touch(envelope.getStruct("before")) + touch(envelope.getStruct("after"));
		Struct source = envelope.getStruct("source");
		long commitMicros = commitMicros(source);
		long now = nowMicros();
		synchronized (tally) {
			tally.record(now - commitMicros, touched);
		}
	}

	private static long commitMicros(Struct source) {
		if (source.schema().field("ts_us") != null && source.getInt64("ts_us") != null) {
			return source.getInt64("ts_us");
		}
		return source.getInt64("ts_ms") * 1000L;
	}

	private static long touch(@Nullable Struct row) {
		if (row == null) {
			return 0;
		}
		long sum = 0;
		for (Field field : row.schema().fields()) {
			Object value = row.get(field);
			sum += (value != null) ? value.hashCode() : 0;
		}
		return sum;
	}

	private static void json(ChangeEvent<String, String> event, Tally tally) {
		String value = event.value();
		if (value == null) {
			return;
		}
		int at = value.lastIndexOf("\"op\":\"");
		if (at < 0) {
			return;
		}
		char op = value.charAt(at + 6);
		if (op != 'c' && op != 'u' && op != 'd') {
			return;
		}
		synchronized (tally) {
			tally.record(0L, value.hashCode());
		}
	}

	private static long nowMicros() {
		java.time.Instant now = java.time.Instant.now();
		return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
	}

}
