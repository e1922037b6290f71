package io.postlog.spring.boot.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.postlog.spring.PostlogStreamingMonitor;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.datasource.SimpleDriverDataSource;

import static org.assertj.core.api.Assertions.assertThat;

class PostlogStreamingMetricsTests {

	private final PostlogStreamingMonitor monitor = new PostlogStreamingMonitor(
			new SimpleDriverDataSource(new org.postgresql.Driver(), "jdbc:postgresql://127.0.0.1:1/none"), "orders",
			true);

	private final MeterRegistry registry = new SimpleMeterRegistry();

	@Test
	void spillMetersFollowWhatTheConsumerReports() {
		new PostlogStreamingMetrics(this.monitor).bindTo(this.registry);
		assertThat(this.registry.get("postlog.streaming.spilled").tag("slot", "orders").functionCounter().count())
			.isZero();
		this.monitor.spilled(4096, 10_000);
		assertThat(this.registry.get("postlog.streaming.spilled").functionCounter().count()).isEqualTo(10_000);
		assertThat(this.registry.get("postlog.streaming.spill-size").gauge().value()).isEqualTo(4096);
		this.monitor.spilled(0, 12_000);
		assertThat(this.registry.get("postlog.streaming.spilled").functionCounter().count()).isEqualTo(12_000);
		assertThat(this.registry.get("postlog.streaming.spill-size").gauge().value()).isZero();
		assertThat(this.registry.get("postlog.streaming.spill-size").gauge().getId().getBaseUnit()).isEqualTo("bytes");
	}

	@Test
	void serverSpillIsNotANumberWhileTheServerCannotBeRead() {
		new PostlogStreamingMetrics(this.monitor).bindTo(this.registry);
		assertThat(this.registry.get("postlog.slot.server-spill").tag("kind", "spill").gauge().value()).isNaN();
		assertThat(this.registry.get("postlog.slot.server-spill").tag("kind", "stream").gauge().value()).isNaN();
		assertThat(this.registry.get("postlog.slot.server-spill").gauges()).hasSize(2)
			.allSatisfy((gauge) -> assertThat(gauge.getId().getTag("slot")).isEqualTo("orders"));
	}

}
