package io.postlog.consumer.delivery;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The supervisor of a consumer's threads: each is named after the slot, is a daemon, is
 * known until it ends, and an escape of anything from its body (a bug, an {@link Error})
 * is reported to the death handler, which makes it a state change with the cause; no
 * thread of postlog's ends silently. The owner joins them all on stop. Thread-safe.
 * <p>
 * Internal: public only so the consumer can use it; not part of postlog's API, and it may
 * change in any release.
 */
public final class ConsumerThreads {

	private final Set<Thread> threads = ConcurrentHashMap.newKeySet();

	private final BiConsumer<String, Throwable> onDeath;

	/**
	 * Creates a supervisor.
	 * @param onDeath called with the thread's name and what escaped its body
	 */
	public ConsumerThreads(BiConsumer<String, Throwable> onDeath) {
		this.onDeath = onDeath;
	}

	/**
	 * Starts a supervised thread.
	 * @param name the thread's name
	 * @param body what it runs
	 * @return the started thread
	 */
	public Thread start(String name, Runnable body) {
		Thread thread = new Thread(() -> {
			try {
				body.run();
			}
			catch (Throwable ex) {
				this.onDeath.accept(Thread.currentThread().getName(), ex);
			}
			finally {
				this.threads.remove(Thread.currentThread());
			}
		}, name);
		thread.setDaemon(true);
		this.threads.add(thread);
		thread.start();
		return thread;
	}

	/**
	 * Returns whether the calling thread is one of these.
	 * @return {@code true} on a consumer thread
	 */
	public boolean isCurrentThreadOwn() {
		return this.threads.contains(Thread.currentThread());
	}

	/**
	 * Returns the names of the threads still alive.
	 * @return the names
	 */
	public List<String> alive() {
		List<String> names = new ArrayList<>();
		for (Thread thread : this.threads) {
			if (thread.isAlive()) {
				names.add(thread.getName());
			}
		}
		return names;
	}

	/**
	 * Waits for every thread to end, until the deadline.
	 * @param deadlineNanos the {@link System#nanoTime()} to give up at
	 * @return whether all ended
	 */
	public boolean joinAll(long deadlineNanos) {
		for (Thread thread : List.copyOf(this.threads)) {
			long remaining = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
			if (remaining > 0) {
				try {
					thread.join(remaining);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
		}
		return alive().isEmpty();
	}

	/**
	 * Interrupts every thread still alive: the last resort of a stop whose handlers did
	 * not return in time.
	 */
	public void interruptAll() {
		for (Thread thread : this.threads) {
			thread.interrupt();
		}
	}

}
