package io.postlog.schema;

import java.util.List;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.SchemaChange;
import io.postlog.SchemaChange.Kind;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.types.PgType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SchemaTrackerTests {

	private static final Lsn FIRST = Lsn.parse("0/100");

	private static final Lsn SECOND = Lsn.parse("0/200");

	@Test
	void firstRelationOfATableIsItsStartingShape() {
		SchemaTracker tracker = new SchemaTracker(null);
		assertThat(tracker.relation(relation("t", key("id"), text("a")), FIRST)).isEmpty();
		assertThat(tracker.relation(relation("t", key("id"), text("a")), SECOND)).isEmpty();
	}

	@Test
	void withoutTheCatalogTheLastColumnRenamedTiesWithADropPlusAnAddAndReadsAsARename() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		assertThat(kinds(tracker.relation(relation("t", key("id"), text("b")), SECOND)))
			.containsExactly(Kind.RENAME_COLUMN);
	}

	@Test
	void withoutTheCatalogAColumnReplacedByOneOfAnotherTypeIsADropPlusAnAdd() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		List<SchemaChange> changes = tracker.relation(relation("t", key("id"), integer("b")), SECOND);
		assertThat(kinds(changes)).containsExactly(Kind.DROP_COLUMN, Kind.ADD_COLUMN);
		assertThat(changes.get(1).before()).isEqualTo(changes.get(0).after());
		assertThat(changes.get(1).after().columns()).extracting("name").containsExactly("id", "b");
	}

	@Test
	void attributeNumbersFromTheCatalogTellADropPlusAnAddFromARename() {
		Map<String, SchemaCatalog.CatalogRelation.Attribute> before = Map.of("id", attribute(1, PgType.INT4), "a",
				attribute(2, PgType.TEXT));
		Map<String, SchemaCatalog.CatalogRelation.Attribute> after = Map.of("id", attribute(1, PgType.INT4), "b",
				attribute(3, PgType.TEXT));
		Map<String, SchemaCatalog.CatalogRelation.Attribute>[] now = new Map[] { before };
		SchemaTracker tracker = new SchemaTracker(
				(relation) -> new SchemaCatalog.CatalogRelation(now[0], List.of("integer", "text")));
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		now[0] = after;
		assertThat(kinds(tracker.relation(relation("t", key("id"), text("b")), SECOND)))
			.containsExactly(Kind.DROP_COLUMN, Kind.ADD_COLUMN);
	}

	@Test
	void aRelationOfATransactionSentAgainChangesNothing() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND);
		assertThat(tracker.relation(relation("t", key("id"), text("a")), FIRST)).isEmpty();
		assertThat(tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND)).isEmpty();
	}

	@Test
	void aTableRenameAndAKeyChangeComeInThatOrderEndingInTheNewShape() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		PgOutputMessage.Relation renamed = relation("u", key("id"), new Column(1, "a", PgType.TEXT, -1));
		List<SchemaChange> changes = tracker.relation(renamed, SECOND);
		assertThat(kinds(changes)).containsExactly(Kind.RENAME_TABLE, Kind.ALTER_KEY);
		assertThat(changes.get(1).after().columns()).extracting("key").containsExactly(true, true);
		assertThat(changes).allMatch((change) -> change.commitLsn().equals(SECOND));
	}

	private static List<Kind> kinds(List<SchemaChange> changes) {
		return changes.stream().map(SchemaChange::kind).toList();
	}

	private static SchemaCatalog.CatalogRelation.Attribute attribute(int attnum, int type) {
		return new SchemaCatalog.CatalogRelation.Attribute(attnum, type, -1, false);
	}

	private static PgOutputMessage.Relation relation(String name, Column... columns) {
		return new PgOutputMessage.Relation(null, 16384, "public", name, 'd', List.of(columns));
	}

	private static Column key(String name) {
		return new Column(1, name, PgType.INT4, -1);
	}

	private static Column text(String name) {
		return new Column(0, name, PgType.TEXT, -1);
	}

	private static Column integer(String name) {
		return new Column(0, name, PgType.INT4, -1);
	}

}
