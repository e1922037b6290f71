package io.postlog.consumer;

import java.nio.file.Path;

import io.postlog.consumer.spill.StreamedTransactions;
import io.postlog.consumer.spill.StreamingOptions;

import static io.postlog.consumer.spill.StreamMessages.block;
import static io.postlog.consumer.spill.StreamMessages.insert;
import static io.postlog.consumer.spill.StreamMessages.relation;

/**
 * A process that spills a streamed transaction, says where, and waits to be killed.
 */
final class SpillingProcess {

	static final String SPILLED = "spilled ";

	private SpillingProcess() {
	}

	public static void main(String[] args) throws InterruptedException {
		StreamedTransactions streams = new StreamedTransactions(new StreamingOptions(0, Path.of(args[0]), 1 << 20),
				"child");
		block(streams, 1, true, 1, relation(), insert(1, "a"));
		System.out.println(SPILLED + streams.spillDirectory());
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
