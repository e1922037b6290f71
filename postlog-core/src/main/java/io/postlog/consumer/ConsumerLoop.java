package io.postlog.consumer;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.postlog.Lsn;
import io.postlog.PostlogException;
import io.postlog.stream.LogicalStream;
import io.postlog.stream.LogicalStreamFactory;
import io.postlog.stream.StreamRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consumer's delivery thread: opens a stream, starts a {@link StreamReader} for it,
 * delivers events until the session ends, and then waits and opens a new one. A failed
 * handler or a lost connection ends the session alike: the stream is closed and the next
 * one starts at the slot's confirmed position, so events read past the failure are
 * dropped and delivery resumes at the first unacknowledged transaction. A slot held by
 * another process means {@code STANDBY}, which retries forever without using up attempts.
 */
final class ConsumerLoop implements Runnable {

	private static final Logger logger = LoggerFactory.getLogger(ConsumerLoop.class);

	private static final String OBJECT_IN_USE = "55006";

	private final LogicalStreamFactory streams;

	private final StreamRequest request;

	private final Supplier<MessageAssembler> assemblers;

	private final DeliveryLoop delivery;

	private final Settings settings;

	private final ConsumerStates states;

	private final AckPosition acks;

	private final @Nullable SlotCheck slotCheck;

	private final CountDownLatch stopSignal = new CountDownLatch(1);

	private volatile long stopDeadline;

	private volatile @Nullable StreamReader reader;

	private boolean progressed;

	ConsumerLoop(LogicalStreamFactory streams, StreamRequest request, Supplier<MessageAssembler> assemblers,
			DeliveryLoop delivery, Settings settings, ConsumerStates states, AckPosition acks,
			@Nullable SlotCheck slotCheck) {
		this.streams = streams;
		this.request = request;
		this.assemblers = assemblers;
		this.delivery = delivery;
		this.settings = settings;
		this.states = states;
		this.acks = acks;
		this.slotCheck = slotCheck;
	}

	@Override
	public void run() {
		int failures = 0;
		int standbyWaits = 0;
		boolean tookOver = true;
		while (!stopping()) {
			LogicalStream stream;
			try {
				stream = this.streams.open(this.request);
			}
			catch (RuntimeException ex) {
				if (isSlotInUse(ex)) {
					standbyWaits++;
					tookOver = true;
					this.states.moveTo(ConsumerState.STANDBY, ex);
					logger.debug("Slot {} is in use by another process; waiting", this.request.slotName());
					pause(this.settings.retry().backOff(standbyWaits));
					continue;
				}
				if (!retry(++failures, ex)) {
					return;
				}
				continue;
			}
			standbyWaits = 0;
			checkSlot(tookOver);
			tookOver = false;
			this.states.moveTo(ConsumerState.RUNNING, null);
			this.progressed = false;
			Throwable failure = session(stream);
			if (failure == null) {
				break;
			}
			if (this.progressed) {
				failures = 0;
			}
			if (!retry(++failures, failure)) {
				return;
			}
		}
	}

	private void checkSlot(boolean tookOver) {
		if (this.slotCheck == null) {
			return;
		}
		try {
			this.slotCheck.verify(tookOver);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not check the position of slot {}: {}", this.request.slotName(), describe(ex));
		}
	}

	private @Nullable Throwable session(LogicalStream stream) {
		BlockingQueue<Event> queue = new ArrayBlockingQueue<>(this.settings.queueCapacity());
		StreamReader reader = new StreamReader(stream, this.assemblers.get(), queue, this.acks,
				this.request.statusInterval());
		Thread thread = new Thread(reader, "postlog-reader-" + this.request.slotName());
		thread.setDaemon(true);
		this.reader = reader;
		thread.start();
		this.delivery.reset();
		try {
			while (true) {
				if (stopping() && (!this.delivery.inTransaction() || System.nanoTime() - this.stopDeadline > 0)) {
					return null;
				}
				Event event = queue.poll(50, TimeUnit.MILLISECONDS);
				if (event != null) {
					if (this.delivery.deliver(event)) {
						this.progressed = true;
					}
					reader.delivered();
				}
				else if (!thread.isAlive() && queue.isEmpty()) {
					Throwable failure = reader.failure();
					return (failure != null) ? failure
							: (stopping() ? null : new PostlogException("The replication stream ended"));
				}
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return null;
		}
		catch (RuntimeException ex) {
			return ex;
		}
		finally {
			reader.stop();
			join(thread);
		}
	}

	private boolean retry(int failures, Throwable failure) {
		if (stopping()) {
			return false;
		}
		RetryPolicy policy = this.settings.retry();
		if (failure instanceof ReplicationConsumerException || !policy.canRetry(failures)) {
			logger.error("Consumer of slot {} failed after {} attempt(s), acknowledged position stays at {}: {}",
					this.request.slotName(), failures, this.acks.get(), describe(failure));
			this.states.moveTo(ConsumerState.FAILED, failure);
			return false;
		}
		Duration backOff = policy.backOff(failures);
		logger.warn("Consumer of slot {} retrying in {} ms (attempt {} failed): {}", this.request.slotName(),
				backOff.toMillis(), failures, describe(failure));
		this.states.moveTo(ConsumerState.RETRYING, failure);
		try {
			this.settings.listener().retrying(failures, backOff, failure);
		}
		catch (RuntimeException ex) {
			logger.warn("Consumer listener failed: {}", ex.getClass().getName());
		}
		pause(backOff);
		return true;
	}

	/**
	 * Describes a failure without the handler's own message, which may quote row values.
	 */
	static String describe(Throwable failure) {
		if (failure instanceof HandlerFailedException && failure.getCause() != null) {
			return failure.getMessage() + " (" + failure.getCause().getClass().getName() + ")";
		}
		return failure.getClass().getName() + ": " + failure.getMessage();
	}

	private static boolean isSlotInUse(RuntimeException ex) {
		return ex instanceof PostlogException postlog && OBJECT_IN_USE.equals(postlog.sqlState());
	}

	private void pause(Duration duration) {
		try {
			this.stopSignal.await(duration.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void join(Thread thread) {
		try {
			thread.join(Duration.ofSeconds(30).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private boolean stopping() {
		return this.stopSignal.getCount() == 0 || Thread.currentThread().isInterrupted();
	}

	/**
	 * Asks the loop to finish the transaction in delivery, within {@code timeout}, and
	 * end.
	 * @param timeout how long an open transaction may take to finish
	 */
	void requestStop(Duration timeout) {
		this.stopDeadline = System.nanoTime() + timeout.toNanos();
		this.stopSignal.countDown();
	}

	/**
	 * Ends the current session's reader (which sends a last status and closes the stream)
	 * when the delivery thread is stuck in a handler.
	 */
	void abandon() {
		StreamReader current = this.reader;
		if (current != null) {
			current.stop();
		}
	}

	/**
	 * Settings of the loop.
	 *
	 * @param retry the back-off
	 * @param queueCapacity the hand-off queue's capacity
	 * @param listener the listener
	 */
	record Settings(RetryPolicy retry, int queueCapacity, ConsumerListener listener) {

	}

	/**
	 * Checks the slot's confirmed position after a stream started.
	 */
	@FunctionalInterface
	interface SlotCheck {

		/**
		 * Compares the slot's confirmed position with the acknowledged one.
		 * @param tookOver whether this consumer just took the slot over (first start or
		 * after standby), so the slot's position becomes the baseline
		 */
		void verify(boolean tookOver);

	}

}
