package io.postlog.kafka;

import java.util.function.Supplier;

import io.postlog.consumer.ConsumerState;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;

/**
 * The Kafka relay of a Spring application: builds its {@link KafkaRelay} when the
 * application starts, in the same late phase as the listeners, so that set-up faults (the
 * slot, the publication, the offsets topic, the outbox table) fail start-up, and stops it
 * early on shutdown, committing and acknowledging what was relayed. Thread-safe.
 */
public final class PostlogKafkaRelay implements SmartLifecycle {

	/** The lifecycle phase, the listener registry's. */
	public static final int PHASE = Integer.MAX_VALUE - 100;

	private final Supplier<KafkaRelay> factory;

	private final boolean autoStartup;

	private volatile @Nullable KafkaRelay relay;

	/**
	 * Creates the lifecycle.
	 * @param factory builds the relay at start
	 * @param autoStartup whether to start with the application context
	 */
	public PostlogKafkaRelay(Supplier<KafkaRelay> factory, boolean autoStartup) {
		this.factory = factory;
		this.autoStartup = autoStartup;
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	@Override
	public synchronized void start() {
		if (this.relay != null) {
			return;
		}
		KafkaRelay relay = this.factory.get();
		try {
			relay.start();
		}
		catch (RuntimeException ex) {
			// Whatever the failed start left running (threads, a producer) ends here.
			relay.stop();
			throw ex;
		}
		this.relay = relay;
	}

	@Override
	public void stop() {
		KafkaRelay relay;
		synchronized (this) {
			relay = this.relay;
			this.relay = null;
		}
		if (relay != null) {
			relay.stop();
		}
	}

	@Override
	public boolean isRunning() {
		return this.relay != null;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}

	/**
	 * Returns the running relay.
	 * @return the relay, or {@code null} before start and after stop
	 */
	public @Nullable KafkaRelay relay() {
		return this.relay;
	}

	/**
	 * Returns the relay's state.
	 * @return the state, or {@code null} when it does not run
	 */
	public @Nullable ConsumerState state() {
		KafkaRelay relay = this.relay;
		return (relay != null) ? relay.state() : null;
	}

}
