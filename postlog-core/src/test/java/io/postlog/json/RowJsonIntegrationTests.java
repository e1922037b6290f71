package io.postlog.json;

import java.util.List;

import io.postlog.Row;
import io.postlog.stream.PgOutputCapture;
import io.postlog.test.PostgresDatabase;
import io.postlog.test.PostgresTest;
import io.postlog.types.ValueDecoders;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one JSON form of {@code numeric} and {@code bytea} (and of NaN and the infinities,
 * which core decodes as {@code Double}) on values a real server streamed, in text and (on
 * 14+) binary format.
 */
@PostgresTest
class RowJsonIntegrationTests {

	private final PostgresDatabase database;

	RowJsonIntegrationTests(PostgresDatabase database) {
		this.database = database;
	}

	@Test
	void numericIsItsExactTextAndByteaIsBase64InBothFormats() {
		boolean modern = this.database.serverVersion() >= 140000;
		this.database.execute("CREATE TABLE json_values (id int PRIMARY KEY, amount numeric, ratio float4, "
				+ "weight float8, raw bytea)", "CREATE PUBLICATION json_values_pub FOR TABLE json_values");
		int formats = modern ? 2 : 1;
		for (int i = 0; i < formats; i++) {
			this.database.execute("SELECT pg_create_logical_replication_slot('json_values_" + i + "', 'pgoutput')");
		}
		this.database.execute("INSERT INTO json_values VALUES " + "(1, 12.50, 0.1, 0.1, '\\x00ff10'), "
				+ "(2, 123456789012345678901234567890.000000001, 'NaN', 'Infinity', ''), "
				+ "(3, 'NaN', '-Infinity', '-0.5e-300', '\\xfbff'), " + "(4, " + (modern ? "'Infinity'" : "0.000")
				+ ", NULL, NULL, NULL), " + "(5, " + (modern ? "'-Infinity'" : "-1e-20")
				+ ", 3.4e38, 1e300, '\\x3e3f')");
		List<String> expected = List.of("{\"id\":1,\"amount\":\"12.50\",\"ratio\":0.1,\"weight\":0.1,\"raw\":\"AP8Q\"}",
				"{\"id\":2,\"amount\":\"123456789012345678901234567890.000000001\",\"ratio\":\"NaN\","
						+ "\"weight\":\"Infinity\",\"raw\":\"\"}",
				"{\"id\":3,\"amount\":\"NaN\",\"ratio\":\"-Infinity\",\"weight\":-5.0E-301,\"raw\":\"+/8=\"}",
				modern ? "{\"id\":4,\"amount\":\"Infinity\",\"ratio\":null,\"weight\":null,\"raw\":null}"
						: "{\"id\":4,\"amount\":\"0.000\",\"ratio\":null,\"weight\":null,\"raw\":null}",
				modern ? "{\"id\":5,\"amount\":\"-Infinity\",\"ratio\":3.4E38,\"weight\":1.0E300,\"raw\":\"Pj8=\"}"
						: "{\"id\":5,\"amount\":\"-0.00000000000000000001\",\"ratio\":3.4E38,\"weight\":1.0E300,"
								+ "\"raw\":\"Pj8=\"}");
		for (int i = 0; i < formats; i++) {
			List<Row> rows;
			try (PgOutputCapture capture = PgOutputCapture.open(PgOutputCapture.connections(this.database),
					"json_values_" + i, "json_values_pub", i == 1, ValueDecoders.standard())) {
				rows = capture.readInsertedRows();
			}
			assertThat(rows.stream().map(RowJson::row).toList()).as("binary: %s", i == 1).isEqualTo(expected);
		}
	}

}
