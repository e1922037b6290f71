package io.postlog.benchmarks;

import java.nio.ByteBuffer;

import io.postlog.Row;
import io.postlog.pgoutput.PgOutputDecoder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PgOutputPipelineBenchmarkTests {

	@Test
	void textAndBinaryMixesGiveEqualRowsOfSixOrOneColumns() {
		PgOutputPipelineBenchmark benchmark = new PgOutputPipelineBenchmark();
		benchmark.setUp();
		ByteBuffer[] text = benchmark.messages(false);
		ByteBuffer[] binary = benchmark.messages(true);
		assertThat(text).hasSize(PgOutputPipelineBenchmark.CHANGES_PER_MIX);
		for (int i = 0; i < text.length; i++) {
			Row fromText = benchmark.change(PgOutputDecoder.decode(text[i]));
			Row fromBinary = benchmark.change(PgOutputDecoder.decode(binary[i]));
			assertThat(fromBinary).isEqualTo(fromText);
			assertThat(fromBinary.columns()).hasSize((i == text.length - 1) ? 1 : 6);
		}
	}

}
