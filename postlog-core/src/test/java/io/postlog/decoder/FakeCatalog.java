package io.postlog.decoder;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.postlog.TableId;
import io.postlog.admin.CatalogTable;

/**
 * A catalog of fixed answers, for decoder tests without a server.
 */
final class FakeCatalog implements DecoderCatalog {

	private final List<CatalogTable> tables;

	private final Map<Integer, String> origins;

	private final Map<String, List<TableId>> sets;

	FakeCatalog(List<CatalogTable> tables, Map<Integer, String> origins, Map<String, List<TableId>> sets) {
		this.tables = List.copyOf(tables);
		this.origins = Map.copyOf(origins);
		this.sets = Map.copyOf(sets);
	}

	static FakeCatalog of(CatalogTable... tables) {
		return new FakeCatalog(List.of(tables), Map.of(), Map.of());
	}

	@Override
	public List<CatalogTable> tables(Collection<TableId> wanted) {
		return this.tables.stream().filter((table) -> wanted.contains(table.table())).toList();
	}

	@Override
	public Optional<CatalogTable> table(int relationOid) {
		return this.tables.stream().filter((table) -> table.relationOid() == relationOid).findFirst();
	}

	@Override
	public Optional<String> originName(int originId) {
		return Optional.ofNullable(this.origins.get(originId));
	}

	@Override
	public List<TableId> replicationSetTables(Collection<String> replicationSets) {
		List<TableId> tables = new ArrayList<>();
		for (String set : replicationSets) {
			List<TableId> members = this.sets.get(set);
			if (members == null) {
				throw new io.postlog.PostlogException("no set " + set);
			}
			tables.addAll(members);
		}
		return tables;
	}

}
