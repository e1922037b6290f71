package io.postlog.spring.boot.autoconfigure;

import io.postlog.snapshot.SnapshotRefusedException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link SnapshotRefusedException}: {@code postlog.snapshot.mode=initial} on a
 * slot that already exists and must be used as it is.
 */
class SnapshotRefusedFailureAnalyzer extends AbstractFailureAnalyzer<SnapshotRefusedException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SnapshotRefusedException cause) {
		return new FailureAnalysis("postlog cannot take the initial snapshot: " + cause.getMessage() + ". A "
				+ "snapshot is exact only when it is read under the snapshot the server exports while it creates the "
				+ "slot, and a slot created earlier has moved on from that moment.",
				"Let postlog create the slot (postlog.slot.lifecycle=create-if-missing or owned) with "
						+ "postlog.snapshot.mode=initial, or keep the existing slot and set "
						+ "postlog.snapshot.mode=never (then load the existing rows yourself before the slot's "
						+ "position, or accept that they are not delivered).",
				cause);
	}

}
