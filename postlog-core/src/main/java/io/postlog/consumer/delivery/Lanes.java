package io.postlog.consumer.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.postlog.Change;
import io.postlog.SchemaChange;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lanes of one subscription with a concurrency above 1: a thread per lane, each with
 * a bounded queue and its own {@link Runner}. The delivery thread routes each change by
 * its routing key, so changes of one key go through one lane in stream order; at a commit
 * it sends the transaction's window entry through every lane that took part of it, and
 * the entry completes once each lane has passed it. A change that moves a row to another
 * key waits until the lane of the old key has drained, so neither key's changes overtake
 * each other. A lane whose handler fails for good reports the failure and stops taking
 * work. Thread-safe.
 * <p>
 * Internal: public only so the consumer can use it; not part of postlog's API, and it may
 * change in any release.
 */
public final class Lanes {

	private static final Logger logger = LoggerFactory.getLogger(Lanes.class);

	private static final int LANE_CAPACITY = 256;

	private final Recipient subscription;

	private final AckWindow window;

	private final StopSignal stop;

	private final Consumer<Throwable> onFailure;

	private final List<Lane> lanes = new ArrayList<>();

	private volatile boolean closed;

	/**
	 * Creates and starts the lanes.
	 * @param subscription the subscription
	 * @param runners one runner per lane
	 * @param bytesPerLane the read-ahead bound of each lane's queue
	 * @param window the window, to release entries through
	 * @param threads starts the lane threads
	 * @param slotName names the threads
	 * @param stop the consumer's stop signal
	 * @param onFailure told when a lane's handler fails for good, or a lane dies
	 */
	public Lanes(Recipient subscription, List<? extends Runner> runners, long bytesPerLane, AckWindow window,
			ConsumerThreads threads, String slotName, StopSignal stop, Consumer<Throwable> onFailure) {
		this.subscription = subscription;
		this.window = window;
		this.stop = stop;
		this.onFailure = onFailure;
		for (int i = 0; i < runners.size(); i++) {
			Lane lane = new Lane(runners.get(i), new HandOff<>(LANE_CAPACITY, bytesPerLane, Work::bytes));
			this.lanes.add(lane);
			threads.start("postlog-lane-" + slotName + "-" + subscription.id() + "-" + i, lane);
		}
	}

	int size() {
		return this.lanes.size();
	}

	Recipient subscription() {
		return this.subscription;
	}

	/**
	 * Returns the lane a routing key goes to.
	 * @param route the routing key
	 * @return the lane's index
	 */
	int laneOf(int route) {
		return Math.floorMod(mix(route), this.lanes.size());
	}

	private static int mix(int hash) {
		// Spread keys whose hashes differ only in high bits.
		int h = hash * 0x9E3779B9;
		return h ^ (h >>> 16);
	}

	/**
	 * Hands a change to its lane, waiting while the lane is full.
	 * @param lane the lane's index
	 * @param change the change
	 * @param entry its transaction's entry
	 * @param bytes the payload size it came from
	 * @throws InterruptedException if interrupted while waiting
	 */
	void dispatch(int lane, Change change, AckWindow.Entry entry, int bytes) throws InterruptedException {
		put(lane, new Work(change, entry, bytes));
	}

	/**
	 * Sends a transaction's entry through a lane: the entry is held until the lane has
	 * handled everything before it.
	 * @param lane the lane's index
	 * @param entry the entry
	 * @throws InterruptedException if interrupted while waiting
	 */
	void commit(int lane, AckWindow.Entry entry) throws InterruptedException {
		this.window.hold(entry);
		put(lane, new Work(null, entry, 0));
	}

	private void put(int lane, Work work) throws InterruptedException {
		HandOff<Work> queue = this.lanes.get(lane).queue;
		while (!queue.offer(work, 100, TimeUnit.MILLISECONDS)) {
			if (this.closed || this.stop.overdue()) {
				throw new StopSignal.StopRequested();
			}
		}
	}

	/**
	 * Waits until a lane has handled everything it was given.
	 * @param lane the lane's index
	 * @throws InterruptedException if interrupted while waiting
	 */
	void awaitIdle(int lane) throws InterruptedException {
		HandOff<Work> queue = this.lanes.get(lane).queue;
		while (!queue.settled()) {
			if (this.closed || this.stop.overdue()) {
				throw new StopSignal.StopRequested();
			}
			Thread.sleep(1);
		}
	}

	/**
	 * Calls the schema handler with the first lane's runner on the calling thread; the
	 * caller waited until every lane is idle, so no lane runs meanwhile.
	 * @param schema the schema change
	 * @param entry its transaction's window entry
	 * @return how long the call took in nanoseconds
	 */
	long schema(SchemaChange schema, AckWindow.Entry entry) {
		return this.lanes.get(0).runner.schema(schema, entry);
	}

	/**
	 * Waits until every lane has handled everything it was given, or the stop deadline
	 * passes.
	 * @throws InterruptedException if interrupted while waiting
	 */
	void awaitIdle() throws InterruptedException {
		for (int i = 0; i < this.lanes.size(); i++) {
			awaitIdle(i);
		}
	}

	/**
	 * Stops the lanes after the work they hold; their threads end.
	 */
	void close() {
		this.closed = true;
	}

	private final class Lane implements Runnable {

		private final Runner runner;

		private final HandOff<Work> queue;

		Lane(Runner runner, HandOff<Work> queue) {
			this.runner = runner;
			this.queue = queue;
		}

		@Override
		public void run() {
			try {
				while (true) {
					Work work = this.queue.poll(100, TimeUnit.MILLISECONDS);
					if (work == null) {
						if (Lanes.this.closed || Lanes.this.stop.overdue()) {
							return;
						}
						continue;
					}
					try {
						if (work.change() != null) {
							this.runner.change(work.change(), work.entry());
						}
						else {
							Lanes.this.window.release(work.entry());
						}
					}
					finally {
						this.queue.done(1);
					}
				}
			}
			catch (StopSignal.StopRequested ex) {
				logger.debug("Lane of subscription '{}' stopped while retrying", Lanes.this.subscription.id());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			catch (RuntimeException | Error ex) {
				Lanes.this.closed = true;
				Lanes.this.onFailure.accept(ex);
			}
		}

	}

	/**
	 * A change for a lane, or (without a change) the commit of its transaction.
	 */
	private record Work(@Nullable Change change, AckWindow.Entry entry, int bytes) {

	}

}
