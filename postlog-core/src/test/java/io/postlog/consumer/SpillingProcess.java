package io.postlog.consumer;

import java.nio.file.Path;

import static io.postlog.consumer.StreamMessages.block;
import static io.postlog.consumer.StreamMessages.insert;
import static io.postlog.consumer.StreamMessages.relation;

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
