package io.postlog.consumer;

import java.util.HashMap;
import java.util.Map;

import io.postlog.Lsn;
import io.postlog.consumer.checkpoint.ChunkMark;
import io.postlog.schema.SchemaTracker;
import org.jspecify.annotations.Nullable;

/**
 * A transactional store that {@link CheckpointStore#recordsShapes() records shapes}, with
 * the schema tracker's shapes written into every sink transaction that moves the
 * checkpoint: before the store commits at a commit LSN, the shapes in force after that
 * transaction ({@link SchemaTracker#shapesAt(Lsn)}) that differ from those committed last
 * are written, and tables no longer known are forgotten, so the kept shapes always agree
 * with the kept position. With no tracker (no subscription takes schema changes) no shape
 * is known, so shapes a former process kept are forgotten at the first commit: a later
 * process that tracks again never starts from shapes older than its checkpoint.
 * Everything else goes to the store as it is. Used on the delivery thread, like the
 * store, but for {@link #chunks} and {@link #forgetChunks}.
 */
final class ShapeCheckpoints implements CheckpointStore {

	private final CheckpointStore store;

	private final @Nullable SchemaTracker schemas;

	/** The shapes committed with the checkpoint, as last read or written. */
	private Map<Integer, String> committed = Map.of();

	private boolean tracking;

	private ShapeCheckpoints(CheckpointStore store, @Nullable SchemaTracker schemas) {
		this.store = store;
		this.schemas = schemas;
	}

	/**
	 * Returns the store to deliver with: the configured one wrapped when it records
	 * shapes.
	 * @param store the configured store
	 * @param schemas the tracker, or {@code null} when no subscription takes schema
	 * changes
	 * @return the store
	 */
	static CheckpointStore around(CheckpointStore store, @Nullable SchemaTracker schemas) {
		return (store.transactional() && store.recordsShapes()) ? new ShapeCheckpoints(store, schemas) : store;
	}

	/**
	 * Reads the shapes kept with the checkpoint and makes them the tracker's starting
	 * shapes, the first time it is called (before the first session streams); later calls
	 * do nothing.
	 */
	void startTracking() {
		if (this.tracking) {
			return;
		}
		this.committed = byRelation(this.store.shapes());
		if (this.schemas != null) {
			this.schemas.startFrom(this.committed);
		}
		this.tracking = true;
	}

	@Override
	public boolean transactional() {
		return this.store.transactional();
	}

	@Override
	public Lsn load() {
		Lsn checkpoint = this.store.load();
		// A sink transaction rolled back, or another process's commits: what the store
		// holds is what the next commit is compared with.
		this.committed = byRelation(this.store.shapes());
		return checkpoint;
	}

	@Override
	public void begin() {
		this.store.begin();
	}

	@Override
	public void commit(Lsn commitLsn) {
		Map<Integer, String> now = (this.schemas != null && commitLsn.isValid()) ? this.schemas.shapesAt(commitLsn)
				: (commitLsn.isValid() ? Map.of() : this.committed);
		Map<Long, @Nullable String> changed = new HashMap<>();
		now.forEach((relationId, text) -> {
			if (!text.equals(this.committed.get(relationId))) {
				changed.put(Integer.toUnsignedLong(relationId), text);
			}
		});
		this.committed.keySet().forEach((relationId) -> {
			if (!now.containsKey(relationId)) {
				changed.put(Integer.toUnsignedLong(relationId), null);
			}
		});
		if (!changed.isEmpty()) {
			this.store.recordShapes(changed);
		}
		this.store.commit(commitLsn);
		this.committed = now;
	}

	@Override
	public void rollback() {
		this.store.rollback();
	}

	@Override
	public boolean recordsChunks() {
		return this.store.recordsChunks();
	}

	@Override
	public void recordChunk(ChunkMark mark) {
		this.store.recordChunk(mark);
	}

	@Override
	public Map<Integer, ChunkMark> chunks(String backfillId) {
		return this.store.chunks(backfillId);
	}

	@Override
	public void forgetChunks(String backfillId) {
		this.store.forgetChunks(backfillId);
	}

	@Override
	public boolean recordsShapes() {
		return true;
	}

	@Override
	public void recordShapes(Map<Long, @Nullable String> shapes) {
		this.store.recordShapes(shapes);
	}

	@Override
	public Map<Long, String> shapes() {
		return this.store.shapes();
	}

	private static Map<Integer, String> byRelation(Map<Long, String> shapes) {
		Map<Integer, String> byRelation = new HashMap<>();
		shapes.forEach((relationId, text) -> byRelation.put((int) relationId.longValue(), text));
		return byRelation;
	}

	@Override
	public String toString() {
		return this.store.toString();
	}

}
