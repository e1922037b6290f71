package io.postlog.schema;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.postlog.Lsn;
import io.postlog.SchemaChange;
import io.postlog.SchemaChange.Kind;
import io.postlog.TableId;
import io.postlog.TableSchema;
import io.postlog.TableSchema.Column;

/**
 * The steps from one shape of a table to the next. Columns are paired first by attribute
 * number (exact: a rename or type change keeps it, a drop retires it), then by name where
 * a number is unknown, then, among those left, in table order by type OID: a column gone
 * and one come of the same type read as a rename, which ties with a drop plus an add when
 * no attribute number tells them apart. The steps come in a fixed order (table rename,
 * drops, per column rename, type and nullability, adds, key), each one's shape the
 * previous one's plus that step, the last one's the new shape. Stateless.
 */
final class SchemaDiff {

	private SchemaDiff() {
	}

	static List<SchemaChange> steps(TrackedShape old, TrackedShape next, Lsn commitLsn) {
		List<Column> before = old.columns();
		List<Column> after = next.columns();
		int[] pairOfOld = pair(old, next);
		int[] pairOfNew = new int[after.size()];
		Arrays.fill(pairOfNew, -1);
		for (int i = 0; i < pairOfOld.length; i++) {
			if (pairOfOld[i] >= 0) {
				pairOfNew[pairOfOld[i]] = i;
			}
		}
		List<Column> target = new ArrayList<>(after);
		for (int j = 0; j < target.size(); j++) {
			// Nullability the catalog could not tell stays what it was.
			if (!next.nullabilityKnown()[j] && pairOfNew[j] >= 0) {
				Column column = target.get(j);
				target.set(j, new Column(column.name(), column.typeOid(), column.typeName(),
						before.get(pairOfNew[j]).nullable(), column.key()));
			}
		}
		TableSchema last = old.schema();
		TableId table = next.schema().table();
		List<SchemaChange> steps = new ArrayList<>();
		List<Column> current = new ArrayList<>(before);
		List<Integer> origin = new ArrayList<>();
		for (int i = 0; i < before.size(); i++) {
			origin.add(i);
		}
		if (!old.schema().table().equals(table)) {
			last = step(steps, Kind.RENAME_TABLE, last, table, current, commitLsn);
		}
		for (int i = 0; i < before.size(); i++) {
			if (pairOfOld[i] < 0) {
				int at = origin.indexOf(i);
				current.remove(at);
				origin.remove(at);
				last = step(steps, Kind.DROP_COLUMN, last, table, current, commitLsn);
			}
		}
		for (int j = 0; j < target.size(); j++) {
			int i = pairOfNew[j];
			if (i < 0) {
				continue;
			}
			int at = origin.indexOf(i);
			Column was = current.get(at);
			Column now = target.get(j);
			if (!was.name().equals(now.name())) {
				was = new Column(now.name(), was.typeOid(), was.typeName(), was.nullable(), was.key());
				current.set(at, was);
				last = step(steps, Kind.RENAME_COLUMN, last, table, current, commitLsn);
			}
			if (was.typeOid() != now.typeOid() || old.typeModifiers()[i] != next.typeModifiers()[j]
					|| !was.typeName().equals(now.typeName())) {
				was = new Column(was.name(), now.typeOid(), now.typeName(), was.nullable(), was.key());
				current.set(at, was);
				last = step(steps, Kind.ALTER_TYPE, last, table, current, commitLsn);
			}
			if (was.nullable() != now.nullable()) {
				current.set(at, new Column(was.name(), was.typeOid(), was.typeName(), now.nullable(), was.key()));
				last = step(steps, Kind.ALTER_NULLABILITY, last, table, current, commitLsn);
			}
		}
		for (int j = 0; j < target.size(); j++) {
			if (pairOfNew[j] < 0) {
				current.add(target.get(j));
				origin.add(-1);
				last = step(steps, Kind.ADD_COLUMN, last, table, current, commitLsn);
			}
		}
		if (!current.equals(target)) {
			if (keysDiffer(current, target) || steps.isEmpty()) {
				step(steps, Kind.ALTER_KEY, last, table, target, commitLsn);
			}
			else {
				SchemaChange end = steps.remove(steps.size() - 1);
				steps.add(new SchemaChange(table, end.kind(), end.before(), new TableSchema(table, target), commitLsn));
			}
		}
		return steps;
	}

	private static TableSchema step(List<SchemaChange> steps, Kind kind, TableSchema before, TableId table,
			List<Column> columns, Lsn commitLsn) {
		TableSchema after = new TableSchema(table, columns);
		steps.add(new SchemaChange(table, kind, before, after, commitLsn));
		return after;
	}

	private static boolean keysDiffer(List<Column> current, List<Column> target) {
		if (current.size() != target.size()) {
			return true;
		}
		for (int k = 0; k < current.size(); k++) {
			if (current.get(k).key() != target.get(k).key()) {
				return true;
			}
		}
		return false;
	}

	/**
	 * For each old column, the index of the new column it became, or -1 if it is gone.
	 */
	private static int[] pair(TrackedShape old, TrackedShape next) {
		List<Column> before = old.columns();
		List<Column> after = next.columns();
		int[] pairOfOld = new int[before.size()];
		Arrays.fill(pairOfOld, -1);
		boolean[] taken = new boolean[after.size()];
		for (int i = 0; i < before.size(); i++) {
			for (int j = 0; j < after.size() && old.attnums()[i] > 0; j++) {
				if (!taken[j] && old.attnums()[i] == next.attnums()[j]) {
					pairOfOld[i] = j;
					taken[j] = true;
					break;
				}
			}
		}
		for (int i = 0; i < before.size(); i++) {
			for (int j = 0; j < after.size() && pairOfOld[i] < 0; j++) {
				if (!taken[j] && mayBeSame(old, i, next, j) && before.get(i).name().equals(after.get(j).name())) {
					pairOfOld[i] = j;
					taken[j] = true;
				}
			}
		}
		int from = 0;
		for (int i = 0; i < before.size(); i++) {
			if (pairOfOld[i] >= 0) {
				from = Math.max(from, pairOfOld[i] + 1);
				continue;
			}
			for (int j = from; j < after.size(); j++) {
				if (!taken[j] && mayBeSame(old, i, next, j) && before.get(i).typeOid() == after.get(j).typeOid()) {
					pairOfOld[i] = j;
					taken[j] = true;
					from = j + 1;
					break;
				}
			}
		}
		return pairOfOld;
	}

	/** Two columns with known, different attribute numbers are never the same column. */
	private static boolean mayBeSame(TrackedShape old, int i, TrackedShape next, int j) {
		return old.attnums()[i] == 0 || next.attnums()[j] == 0 || old.attnums()[i] == next.attnums()[j];
	}

}
