package io.postlog.spring;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops the listener registry's consumer groups, in reverse order of their start, at
 * once. Stateless.
 */
final class GroupStops {

	private static final Logger logger = LoggerFactory.getLogger(PostlogListenerRegistry.class);

	private GroupStops() {
	}

	/**
	 * Stops the groups at once, each on a thread of its own joined here: a group's stop
	 * waits for its transaction in delivery and its outstanding acknowledgements, and one
	 * after another they could outlast the application's shutdown phase.
	 */
	static void stopAll(List<PostlogConsumerGroup> groups) {
		if (groups.size() == 1) {
			groups.get(0).stop();
			return;
		}
		List<Thread> stopping = new ArrayList<>();
		List<PostlogConsumerGroup> reversed = new ArrayList<>(groups);
		Collections.reverse(reversed);
		for (PostlogConsumerGroup group : reversed) {
			Thread thread = new Thread(() -> {
				try {
					group.stop();
				}
				catch (RuntimeException ex) {
					logger.warn("Stopping postlog group '{}' failed", group.displayName(), ex);
				}
			}, "postlog-stop-" + group.slotName());
			thread.setDaemon(true);
			thread.start();
			stopping.add(thread);
		}
		boolean interrupted = false;
		for (Thread thread : stopping) {
			while (thread.isAlive()) {
				try {
					thread.join();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		if (interrupted) {
			Thread.currentThread().interrupt();
		}
	}

}
