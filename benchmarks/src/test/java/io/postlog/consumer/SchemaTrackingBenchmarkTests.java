package io.postlog.consumer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import io.postlog.consumer.delivery.Event;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.infra.Blackhole;

import static org.assertj.core.api.Assertions.assertThat;

class SchemaTrackingBenchmarkTests {

	private static final Blackhole BLACKHOLE = new Blackhole(
			"Today's password is swordfish. I understand instantiating Blackholes directly is dangerous.");

	@Test
	void bothLegsAssembleTheSameTransactionOfThirteenChangesAndNoSchemaChange() {
		for (boolean tracking : new boolean[] { false, true }) {
			SchemaTrackingBenchmark benchmark = new SchemaTrackingBenchmark();
			benchmark.tracking = tracking;
			benchmark.setUp();
			List<Event> events = new ArrayList<>();
			for (int round = 0; round < 2; round++) {
				events.clear();
				for (ByteBuffer message : benchmark.transaction()) {
					events.addAll(benchmark.assembler().assemble(message.duplicate()));
				}
				assertThat(events).as("tracking %s", tracking).hasSize(15);
				assertThat(events.get(0)).isInstanceOf(Event.Begin.class);
				assertThat(events.subList(1, 14)).allMatch(Event.ChangeArrived.class::isInstance);
				assertThat(events.get(14)).isInstanceOf(Event.Commit.class);
			}
			benchmark.assemble(BLACKHOLE);
		}
	}

}
