package io.postlog.decoder;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.CatalogColumn;
import io.postlog.admin.CatalogTable;
import io.postlog.pgoutput.PgOutputMessage;
import io.postlog.pgoutput.PgOutputMessage.Column;
import io.postlog.pgoutput.TupleData;
import io.postlog.pgoutput.TupleValue;
import io.postlog.types.PgType;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the wal2json and pglogical stream decoders make of the captured payloads, given
 * the catalog the capture's database had: whole pgoutput messages.
 */
class PluginTranslatorTests {

	private static final TableId ITEMS = TableId.parse("items");

	private static final TableId FULL_ITEMS = TableId.parse("full_items");

	private static final TableId GENERATED_ITEMS = TableId.parse("generated_items");

	private static final int ITEMS_OID = 70001;

	@Test
	void wal2jsonTransactionBecomesBeginTypeRelationInsertCommit() {
		Wal2JsonMessage.Change insert = (Wal2JsonMessage.Change) wal2json("insert").parse();
		int moodOid = typeOid(insert, "mood");
		int amountOid = typeOid(insert, "amount");
		StreamDecoder stream = wal2jsonStream(false);
		Wal2JsonMessage.Begin begin = (Wal2JsonMessage.Begin) wal2json("begin").parse();
		assertThat(decode(stream, wal2json("begin")))
			.containsExactly(new PgOutputMessage.Begin(begin.lsn(), begin.timestamp(), begin.xid()));
		assertThat(decode(stream, wal2json("insert"))).containsExactly(
				new PgOutputMessage.Type(null, amountOid, "", "int4"),
				new PgOutputMessage.Relation(null, ITEMS_OID, "public", "items", 'd',
						List.of(new Column(1, "id", PgType.INT8, -1), new Column(0, "name", PgType.TEXT, -1),
								new Column(0, "qty", PgType.INT4, -1), new Column(0, "mood", moodOid, -1),
								new Column(0, "note", PgType.TEXT, -1), new Column(0, "price", PgType.NUMERIC, -1),
								new Column(0, "ratio", PgType.FLOAT8, -1), new Column(0, "flag", PgType.BOOL, -1),
								new Column(0, "data", PgType.BYTEA, -1), new Column(0, "amount", amountOid, -1))),
				new PgOutputMessage.Insert(null, ITEMS_OID,
						tuple("1", "apple", "3", "happy", null, "12.50", "0.5", "t", "\\x00ff", "7")));
		Wal2JsonMessage.Commit commit = (Wal2JsonMessage.Commit) wal2json("commit").parse();
		assertThat(decode(stream, wal2json("commit")))
			.containsExactly(new PgOutputMessage.Commit(0, commit.lsn(), commit.nextLsn(), commit.timestamp()));
	}

	@Test
	void wal2jsonUpdatesAndDeletesCarryTheOldImagePgoutputWould() {
		StreamDecoder stream = wal2jsonStream(false);
		List<PgOutputMessage> toast = inTransaction(stream, "update-toast-unchanged");
		PgOutputMessage.Update unchanged = (PgOutputMessage.Update) toast.get(toast.size() - 1);
		assertThat(unchanged.keyTuple()).isNull();
		assertThat(unchanged.oldTuple()).isNull();
		assertThat(unchanged.newTuple().get(4)).isEqualTo(TupleValue.UNCHANGED_TOAST);
		PgOutputMessage.Update key = (PgOutputMessage.Update) last(inTransaction(stream, "update-key"));
		assertThat(key.keyTuple()).isEqualTo(tuple("1", null, null, null, null, null, null, null, null, null));
		PgOutputMessage.Delete delete = (PgOutputMessage.Delete) last(inTransaction(stream, "delete-key"));
		assertThat(delete.keyTuple()).isEqualTo(tuple("2", null, null, null, null, null, null, null, null, null));
		assertThat(delete.oldTuple()).isNull();
		List<PgOutputMessage> full = inTransaction(stream, "update-full");
		assertThat(((PgOutputMessage.Relation) full.get(0)).replicaIdentity()).isEqualTo('f');
		assertThat(((PgOutputMessage.Relation) full.get(0)).columns()).allMatch(Column::isKey);
		PgOutputMessage.Update fullUpdate = (PgOutputMessage.Update) last(full);
		assertThat(fullUpdate.oldTuple()).isEqualTo(tuple("1", "a"));
		assertThat(fullUpdate.keyTuple()).isNull();
		PgOutputMessage.Delete fullDelete = (PgOutputMessage.Delete) last(inTransaction(stream, "delete-full"));
		assertThat(fullDelete.oldTuple()).isEqualTo(tuple("1", "b"));
	}

	@Test
	void wal2jsonLeavesOutGeneratedColumnsAndSendsARelationBeforeATruncate() {
		StreamDecoder stream = wal2jsonStream(false);
		List<PgOutputMessage> generated = inTransaction(stream, "insert-generated");
		assertThat(((PgOutputMessage.Relation) generated.get(0)).columns())
			.containsExactly(new Column(1, "id", PgType.INT4, -1));
		assertThat(last(generated)).isEqualTo(new PgOutputMessage.Insert(null, 70003, tuple("1")));
		assertThat(inTransaction(stream, "truncate")).last()
			.isEqualTo(new PgOutputMessage.Truncate(null, 0, List.of(70003)));
	}

	@Test
	void wal2jsonChangeWhoseColumnsDifferFromTheLastRelationGetsANewOne() {
		StreamDecoder stream = wal2jsonStream(false);
		inTransaction(stream, "insert");
		String widened = new String(wal2json("insert").bytes(), StandardCharsets.UTF_8).replace("\"columns\":[",
				"\"columns\":[{\"name\":\"added\",\"type\":\"integer\",\"typeoid\":23,\"value\":5},");
		decode(stream, wal2json("begin"));
		List<PgOutputMessage> messages = stream.decode(ByteBuffer.wrap(widened.getBytes(StandardCharsets.UTF_8)));
		PgOutputMessage.Relation relation = (PgOutputMessage.Relation) messages.get(0);
		assertThat(relation.columns().get(0)).isEqualTo(new Column(0, "added", PgType.INT4, -1));
		assertThat(relation.columns().get(1)).isEqualTo(new Column(1, "id", PgType.INT8, -1));
		assertThat(((PgOutputMessage.Insert) last(messages)).newTuple().size()).isEqualTo(11);
	}

	@Test
	void wal2jsonNamesOriginsAndPassesMessagesOnlyWhenAskedFor() {
		StreamDecoder stream = wal2jsonStream(true);
		assertThat(decode(stream, wal2json("begin-origin"))).last()
			.isEqualTo(new PgOutputMessage.Origin(Lsn.INVALID, "upstream"));
		Wal2JsonMessage.Message message = (Wal2JsonMessage.Message) wal2json("message-nontransactional").parse();
		assertThat(decode(stream, wal2json("message-nontransactional"))).containsExactly(new PgOutputMessage.Message(
				null, false, message.lsn(), "postlog", "on its own".getBytes(StandardCharsets.UTF_8)));
		assertThat(decode(wal2jsonStream(false), wal2json("message-nontransactional"))).isEmpty();
	}

	@Test
	void wal2jsonCommitWithoutItsLsnOrAChangeOutsideATransactionIsAnError() {
		StreamDecoder stream = wal2jsonStream(false);
		assertThatExceptionOfType(PluginDecodingException.class).isThrownBy(() -> decode(stream, wal2json("insert")))
			.withMessage("Cannot decode wal2json change: outside a transaction");
		decode(stream, wal2json("begin"));
		String withoutLsn = new String(wal2json("commit").bytes(), StandardCharsets.UTF_8)
			.replaceAll(",\"lsn\":\"[^\"]*\"", "");
		assertThatExceptionOfType(PluginDecodingException.class)
			.isThrownBy(() -> stream.decode(ByteBuffer.wrap(withoutLsn.getBytes(StandardCharsets.UTF_8))))
			.withMessage("Cannot decode wal2json commit: a commit without its LSN (the stream must have include-lsn)");
	}

	@Test
	void pglogicalStreamBecomesPgoutputsMessagesWithTypesFromTheCatalog() {
		PgLogicalMessage.Relation relation = (PgLogicalMessage.Relation) pglogical("relation").parse();
		StreamDecoder stream = pglogicalStream(relation);
		assertThat(decode(stream, pglogical("startup"))).isEmpty();
		PgLogicalMessage.Begin begin = (PgLogicalMessage.Begin) pglogical("begin").parse();
		assertThat(decode(stream, pglogical("begin")))
			.containsExactly(new PgOutputMessage.Begin(begin.finalLsn(), begin.commitTime(), begin.xid()));
		PgOutputMessage.Relation translated = (PgOutputMessage.Relation) decode(stream, pglogical("relation")).get(0);
		assertThat(translated.relationId()).isEqualTo(relation.relationId());
		assertThat(translated.replicaIdentity()).isEqualTo('d');
		assertThat(translated.columns()).extracting(Column::typeOid)
			.containsExactly(PgType.INT8, PgType.TEXT, PgType.INT4, 70010, PgType.TEXT, PgType.NUMERIC, PgType.FLOAT8,
					PgType.BOOL, PgType.BYTEA, 70011);
		assertThat(translated.columns().get(0).isKey()).isTrue();
		assertThat(decode(stream, pglogical("insert"))).containsExactly(new PgOutputMessage.Insert(null,
				relation.relationId(), tuple("1", "apple", "3", "happy", null, "12.50", "0.5", "t", "\\x00ff", "7")));
		PgLogicalMessage.Commit commit = (PgLogicalMessage.Commit) pglogical("commit").parse();
		assertThat(decode(stream, pglogical("commit")))
			.containsExactly(new PgOutputMessage.Commit(0, commit.commitLsn(), commit.endLsn(), commit.commitTime()));
	}

	@Test
	void pglogicalRefusesAStreamWithoutOrWithAnotherStartup() {
		PgLogicalMessage.Relation relation = (PgLogicalMessage.Relation) pglogical("relation").parse();
		assertThatExceptionOfType(PluginDecodingException.class)
			.isThrownBy(() -> decode(pglogicalStream(relation), pglogical("begin")))
			.withMessage("Cannot decode pglogical_output stream: the first message was not the startup message");
		byte[] binary = new String(pglogical("startup").bytes(), StandardCharsets.ISO_8859_1)
			.replace("binary.binary_basetypes\0f", "binary.binary_basetypes\0t")
			.getBytes(StandardCharsets.ISO_8859_1);
		assertThatExceptionOfType(DecoderRefusedException.class)
			.isThrownBy(() -> pglogicalStream(relation).decode(ByteBuffer.wrap(binary)))
			.withMessageContaining("binary.binary_basetypes = t where this decoder needs f");
	}

	private static StreamDecoder wal2jsonStream(boolean messages) {
		Wal2JsonMessage.Change insert = (Wal2JsonMessage.Change) wal2json("insert").parse();
		List<CatalogColumn> columns = new ArrayList<>();
		for (Wal2JsonMessage.Column column : insert.columns()) {
			boolean varlena = List.of(PgType.TEXT, PgType.NUMERIC, PgType.BYTEA).contains(column.typeOid());
			columns.add(
					new CatalogColumn(column.name(), column.typeOid(), -1, "id".equals(column.name()), varlena, false));
		}
		FakeCatalog catalog = new FakeCatalog(
				List.of(new CatalogTable(ITEMS, ITEMS_OID, 'd', columns),
						new CatalogTable(FULL_ITEMS, 70002, 'f',
								List.of(new CatalogColumn("id", PgType.INT4, -1, true, false, false),
										new CatalogColumn("name", PgType.TEXT, -1, true, true, false))),
						new CatalogTable(GENERATED_ITEMS, 70003, 'd',
								List.of(new CatalogColumn("id", PgType.INT4, -1, true, false, false),
										new CatalogColumn("doubled", PgType.INT4, -1, false, false, true)))),
				Map.of(1, "upstream"), Map.of());
		return Wal2JsonDecoder.forTables(List.of(ITEMS, FULL_ITEMS, GENERATED_ITEMS))
			.newStream(150000, new DecoderRequest(false, messages, false), catalog);
	}

	private static StreamDecoder pglogicalStream(PgLogicalMessage.Relation relation) {
		int[] types = { PgType.INT8, PgType.TEXT, PgType.INT4, 70010, PgType.TEXT, PgType.NUMERIC, PgType.FLOAT8,
				PgType.BOOL, PgType.BYTEA, 70011 };
		List<CatalogColumn> columns = new ArrayList<>();
		for (int i = 0; i < relation.columns().size(); i++) {
			columns.add(new CatalogColumn(relation.columns().get(i).name(), types[i], -1, i == 0, false, false));
		}
		return PgLogicalDecoder.forReplicationSets(List.of("fixtures"))
			.newStream(150000, DecoderRequest.text(),
					FakeCatalog.of(new CatalogTable(ITEMS, relation.relationId(), 'd', columns)));
	}

	/** Decodes the fixture's change inside the captured begin and commit. */
	private static List<PgOutputMessage> inTransaction(StreamDecoder stream, String change) {
		decode(stream, wal2json("begin"));
		String document = new String(wal2json(change).bytes(), StandardCharsets.UTF_8);
		long xid = ((Wal2JsonMessage.Begin) wal2json("begin").parse()).xid();
		document = document.replaceFirst("\"xid\":[0-9]+", "\"xid\":" + xid);
		List<PgOutputMessage> messages = stream.decode(ByteBuffer.wrap(document.getBytes(StandardCharsets.UTF_8)));
		decode(stream, wal2json("commit"));
		return messages;
	}

	private static List<PgOutputMessage> decode(StreamDecoder stream, PluginFixtures.Fixture fixture) {
		return stream.decode(ByteBuffer.wrap(fixture.bytes()));
	}

	private static PgOutputMessage last(List<PgOutputMessage> messages) {
		return messages.get(messages.size() - 1);
	}

	private static int typeOid(Wal2JsonMessage.Change change, String column) {
		return change.columns().stream().filter((c) -> c.name().equals(column)).findFirst().orElseThrow().typeOid();
	}

	private static PluginFixtures.Fixture wal2json(String name) {
		return PluginFixtures.load("wal2json", "pg15/" + name + ".json");
	}

	private static PluginFixtures.Fixture pglogical(String name) {
		return PluginFixtures.load("pglogical", "pg15/" + name + ".bin");
	}

	private static TupleData tuple(String... texts) {
		List<TupleValue> values = new ArrayList<>();
		for (String text : texts) {
			values.add((text != null) ? new TupleValue.Text(text.getBytes(StandardCharsets.UTF_8)) : TupleValue.NULL);
		}
		return new TupleData(values);
	}

}
