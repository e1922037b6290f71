package io.postlog.heartbeat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.jspecify.annotations.Nullable;

/**
 * The {@link HeartbeatMonitor} of one process and slot: remembers the heartbeats it wrote
 * until they come back, and reports the oldest one still out ({@link #status}).
 * Heartbeats of other instances and slots are ignored. Heartbeats count only once a
 * consumer has reported {@link #streamStarted}: a consumer that does not recognise
 * heartbeats never does, so it is never reported as missing them. At most
 * {@value #MAX_OUTSTANDING} heartbeats are remembered; past that, newer ones are not, so
 * a long stall still shows from the oldest one. Thread-safe.
 */
public final class HeartbeatTracker implements HeartbeatMonitor {

	static final int MAX_OUTSTANDING = 10_000;

	private final String slotName;

	private final String instance;

	private final Duration timeout;

	/** Guarded by this; sequence to write time of heartbeats not yet back. */
	private final TreeMap<Long, Instant> outstanding = new TreeMap<>();

	private final CopyOnWriteArrayList<RoundTripListener> listeners = new CopyOnWriteArrayList<>();

	private @Nullable Heartbeat lastEmitted;

	private @Nullable Heartbeat lastReceived;

	private @Nullable Instant lastReceivedAt;

	private boolean tracking;

	/**
	 * Creates a tracker with an instance id of its own.
	 * @param slotName the slot the heartbeats are for
	 * @param timeout how long a heartbeat may be out before it counts as missing
	 */
	public HeartbeatTracker(String slotName, Duration timeout) {
		this(slotName, UUID.randomUUID().toString().substring(0, 8), timeout);
	}

	/**
	 * Creates a tracker.
	 * @param slotName the slot the heartbeats are for
	 * @param instance this process's id, written into each heartbeat
	 * @param timeout how long a heartbeat may be out before it counts as missing
	 */
	public HeartbeatTracker(String slotName, String instance, Duration timeout) {
		this.slotName = Objects.requireNonNull(slotName, "slotName");
		this.instance = Objects.requireNonNull(instance, "instance");
		this.timeout = Objects.requireNonNull(timeout, "timeout");
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("The heartbeat timeout must be positive");
		}
	}

	/**
	 * Returns the slot.
	 * @return the slot name
	 */
	public String slotName() {
		return this.slotName;
	}

	/**
	 * Returns this process's instance id.
	 * @return the id the writer puts into each heartbeat
	 */
	public String instance() {
		return this.instance;
	}

	/**
	 * Adds a listener told of each round trip of this process's heartbeats.
	 * @param listener the listener
	 */
	public void addListener(RoundTripListener listener) {
		this.listeners.add(Objects.requireNonNull(listener, "listener"));
	}

	@Override
	public synchronized void emitted(Heartbeat heartbeat) {
		if (!isOwn(heartbeat)) {
			return;
		}
		this.lastEmitted = heartbeat;
		// The stream can deliver a heartbeat before its writer reports it written.
		boolean back = this.lastReceived != null && this.lastReceived.sequence() >= heartbeat.sequence();
		if (this.tracking && !back && this.outstanding.size() < MAX_OUTSTANDING) {
			this.outstanding.put(heartbeat.sequence(), heartbeat.emittedAt());
		}
	}

	@Override
	public void received(Heartbeat heartbeat, Instant receivedAt) {
		if (!isOwn(heartbeat)) {
			return;
		}
		synchronized (this) {
			this.outstanding.headMap(heartbeat.sequence(), true).clear();
			if (this.lastReceived == null || heartbeat.sequence() >= this.lastReceived.sequence()) {
				this.lastReceived = heartbeat;
				this.lastReceivedAt = receivedAt;
			}
		}
		Duration roundTrip = Duration.between(heartbeat.emittedAt(), receivedAt);
		for (RoundTripListener listener : this.listeners) {
			listener.roundTrip(heartbeat, roundTrip.isNegative() ? Duration.ZERO : roundTrip);
		}
	}

	@Override
	public synchronized void streamStarted(Instant at) {
		this.tracking = true;
		this.outstanding.clear();
	}

	/**
	 * Returns where the heartbeats stand.
	 * @param now the current time
	 * @return the status
	 */
	public synchronized HeartbeatStatus status(Instant now) {
		Map.Entry<Long, Instant> oldest = this.outstanding.firstEntry();
		Duration missingFor = (oldest != null) ? Duration.between(oldest.getValue(), now) : null;
		Heartbeat received = this.lastReceived;
		Instant receivedAt = this.lastReceivedAt;
		Duration roundTrip = (received != null && receivedAt != null)
				? Duration.between(received.emittedAt(), receivedAt) : null;
		return new HeartbeatStatus(this.lastEmitted, received, receivedAt, roundTrip, missingFor, this.timeout);
	}

	private boolean isOwn(Heartbeat heartbeat) {
		return this.slotName.equals(heartbeat.slotName()) && this.instance.equals(heartbeat.instance());
	}

	/**
	 * Told of each round trip of this process's heartbeats, on the consumer's thread;
	 * must be quick and must not throw.
	 */
	@FunctionalInterface
	public interface RoundTripListener {

		/**
		 * A heartbeat came back.
		 * @param heartbeat the heartbeat
		 * @param roundTrip the time from its write to the consumer reading it
		 */
		void roundTrip(Heartbeat heartbeat, Duration roundTrip);

	}

}
