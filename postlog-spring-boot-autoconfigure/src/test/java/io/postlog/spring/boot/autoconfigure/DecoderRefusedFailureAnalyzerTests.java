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
		assertThat(analysis.getAction()).startsWith("Do what the message says, or choose another decoder");
		assertThat(analysis.getCause()).isSameAs(refusal);
	}

}
