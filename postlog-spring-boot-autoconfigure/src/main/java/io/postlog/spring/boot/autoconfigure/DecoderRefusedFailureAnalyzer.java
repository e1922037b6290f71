package io.postlog.spring.boot.autoconfigure;

import io.postlog.decoder.DecoderRefusedException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link DecoderRefusedException}: the configured decoder cannot serve what
 * the application asked of it on this server or these tables.
 */
class DecoderRefusedFailureAnalyzer extends AbstractFailureAnalyzer<DecoderRefusedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DecoderRefusedException cause) {
		return new FailureAnalysis(
				"postlog.decoder=" + cause.decoder() + " cannot stream as configured. " + cause.getMessage() + ".",
				"Do what the message says" + properties(cause.decoder()) + ", or choose another decoder with "
						+ "postlog.decoder (pgoutput, PostgreSQL 10+, carries everything postlog can ask for from "
						+ "PostgreSQL 14 on).",
				cause);
	}

	private static String properties(String decoder) {
		return switch (decoder) {
			case "wal2json" -> " (the decoder's choices are postlog.wal2json.allow-insert-only-tables, "
					+ "postlog.wal2json.numbers-as-strings and postlog.wal2json.allow-non-finite-as-null)";
			case "pglogical" -> " (the replication sets streamed are postlog.pglogical.replication-sets)";
			default -> "";
		};
	}

}
