package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PgIdentifiers;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link InvalidIdentifierException} raised while postlog set up replication:
 * the rule of that kind of name, and the properties that set it. A slot or publication
 * name set by a property fails earlier, as an invalid value of that property.
 */
class InvalidIdentifierFailureAnalyzer extends AbstractFailureAnalyzer<InvalidIdentifierException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidIdentifierException cause) {
		return new FailureAnalysis(
				"A name postlog would send to PostgreSQL is not a valid identifier: " + cause.getMessage(),
				"Change " + properties(cause.kind()) + ": " + PgIdentifiers.rule(cause.kind()) + ".", cause);
	}

	private static String properties(String kind) {
		return switch (kind) {
			case "slot" -> "postlog.slot.name, or postlog.groups.<group>.slot.name (default postlog_<group>, so the "
					+ "group name of @PgChangeListener counts)";
			case "publication" ->
				"postlog.publication.name, or postlog.groups.<group>.publication.name (default " + "postlog_<group>)";
			default -> "the " + kind + " name in postlog.tables, the tables of @PgChangeListener, or a table "
					+ "property (postlog.checkpoint.table, postlog.heartbeat.table, postlog.snapshot.watermark-table, "
					+ "postlog.snapshot.marker-table)";
		};
	}

}
