package io.postlog.benchmarks.e2e;

import java.time.Duration;

import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.consumer.ReplicationConsumer;

/**
 * postlog core: a {@link ReplicationConsumer} on an existing slot and publication with a
 * change handler that reads every value. Arguments: {@code url= user= slot= publication=
 * expected= binary=true|false latency=false timeout=600}.
 */
public final class CoreLeg {

	private CoreLeg() {
	}

	public static void main(String[] args) throws Exception {
		boolean binary = Boolean.parseBoolean(Tally.arg(args, "binary", "true"));
		boolean latency = Boolean.parseBoolean(Tally.arg(args, "latency", "false"));
		Tally tally = new Tally(Tally.arg(args, "leg", binary ? "core-binary" : "core-text"),
				Long.parseLong(Tally.arg(args, "expected", null)), latency)
			.warmup(Long.parseLong(Tally.arg(args, "warmup", "0")));
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(Tally.arg(args, "url", null), Tally.arg(args, "user", "postgres"), null)
			.slotName(Tally.arg(args, "slot", null))
			.slotLifecycle(SlotLifecycle.EXISTING)
			.publicationName(Tally.arg(args, "publication", null))
			.publicationMode(PublicationMode.EXISTING)
			.binary(binary)
			.changeHandler((change) -> tally.record(change.commitTime(), Touch.change(change)))
			.build();
		consumer.start();
		Ready.signal(args);
		int status = tally.awaitAndReport(Duration.ofSeconds(Long.parseLong(Tally.arg(args, "timeout", "600"))));
		consumer.stop();
		System.exit(status);
	}

}
