package io.postlog.spring.boot.health;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.postlog.spring.PostlogConsumerGroup.ListenerInfo;
import io.postlog.spring.PostlogConsumerGroup.Unacknowledged;

/**
 * What a group's listeners add to its health: a listener stopped by its error handler
 * makes it DOWN and is named with its position; a paused or stopped listener, and one
 * whose acknowledgement is outstanding past
 * {@code postlog.delivery.unacknowledged-warning}, are listed. Reads the consumer's state
 * only, never the server. Value-free.
 */
final class ListenerHealth {

	private ListenerHealth() {
	}

	/**
	 * Describes the listeners that are not plainly running.
	 * @param listeners the group's listeners
	 * @return one entry per listener worth telling about, empty when all run
	 */
	static Map<String, Object> details(List<ListenerInfo> listeners) {
		Map<String, Object> details = new LinkedHashMap<>();
		for (ListenerInfo listener : listeners) {
			Unacknowledged stalled = listener.stalled();
			if ("RUNNING".equals(listener.state()) && stalled == null) {
				continue;
			}
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("state", listener.state());
			if (listener.failed()) {
				detail.put("stoppedBy", "its error handler");
			}
			if (listener.position() != null) {
				detail.put("position", listener.position());
			}
			if (stalled != null) {
				detail.put("unacknowledgedSince", stalled.since().toString());
				detail.put("unacknowledgedCommitLsn", stalled.commitLsn());
				if (stalled.changeId() != null) {
					detail.put("unacknowledgedChange", stalled.changeId());
				}
			}
			details.put(listener.id(), detail);
		}
		return details;
	}

	/**
	 * Names the listeners whose error handler stopped them: each makes health DOWN.
	 * @param listeners the group's listeners
	 * @return one reason per stopped listener
	 */
	static List<String> reasons(List<ListenerInfo> listeners) {
		return listeners.stream()
			.filter(ListenerInfo::failed)
			.map((listener) -> "listener '" + listener.id() + "' was stopped by its error handler"
					+ ((listener.position() != null) ? " at " + listener.position() : "")
					+ "; the slot is confirmed no further until it is started again")
			.toList();
	}

}
