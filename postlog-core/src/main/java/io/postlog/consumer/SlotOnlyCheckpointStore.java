package io.postlog.consumer;

import io.postlog.Lsn;

/**
 * The default {@link CheckpointStore}: the slot's confirmed position is the only record
 * of progress, and nothing is transactional.
 */
final class SlotOnlyCheckpointStore implements CheckpointStore {

	static final SlotOnlyCheckpointStore INSTANCE = new SlotOnlyCheckpointStore();

	private SlotOnlyCheckpointStore() {
	}

	@Override
	public boolean transactional() {
		return false;
	}

	@Override
	public Lsn load() {
		return Lsn.INVALID;
	}

	@Override
	public void begin() {
	}

	@Override
	public void commit(Lsn commitLsn) {
	}

	@Override
	public void rollback() {
	}

	@Override
	public String toString() {
		return "slot-only";
	}

}
