package io.postlog.benchmarks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LsnBenchmarkTests {

	@Test
	void benchmarkRoundTripsItsPosition() {
		LsnBenchmark benchmark = new LsnBenchmark();
		assertThat(benchmark.parse()).hasToString(benchmark.print());
	}

}
