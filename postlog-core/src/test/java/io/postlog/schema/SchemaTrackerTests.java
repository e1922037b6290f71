package io.postlog.schema;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.SchemaChange;
import io.postlog.SchemaChange.Kind;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.types.PgType;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

class SchemaTrackerTests {

	private static final Lsn FIRST = Lsn.parse("0/100");

	private static final Lsn SECOND = Lsn.parse("0/200");

	private static final Lsn THIRD = Lsn.parse("0/300");

	private static final Lsn FOURTH = Lsn.parse("0/400");

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
		AtomicBoolean replaced = new AtomicBoolean();
		SchemaTracker tracker = aColumnReplacedInTheCatalog(replaced);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		replaced.set(true);
		assertThat(kinds(tracker.relation(relation("t", key("id"), text("b")), SECOND)))
			.containsExactly(Kind.DROP_COLUMN, Kind.ADD_COLUMN);
	}

	@Test
	void aRelationSentAgainWhileTheCatalogIsAheadKeepsTheKnownAttributeNumbers() {
		// Seen in a run of .ci/run on 18: pgoutput sends a Relation again after any
		// invalidation of the table; decoded after "DROP COLUMN a, ADD COLUMN b"
		// committed, the catalog no longer had "a", and taking its number as unknown made
		// the DDL's own Relation read as a rename.
		AtomicBoolean replaced = new AtomicBoolean();
		SchemaTracker tracker = aColumnReplacedInTheCatalog(replaced);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		replaced.set(true);
		assertThat(tracker.relation(relation("t", key("id"), text("a")), SECOND)).isEmpty();
		assertThat(kinds(tracker.relation(relation("t", key("id"), text("b")), THIRD)))
			.containsExactly(Kind.DROP_COLUMN, Kind.ADD_COLUMN);
	}

	/**
	 * A tracker whose catalog has {@code t(id int, a text)}, then, once {@code replaced},
	 * {@code t(id int, b text)} with {@code b} a new attribute.
	 */
	private static SchemaTracker aColumnReplacedInTheCatalog(AtomicBoolean replaced) {
		Map<String, SchemaCatalog.CatalogRelation.Attribute> before = Map.of("id", attribute(1, PgType.INT4), "a",
				attribute(2, PgType.TEXT));
		Map<String, SchemaCatalog.CatalogRelation.Attribute> after = Map.of("id", attribute(1, PgType.INT4), "b",
				attribute(3, PgType.TEXT));
		return new SchemaTracker((relation) -> new SchemaCatalog.CatalogRelation(replaced.get() ? after : before,
				List.of("integer", "text")));
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

	@Test
	void aTransactionSentAgainAfterARewindToItsPositionYieldsTheSameSchemaChangesAgain() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		List<SchemaChange> first = tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND);
		assertThat(kinds(first)).containsExactly(Kind.ADD_COLUMN);
		tracker.rewind(SECOND);
		List<SchemaChange> again = tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND);
		assertThat(again).isEqualTo(first);
		assertThat(again.get(0).commitLsn()).isEqualTo(SECOND);
		assertThat(tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND)).isEmpty();
	}

	@Test
	void aRewindToAfterAChangeKeepsIt() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND);
		tracker.rewind(THIRD);
		assertThat(tracker.relation(relation("t", key("id"), text("a"), text("b")), FOURTH)).isEmpty();
		assertThat(kinds(tracker.relation(relation("t", key("id"), text("b")), FOURTH)))
			.containsExactly(Kind.DROP_COLUMN);
	}

	@Test
	void aRewindBeforeSeveralChangesYieldsEachAgainInOrder() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		List<SchemaChange> added = tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND);
		List<SchemaChange> dropped = tracker.relation(relation("t", key("id"), text("b")), THIRD);
		tracker.rewind(SECOND);
		assertThat(tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND)).isEqualTo(added);
		assertThat(tracker.relation(relation("t", key("id"), text("b")), THIRD)).isEqualTo(dropped);
	}

	@Test
	void aTableFirstSeenAtOrAfterTheRewindIsUnknownAgain() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), SECOND);
		tracker.rewind(SECOND);
		assertThat(tracker.kept()).isZero();
		assertThat(tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND)).isEmpty();
	}

	@Test
	void aRelationThatChangesNothingKeepsThePositionTheShapeWasLearntAt() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		// Sent again by pgoutput after an ANALYZE, or as the first of a session.
		tracker.relation(relation("t", key("id"), text("a")), SECOND);
		List<SchemaChange> first = tracker.relation(relation("t", key("id"), text("a"), text("b")), THIRD);
		tracker.rewind(SECOND);
		assertThat(tracker.relation(relation("t", key("id"), text("a"), text("b")), THIRD)).isEqualTo(first).hasSize(1);
	}

	@Test
	void shapesLearntBeforeTheAcknowledgedPositionArePrunedToTheNewest() {
		AtomicReference<Lsn> acknowledged = new AtomicReference<>(Lsn.INVALID);
		SchemaTracker tracker = new SchemaTracker(null).prunedBy(acknowledged::get);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		tracker.relation(relation("t", key("id"), text("a"), text("b")), SECOND);
		tracker.relation(relation("t", key("id"), text("b")), THIRD);
		assertThat(tracker.kept()).isEqualTo(3);
		acknowledged.set(Lsn.parse("0/350"));
		List<SchemaChange> last = tracker.relation(relation("t", key("id"), text("b"), text("c")), FOURTH);
		assertThat(tracker.kept()).isEqualTo(2);
		tracker.rewind(acknowledged.get());
		assertThat(tracker.kept()).isEqualTo(1);
		assertThat(tracker.relation(relation("t", key("id"), text("b"), text("c")), FOURTH)).isEqualTo(last);
		tracker.rewind(Lsn.parse("0/500"));
		assertThat(tracker.kept()).isEqualTo(1);
	}

	@Test
	void ddlMessagesSentAgainAfterARewindYieldTheSameChangesAgainDropTableIncluded() {
		SchemaTracker tracker = new SchemaTracker(null).withDdlEvents();
		List<SchemaChange> created = tracker.ddl(ddl("CREATE TABLE", "id"), FIRST);
		List<SchemaChange> added = tracker.ddl(ddl("ALTER TABLE", "id", "a"), SECOND);
		List<SchemaChange> dropped = tracker.ddl(ddl("DROP TABLE"), THIRD);
		assertThat(kinds(created)).containsExactly(Kind.CREATE_TABLE);
		assertThat(kinds(added)).containsExactly(Kind.ADD_COLUMN);
		assertThat(kinds(dropped)).containsExactly(Kind.DROP_TABLE);
		tracker.rewind(FIRST);
		assertThat(tracker.ddl(ddl("CREATE TABLE", "id"), FIRST)).isEqualTo(created);
		assertThat(tracker.ddl(ddl("ALTER TABLE", "id", "a"), SECOND)).isEqualTo(added);
		tracker.rewind(THIRD);
		assertThat(tracker.ddl(ddl("DROP TABLE"), THIRD)).isEqualTo(dropped);
		tracker.rewind(FOURTH);
		assertThat(tracker.kept()).isZero();
	}

	/** A message of postlog's event triggers for table public.t, columns of type text. */
	@Test
	void aBackfillReadInAShapeTheStreamDidNotShowYetAnnouncesItOnce() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		// The backfill read the catalog after the shape's transaction: its shape is
		// newer.
		assertThat(kinds(tracker.backfillRead(relation("t", key("id"), text("a"), text("b")), SECOND, THIRD)))
			.containsExactly(Kind.ADD_COLUMN);
		assertThat(tracker.backfillRead(relation("t", key("id"), text("a"), text("b")), SECOND, FOURTH)).isEmpty();
		assertThat(tracker.relation(relation("t", key("id"), text("a"), text("b")), FOURTH)).isEmpty();
	}

	@Test
	void aBackfillReadBeforeTheStreamShowedItsShapeLeavesTheStreamsShape() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		tracker.relation(relation("t", key("id"), text("a"), text("b")), THIRD);
		// Planned before the transaction at THIRD: the stream is ahead of the backfill.
		assertThat(tracker.backfillRead(relation("t", key("id"), text("a")), SECOND, FOURTH)).isEmpty();
		assertThat(tracker.relation(relation("t", key("id"), text("a"), text("b")), FOURTH)).isEmpty();
	}

	@Test
	void withDdlEventsABackfillReadAnnouncesNothing() {
		SchemaTracker tracker = new SchemaTracker(null).withDdlEvents();
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		assertThat(tracker.backfillRead(relation("t", key("id"), text("a"), text("b")), SECOND, THIRD)).isEmpty();
	}

	@Test
	void withDdlEventsARelationReadWhileTheCatalogIsAheadDoesNotHideTheNextDdl() {
		// The reader lags the server: a Relation message sent again (after an ANALYZE)
		// before SET NOT NULL is read after it committed, so the catalog already says NOT
		// NULL. That must not become the known shape, or the DDL's message finds no
		// change.
		Map<String, SchemaCatalog.CatalogRelation.Attribute> ahead = Map.of("id",
				new SchemaCatalog.CatalogRelation.Attribute(1, PgType.INT4, -1, true), "a",
				new SchemaCatalog.CatalogRelation.Attribute(2, PgType.TEXT, -1, true));
		SchemaTracker tracker = new SchemaTracker(
				(relation) -> new SchemaCatalog.CatalogRelation(ahead, List.of("integer", "text")))
			.withDdlEvents();
		assertThat(tracker.ddl(idAndA("CREATE TABLE", false), FIRST)).hasSize(1);
		assertThat(tracker.relation(relation("t", key("id"), text("a")), SECOND)).isEmpty();
		List<SchemaChange> setNotNull = tracker.ddl(idAndA("ALTER TABLE", true), THIRD);
		assertThat(kinds(setNotNull)).containsExactly(Kind.ALTER_NULLABILITY);
		assertThat(setNotNull.get(0).before().columns().get(1).nullable()).isTrue();
		assertThat(setNotNull.get(0).after().columns().get(1).nullable()).isFalse();
	}

	@Test
	void aDdlMessageOfATableNotSeenYetIsComparedWithTheShapeTheTriggersKeptBeforeIt() {
		// A new process whose first message of the table is this DDL, streamed again
		// after a restart: the shape before comes from the message.
		SchemaTracker tracker = new SchemaTracker(null).withDdlEvents();
		List<SchemaChange> added = tracker.ddl(shapes("ALTER TABLE", List.of("id"), List.of("id", "a")), SECOND);
		assertThat(kinds(added)).containsExactly(Kind.ADD_COLUMN);
		assertThat(added.get(0).before().columns()).extracting("name").containsExactly("id");
		assertThat(added.get(0).after().columns()).extracting("name").containsExactly("id", "a");
		assertThat(added.get(0).commitLsn()).isEqualTo(SECOND);
		// Known now: the next message is compared with what the tracker learnt.
		assertThat(kinds(tracker.ddl(shapes("ALTER TABLE", List.of("id", "a"), List.of("id")), THIRD)))
			.containsExactly(Kind.DROP_COLUMN);
		List<SchemaChange> dropped = new SchemaTracker(null).withDdlEvents()
			.ddl(shapes("DROP TABLE", List.of("id", "a"), null), THIRD);
		assertThat(kinds(dropped)).containsExactly(Kind.DROP_TABLE);
		assertThat(dropped.get(0).before().columns()).extracting("name").containsExactly("id", "a");
	}

	@Test
	void aDdlMessageWithoutAShapeBeforeStartsTrackingAndOneThatCreatesIgnoresIt() {
		SchemaTracker tracker = new SchemaTracker(null).withDdlEvents();
		assertThat(tracker.ddl(shapes("ALTER TABLE", null, List.of("id", "a")), FIRST)).isEmpty();
		assertThat(kinds(tracker.ddl(shapes("ALTER TABLE", List.of("id", "a"), List.of("id", "a", "b")), SECOND)))
			.containsExactly(Kind.ADD_COLUMN);
		// A kept shape of a former table with the same OID is not a shape before.
		List<SchemaChange> created = new SchemaTracker(null).withDdlEvents()
			.ddl(shapes("CREATE TABLE", List.of("x"), List.of("id")), FIRST);
		assertThat(kinds(created)).containsExactly(Kind.CREATE_TABLE);
		assertThat(created.get(0).before()).isNull();
		assertThat(new SchemaTracker(null).withDdlEvents().ddl(shapes("DROP TABLE", null, null), FIRST)).isEmpty();
	}

	@Test
	void aMalformedDdlMessageIsATypedError() {
		SchemaTracker tracker = new SchemaTracker(null).withDdlEvents();
		byte[] truncated = Arrays.copyOf(ddl("ALTER TABLE", "id"), 20);
		assertThatExceptionOfType(PostlogException.class).isThrownBy(() -> tracker.ddl(truncated, FIRST))
			.withMessageContaining("postlog.ddl");
		StringBuilder badShape = new StringBuilder();
		for (String text : List.of("2", "ALTER TABLE", "16384", "", "1:x")) {
			field(badShape, text);
		}
		assertThatExceptionOfType(PostlogException.class)
			.isThrownBy(() -> tracker.ddl(badShape.toString().getBytes(StandardCharsets.UTF_8), FIRST))
			.withMessageContaining("fields");
	}

	/**
	 * A message of the current layout for table public.t, text columns, the first the
	 * key: the shapes before and after, {@code null} for none.
	 */
	private static byte[] shapes(String tag, @Nullable List<String> before, @Nullable List<String> after) {
		StringBuilder content = new StringBuilder();
		field(content, "2");
		field(content, tag);
		field(content, "16384");
		field(content, shape(before));
		field(content, shape(after));
		return content.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static String shape(@Nullable List<String> columns) {
		if (columns == null) {
			return "";
		}
		StringBuilder shape = new StringBuilder();
		field(shape, "public");
		field(shape, "t");
		for (int i = 0; i < columns.size(); i++) {
			// Attribute numbers by name, so that a column keeps its own.
			field(shape, Integer.toString(columns.get(i).charAt(0)));
			field(shape, columns.get(i));
			field(shape, Integer.toString(PgType.TEXT));
			field(shape, "-1");
			field(shape, "text");
			field(shape, "false");
			field(shape, Boolean.toString(i == 0));
		}
		return shape.toString();
	}

	/** A DDL message of table t (id integer key, a text), a NOT NULL or not. */
	private static byte[] idAndA(String tag, boolean aNotNull) {
		StringBuilder content = new StringBuilder();
		for (String text : List.of(tag, "16384", "public", "t", "1", "id", Integer.toString(PgType.INT4), "-1",
				"integer", "true", "true", "2", "a", Integer.toString(PgType.TEXT), "-1", "text",
				Boolean.toString(aNotNull), "false")) {
			field(content, text);
		}
		return content.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static byte[] ddl(String tag, String... columns) {
		StringBuilder content = new StringBuilder();
		field(content, tag);
		field(content, "16384");
		field(content, "public");
		field(content, "t");
		for (int i = 0; i < columns.length; i++) {
			field(content, Integer.toString(i + 1));
			field(content, columns[i]);
			field(content, Integer.toString(PgType.TEXT));
			field(content, "-1");
			field(content, "text");
			field(content, "false");
			field(content, Boolean.toString(i == 0));
		}
		return content.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static void field(StringBuilder content, String text) {
		content.append(text.getBytes(StandardCharsets.UTF_8).length).append(':').append(text);
	}

	@Test
	void shapesAtAPositionAreTheNewestLearntAtOrBeforeItAndDroppedTablesAreLeftOut() {
		SchemaTracker tracker = new SchemaTracker(null).withDdlEvents();
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		assertThat(tracker.shapesAt(Lsn.parse("0/50"))).isEmpty();
		Map<Integer, String> atFirst = tracker.shapesAt(FIRST);
		assertThat(atFirst).containsOnlyKeys(16384);
		tracker.relation(relation("t", key("id"), text("a"), text("b")), THIRD);
		assertThat(tracker.shapesAt(SECOND)).isEqualTo(atFirst);
		assertThat(tracker.shapesAt(THIRD).get(16384)).isNotEqualTo(atFirst.get(16384)).contains("1:b");
		tracker.ddl(ddl("DROP TABLE"), FOURTH);
		assertThat(tracker.shapesAt(THIRD)).containsOnlyKeys(16384);
		assertThat(tracker.shapesAt(FOURTH)).isEmpty();
	}

	@Test
	void aTrackerStartedFromKeptShapesComparesTheFirstRelationWithThem() {
		SchemaTracker former = aColumnReplacedInTheCatalog(new AtomicBoolean());
		former.relation(relation("t", key("id"), text("a")), FIRST);
		Map<Integer, String> kept = former.shapesAt(FIRST);

		SchemaTracker restarted = aColumnReplacedInTheCatalog(new AtomicBoolean(true));
		restarted.startFrom(kept);
		restarted.rewind(Lsn.INVALID);
		List<SchemaChange> changes = restarted.relation(relation("t", key("id"), text("b")), SECOND);
		assertThat(kinds(changes)).as("attribute numbers kept with the shape")
			.containsExactly(Kind.DROP_COLUMN, Kind.ADD_COLUMN);
		assertThat(changes.get(0).before().columns()).extracting("name", "typeName", "nullable", "key")
			.containsExactly(tuple("id", "integer", true, true), tuple("a", "text", true, false));
		assertThat(restarted.shapesAt(FIRST)).isEqualTo(kept);
		assertThat(restarted.shapesAt(SECOND).get(16384)).contains("1:b").doesNotContain("1:a");
	}

	@Test
	void aKeptShapeThatCannotBeReadIsLeftOut() {
		SchemaTracker tracker = new SchemaTracker(null);
		tracker.startFrom(Map.of(16384, "not a shape", 16385, "1:2"));
		assertThat(tracker.kept()).isZero();
		assertThat(tracker.relation(relation("t", key("id"), text("a")), FIRST)).isEmpty();
	}

	@Test
	void aRelationMessageTheCatalogCannotNameTheTypesOfKeepsTheKnownNamesAndChangesNothing() {
		// Read after the table was dropped (in CI with DDL events: a Relation message of
		// the renamed table read after its DROP TABLE committed), the catalog names no
		// type: the OIDs in decimal must not read as type changes.
		Map<String, SchemaCatalog.CatalogRelation.Attribute> live = Map.of("id", attribute(1, PgType.INT4), "a",
				attribute(2, PgType.TEXT));
		SchemaCatalog.CatalogRelation[] now = { new SchemaCatalog.CatalogRelation(live, List.of("integer", "text")) };
		SchemaTracker tracker = new SchemaTracker((relation) -> now[0]);
		tracker.relation(relation("t", key("id"), text("a")), FIRST);
		now[0] = null;
		assertThat(tracker.relation(relation("t", key("id"), text("a")), SECOND)).isEmpty();
		// A column the known shape does not have is named by its OID, as before.
		List<SchemaChange> added = tracker.relation(relation("t", key("id"), text("a"), text("b")), THIRD);
		assertThat(kinds(added)).containsExactly(Kind.ADD_COLUMN);
		assertThat(added.get(0).after().columns()).extracting("typeName")
			.containsExactly("integer", "text", Integer.toString(PgType.TEXT));
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
