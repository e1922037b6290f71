package io.postlog.benchmarks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RowDecoderBenchmarkTests {

	@Test
	void textAndBinaryRowsOfTheBenchmarkAreEqual() {
		RowDecoderBenchmark benchmark = new RowDecoderBenchmark();
		benchmark.setUp();
		assertThat(benchmark.newRowBinary()).isEqualTo(benchmark.newRowText());
		assertThat(benchmark.newRowBinary().columns()).hasSize(6);
	}

}
