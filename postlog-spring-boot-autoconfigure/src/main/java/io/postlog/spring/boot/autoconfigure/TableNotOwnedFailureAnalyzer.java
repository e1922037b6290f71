package io.postlog.spring.boot.autoconfigure;

import io.postlog.admin.PgIdentifiers;
import io.postlog.spring.TableNotOwnedException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link TableNotOwnedException}, leading with ownership: PostgreSQL lets only
 * a table's owner publish it, whatever else the role may do.
 */
class TableNotOwnedFailureAnalyzer extends AbstractFailureAnalyzer<TableNotOwnedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, TableNotOwnedException cause) {
		String table = PgIdentifiers.quote(cause.table());
		String publication = PgIdentifiers.quote("publication", cause.publication());
		return new FailureAnalysis(cause.getMessage()
				+ ". PostgreSQL lets only a table's owner (or a member of the owning role) add it to a publication; "
				+ "privileges such as SELECT or REPLICATION are not enough.",
				"Either make the application's role a member of the owner (GRANT " + quoteRole(cause.owner()) + " TO "
						+ quoteRole(cause.role()) + "), or have the owner create the publication (CREATE PUBLICATION "
						+ publication + " FOR TABLE " + table + ") and set postlog.publication.mode=existing.",
				cause);
	}

	private static String quoteRole(String role) {
		return "\"" + PgIdentifiers.printable(role).replace("\"", "\"\"") + "\"";
	}

}
