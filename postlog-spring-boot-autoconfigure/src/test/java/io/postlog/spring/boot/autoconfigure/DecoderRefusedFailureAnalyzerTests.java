package io.postlog.spring.boot.autoconfigure;

import io.postlog.decoder.DecoderRefusedException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.diagnostics.FailureAnalysis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The failure analysis of a decoder's refusal, also when Spring wraps it.
 */
class DecoderRefusedFailureAnalyzerTests {

	@Test
	void refusalNamesTheDecoderAndPointsAtThePropertyAndTheMessage() {
		DecoderRefusedException refusal = new DecoderRefusedException("wal2json",
				"wal2json sends values as text only; turn binary values off (postlog.binary=false)");
		FailureAnalysis analysis = new DecoderRefusedFailureAnalyzer()
			.analyze(new IllegalStateException("Failed to start bean", refusal));
		assertThat(analysis.getDescription()).isEqualTo("postlog.decoder=wal2json cannot stream as configured. "
				+ "Decoder wal2json: wal2json sends values as text only; turn binary values off "
				+ "(postlog.binary=false).");
		assertThat(analysis.getAction()).startsWith("Do what the message says (the decoder's choices are "
				+ "postlog.wal2json.allow-insert-only-tables, postlog.wal2json.numbers-as-strings and "
				+ "postlog.wal2json.allow-non-finite-as-null), or choose another decoder with postlog.decoder");
		assertThat(analysis.getCause()).isSameAs(refusal);
	}

	@Test
	void pglogicalRefusalPointsAtItsReplicationSets() {
		FailureAnalysis analysis = new DecoderRefusedFailureAnalyzer().analyze(
				new DecoderRefusedException("pglogical", "pglogical_output cannot stream in-progress transactions"));
		assertThat(analysis.getAction())
			.contains("(the replication sets streamed are postlog.pglogical.replication-sets)");
	}

}
