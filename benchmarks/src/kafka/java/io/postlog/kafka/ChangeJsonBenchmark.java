package io.postlog.kafka;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.postlog.Change;
import io.postlog.Lsn;
import io.postlog.Operation;
import io.postlog.Row;
import io.postlog.TableId;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Kafka relay's JSON per change, on the end-to-end workload's row of {@code bench_rows}
 * ({@code bigint}, {@code int}, {@code text}, {@code timestamptz},
 * {@code numeric(12,2)}, {@code jsonb}), as the decoder gives it: the record's value
 * ({@link ChangeJson#change}, postlog's format) and its key ({@link ChangeJson#columns}
 * of the primary key). The reference: Jackson's data binding writing the same fields from
 * a map, values as postlog writes them (so that both documents have the same bytes), the
 * general-purpose way to the same document. Built with {@code -Pkafka}:
 * {@code java -cp benchmarks/target/benchmarks.jar org.openjdk.jmh.Main ChangeJsonBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(3)
public class ChangeJsonBenchmark {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private static final List<String> KEY = List.of("id");

	private final Change change = insert(123_457L);

	private final Map<String, Object> document = document(this.change);

	/** The two ways write the same bytes, or the comparison says nothing. */
	@Setup
	public void check() {
		String value = new String(value(), StandardCharsets.UTF_8);
		String reference = new String(referenceJacksonMap(), StandardCharsets.UTF_8);
		if (!value.equals(reference)) {
			throw new IllegalStateException("Not the same document:\n" + value + "\n" + reference);
		}
	}

	@Benchmark
	public byte[] value() {
		return ChangeJson.change(this.change);
	}

	@Benchmark
	public byte[] key() {
		return ChangeJson.columns(this.change.after(), KEY);
	}

	@Benchmark
	public byte[] referenceJacksonMap() {
		return MAPPER.writeValueAsBytes(this.document);
	}

	/** A row as the workload's {@code INSERT} writes it and the binary decoders read it. */
	static Change insert(long g) {
		Row row = Row.of(Row.columns(List.of("id", "a", "b", "c", "d", "e")),
				new Object[] { g, (int) (g % 100_000), "row " + g + " please deliver to the back door",
						OffsetDateTime.of(2024, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC).plusSeconds(g),
						BigDecimal.valueOf(g % 1_000_000, 2), "{\"qty\": " + (g % 10) + ", \"sku\": \"A-" + g + "\"}" });
		return new Change(Operation.INSERT, new TableId("public", "bench_rows"), null, row, 771,
				Lsn.parse("0/16B374D"), Instant.parse("2026-01-02T03:04:05.123456Z"), 3, "s_kafka_relay/0/16B374D/3");
	}

	private static Map<String, Object> document(Change change) {
		Row after = change.after();
		Map<String, Object> row = new LinkedHashMap<>();
		for (String column : after.columns()) {
			Object value = after.get(column);
			row.put(column, (value instanceof BigDecimal || value instanceof OffsetDateTime)
					? new String(ChangeJson.value(value), StandardCharsets.UTF_8).replace("\"", "") : value);
		}
		Map<String, Object> document = new LinkedHashMap<>();
		document.put("op", change.operation().name());
		Map<String, Object> table = new LinkedHashMap<>();
		table.put("schema", change.table().schema());
		table.put("name", change.table().name());
		document.put("table", table);
		document.put("before", null);
		document.put("after", row);
		document.put("commitLsn", change.commitLsn().toString());
		document.put("xid", change.xid());
		document.put("commitTime", change.commitTime().toString());
		document.put("id", change.id());
		return document;
	}

}
