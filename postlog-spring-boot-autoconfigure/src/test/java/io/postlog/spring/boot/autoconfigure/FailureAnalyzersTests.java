package io.postlog.spring.boot.autoconfigure;

import java.nio.file.Path;

import io.postlog.TableId;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PublicationNotFoundException;
import io.postlog.admin.SlotInfo;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.admin.SlotPluginMismatchException;
import io.postlog.admin.WalLevelException;
import io.postlog.consumer.spill.SpillDirectoryException;
import io.postlog.spring.ListenerBindingException;
import io.postlog.spring.ListenerTableNotFoundException;
import io.postlog.spring.ReplicaIdentityMissingException;
import io.postlog.spring.TableNotOwnedException;
import io.postlog.spring.TableNotPublishedException;
import org.junit.jupiter.api.Test;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each failure analyzer's text for its exception, also when the exception is wrapped as
 * Spring wraps a lifecycle failure.
 */
class FailureAnalyzersTests {

	private static final TableId ORDERS = TableId.parse("orders2");

	@Test
	void missingTableNamesTheListenerAndTheTable() {
		FailureAnalysis analysis = analyze(new ListenerTableNotFoundFailureAnalyzer(),
				new ListenerTableNotFoundException("listener 'OrderEvents.onOrder'", ORDERS));
		assertThat(analysis.getDescription())
			.isEqualTo("Listener 'OrderEvents.onOrder' reads table public.orders2, which does not exist in the "
					+ "application's database.");
		assertThat(analysis.getAction()).startsWith("Create table public.orders2 before the application starts")
			.contains("@PgChangeListener(tables = ...) of listener 'OrderEvents.onOrder'", "placeholders");
	}

	@Test
	void missingTableOfPostlogTablesPointsAtTheProperty() {
		FailureAnalysis analysis = analyze(new ListenerTableNotFoundFailureAnalyzer(),
				new ListenerTableNotFoundException("postlog.tables", ORDERS));
		assertThat(analysis.getDescription()).startsWith("Postlog.tables reads table public.orders2");
		assertThat(analysis.getAction()).contains("correct the name in postlog.tables.");
	}

	@Test
	void unpublishedTableSaysHowToAddItOrUseSync() {
		FailureAnalysis analysis = analyze(new TableNotPublishedFailureAnalyzer(),
				new TableNotPublishedException("listener 'Audit.onOrder'", ORDERS, "app_pub"));
		assertThat(analysis.getDescription()).isEqualTo("Listener 'Audit.onOrder' reads table public.orders2, but "
				+ "publication 'app_pub' does not publish it: no change of it would ever reach the listener.");
		assertThat(analysis.getAction()).startsWith("Add the table to the publication: ALTER PUBLICATION \"app_pub\" "
				+ "ADD TABLE \"public\".\"orders2\"; or set postlog.publication.mode=sync");
	}

	@Test
	void tableOfAnotherOwnerLeadsWithOwnership() {
		FailureAnalysis analysis = analyze(new TableNotOwnedFailureAnalyzer(),
				new TableNotOwnedException(ORDERS, "admin", "app", "postlog"));
		assertThat(analysis.getDescription()).startsWith("Role 'app' does not own table public.orders2 (its owner is "
				+ "'admin'), so it cannot add it to publication 'postlog'. PostgreSQL lets only a table's owner");
		assertThat(analysis.getAction()).contains("GRANT \"admin\" TO \"app\"",
				"CREATE PUBLICATION \"postlog\" FOR TABLE \"public\".\"orders2\"", "postlog.publication.mode=existing");
	}

	@Test
	void missingReplicaIdentityGivesBothFixes() {
		FailureAnalysis analysis = analyze(new ReplicaIdentityMissingFailureAnalyzer(),
				new ReplicaIdentityMissingException("listener 'Events.onOrder'", ORDERS,
						"no primary key (REPLICA IDENTITY DEFAULT)"));
		assertThat(analysis.getDescription()).startsWith("Listener 'Events.onOrder' reads table public.orders2, "
				+ "which has no usable replica identity (no primary key (REPLICA IDENTITY DEFAULT)). Once published");
		assertThat(analysis.getAction()).contains("ALTER TABLE \"public\".\"orders2\" ADD PRIMARY KEY (...)",
				"ALTER TABLE \"public\".\"orders2\" REPLICA IDENTITY FULL");
	}

	@Test
	void bindingFailureNamesListenerTableAndComponent() {
		FailureAnalysis analysis = analyze(new ListenerBindingFailureAnalyzer(), new ListenerBindingException(
				"Events.onOrder", ORDERS, "com.example.Order", "total", "matches no column (columns: id, amount)"));
		assertThat(analysis.getDescription()).isEqualTo("Listener 'Events.onOrder' cannot bind table public.orders2 "
				+ "to com.example.Order: component 'total' matches no column (columns: id, amount).");
		assertThat(analysis.getAction()).startsWith("Record listeners are bound strictly");
	}

	@Test
	void walLevelSaysHowToTurnOnLogicalDecoding() {
		FailureAnalysis analysis = analyze(new WalLevelFailureAnalyzer(), new WalLevelException(170000, "replica"));
		assertThat(analysis.getDescription()).startsWith("postlog needs logical decoding");
		assertThat(analysis.getAction()).contains("wal_level = logical");
	}

	@Test
	void insufficientPrivilegeSaysWhichGrantIsMissing() {
		FailureAnalysis analysis = analyze(new InsufficientPrivilegeFailureAnalyzer(),
				new InsufficientPrivilegeException("app", "create replication slot 'postlog'", null));
		assertThat(analysis.getDescription()).startsWith("postlog's database role may not do what replication needs")
			.contains("app");
		assertThat(analysis.getAction()).contains("ALTER ROLE <role> REPLICATION");
	}

	@Test
	void invalidIdentifierStatesTheRule() {
		FailureAnalysis analysis = analyze(new InvalidIdentifierFailureAnalyzer(),
				new InvalidIdentifierException("slot", "Bad-Name", "only [a-z0-9_] allowed"));
		assertThat(analysis.getDescription()).startsWith("A name postlog would send to PostgreSQL is not a valid");
		assertThat(analysis.getAction()).startsWith("Change postlog.slot.name, or postlog.groups.<group>.slot.name")
			.contains("lower-case letters, digits and underscores");
		FailureAnalysis publication = analyze(new InvalidIdentifierFailureAnalyzer(),
				new InvalidIdentifierException("publication", "", "the name is empty"));
		assertThat(publication.getAction())
			.startsWith("Change postlog.publication.name, or postlog.groups.<group>.publication.name")
			.contains("publication names are 1 to 63 bytes of UTF-8 without NUL")
			.doesNotContain("lower-case");
	}

	@Test
	void missingPublicationSaysHowToCreateIt() {
		FailureAnalysis analysis = analyze(new PublicationNotFoundFailureAnalyzer(),
				new PublicationNotFoundException("app_pub"));
		assertThat(analysis.getDescription()).contains("app_pub");
		assertThat(analysis.getAction()).contains("CREATE PUBLICATION", "postlog.publication.mode=create-if-missing");
	}

	@Test
	void missingSlotSaysHowToCreateIt() {
		FailureAnalysis analysis = analyze(new SlotNotFoundFailureAnalyzer(), new SlotNotFoundException("app", null));
		assertThat(analysis.getDescription()).contains("app");
		assertThat(analysis.getAction()).contains("pg_create_logical_replication_slot",
				"postlog.slot.lifecycle=create-if-missing");
	}

	@Test
	void slotOfAnotherPluginSaysHowToReplaceIt() {
		SlotInfo slot = new SlotInfo("app", "wal2json", "logical", "app", false, false, null, null, null, null, null);
		FailureAnalysis analysis = analyze(new SlotPluginMismatchFailureAnalyzer(),
				new SlotPluginMismatchException(slot, "pgoutput", "app"));
		assertThat(analysis.getDescription()).contains("another output plugin");
		assertThat(analysis.getAction()).contains("pg_drop_replication_slot");
	}

	@Test
	void unusableSpillDirectoryNamesThePathTheReasonAndTheProperty() {
		Path directory = Path.of("/srv/app/spill");
		FailureAnalysis analysis = analyze(new SpillDirectoryFailureAnalyzer(),
				new SpillDirectoryException(directory, "it exists and is not a directory", null));
		assertThat(analysis.getDescription()).isEqualTo("postlog.streaming.enabled=true spills large in-progress "
				+ "transactions to disk, but spill directory /srv/app/spill cannot be used: it exists and is not a "
				+ "directory.");
		assertThat(analysis.getAction()).startsWith("Point postlog.streaming.spill-directory at a directory")
			.contains("postlog.streaming.max-spill=0");
	}

	private static FailureAnalysis analyze(FailureAnalyzer analyzer, Exception cause) {
		FailureAnalysis direct = analyzer.analyze(cause);
		FailureAnalysis wrapped = analyzer
			.analyze(new org.springframework.context.ApplicationContextException("Failed to start bean", cause));
		assertThat(direct).isNotNull();
		assertThat(wrapped).isNotNull();
		assertThat(wrapped.getDescription()).isEqualTo(direct.getDescription());
		return direct;
	}

}
