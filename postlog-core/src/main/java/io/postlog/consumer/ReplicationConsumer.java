package io.postlog.consumer;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import javax.sql.DataSource;

import io.postlog.Lsn;
import io.postlog.TableId;
import io.postlog.admin.PublicationMode;
import io.postlog.admin.SlotLifecycle;
import io.postlog.pgoutput.RowDecoder;
import io.postlog.stream.LogicalStreamFactory;
import io.postlog.stream.PgLogicalStreamFactory;
import io.postlog.stream.ReplicationConnectionFactory;
import io.postlog.stream.StreamRequest;
import io.postlog.types.ValueDecoders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Streams a logical replication slot to handlers: ordered, at-least-once delivery, with
 * the slot acknowledged only past transactions whose handlers all returned. A reader
 * thread owns the replication connection and one delivery thread runs every handler, one
 * call at a time. {@link #start()}, {@link #stop()}, {@link #state()} and
 * {@link #ackedLsn()} may be called from any thread; a consumer is started at most once.
 *
 * <p>
 * Connections: the replication connection is always fresh, opened for each (re)connect
 * and closed by the consumer. Admin work (slot and publication set-up, slot checks,
 * catalog look-ups of enum and domain types) runs on an ordinary connection: one given
 * with {@link Builder#adminConnection(Connection)} is never closed by the consumer; one
 * borrowed from {@link Builder#adminDataSource(DataSource)} is closed (returned) after
 * each use; with {@link Builder#jdbcUrl(String, String, String)} the consumer opens and
 * closes its own. Without any admin connection the slot and publication must already
 * exist and enum and domain values stay raw.
 */
public final class ReplicationConsumer {

	private static final Logger logger = LoggerFactory.getLogger(ReplicationConsumer.class);

	private final Builder config;

	private final LogicalStreamFactory streams;

	private final @Nullable AdminConnections admin;

	private final ConsumerStates states;

	private final AckPosition acks;

	private final Object lifecycle = new Object();

	private boolean started;

	private boolean stopped;

	private @Nullable ConsumerLoop loop;

	private @Nullable Thread thread;

	private ReplicationConsumer(Builder config, LogicalStreamFactory streams, @Nullable AdminConnections admin) {
		this.config = config;
		this.streams = streams;
		this.admin = admin;
		this.states = new ConsumerStates(config.listener, config.slotName);
		this.acks = new AckPosition(config.listener);
	}

	/**
	 * Returns a builder.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Sets up the slot and publication as configured and starts streaming in the
	 * background.
	 * @throws io.postlog.PostlogException if set-up fails (the consumer is then
	 * {@code FAILED}); nothing is left half-created that the fault makes unsafe
	 * @throws IllegalStateException if the consumer was started before
	 */
	public void start() {
		synchronized (this.lifecycle) {
			if (this.started) {
				throw new IllegalStateException("Consumer of slot " + this.config.slotName + " was already started");
			}
			this.started = true;
			this.states.moveTo(ConsumerState.STARTING, null);
			ConsumerSetup.Result setup;
			try {
				setup = new ConsumerSetup(this.config, this.admin).run();
			}
			catch (RuntimeException ex) {
				this.states.moveTo(ConsumerState.FAILED, ex);
				throw ex;
			}
			Builder c = this.config;
			ValueDecoders decoders = (this.admin != null)
					? c.valueDecoders.withLookup(new CatalogTypeLookup(this.admin)) : c.valueDecoders;
			StreamRequest request = new StreamRequest(c.slotName, List.of(c.publicationName), 1, setup.binary(),
					c.messageHandler != null, Lsn.INVALID, c.statusInterval,
					c.slotLifecycle == SlotLifecycle.TEMPORARY);
			DeliveryLoop delivery = new DeliveryLoop(c.changeHandler, c.transactionHandler, c.messageHandler,
					c.maxTransactionChanges, c.listener, this.acks);
			SlotPositionCheck check = (this.admin != null && c.slotLifecycle != SlotLifecycle.TEMPORARY)
					? new SlotPositionCheck(this.admin, c.slotName, this.acks, c.listener) : null;
			ConsumerLoop consumerLoop = new ConsumerLoop(this.streams, request,
					() -> new PgOutputAssembler(c.slotName, new RowDecoder(decoders)), delivery,
					new ConsumerLoop.Settings(c.retryPolicy, c.queueCapacity, c.listener), this.states, this.acks,
					(check != null) ? check::verify : null);
			Thread consumerThread = new Thread(consumerLoop, "postlog-consumer-" + c.slotName);
			consumerThread.setDaemon(true);
			this.loop = consumerLoop;
			this.thread = consumerThread;
			consumerThread.start();
		}
	}

	/**
	 * Stops the consumer: lets the transaction in delivery finish (within the stop
	 * timeout), sends the final acknowledgement, closes the stream and drops an
	 * {@code OWNED} slot. Idempotent; waits for the consumer's threads to end.
	 */
	public void stop() {
		synchronized (this.lifecycle) {
			if (this.stopped) {
				return;
			}
			this.stopped = true;
			ConsumerLoop consumerLoop = this.loop;
			Thread consumerThread = this.thread;
			if (consumerLoop != null && consumerThread != null) {
				consumerLoop.requestStop(this.config.stopTimeout);
				join(consumerThread, this.config.stopTimeout.plusSeconds(5));
				if (consumerThread.isAlive()) {
					logger.warn("A handler of slot {} did not return within the stop timeout; the transaction in "
							+ "delivery is not acknowledged", this.config.slotName);
					consumerLoop.abandon();
					consumerThread.interrupt();
					join(consumerThread, Duration.ofSeconds(5));
				}
			}
			if (this.started && this.admin != null && this.config.slotLifecycle == SlotLifecycle.OWNED) {
				ConsumerSetup.dropOwnedSlot(this.admin, this.config.slotName);
			}
			this.states.end();
		}
	}

	/**
	 * Returns the current state ({@code STOPPED} before {@link #start()}).
	 * @return the state
	 */
	public ConsumerState state() {
		return this.states.get();
	}

	/**
	 * Returns the position this consumer has acknowledged: the end of the last
	 * transaction whose handlers all returned, or a later keepalive position while idle;
	 * before the first acknowledgement, the slot's confirmed position when known, else
	 * {@link Lsn#INVALID}.
	 * @return the position
	 */
	public Lsn ackedLsn() {
		return this.acks.get();
	}

	private static void join(Thread thread, Duration timeout) {
		try {
			thread.join(Math.max(1, timeout.toMillis()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * Configures a {@link ReplicationConsumer}; {@link #build()} checks the configuration
	 * before anything touches the server. Not thread-safe.
	 */
	public static final class Builder {

		private @Nullable LogicalStreamFactory streamFactory;

		private @Nullable ReplicationConnectionFactory connectionFactory;

		private @Nullable String jdbcUrl;

		private @Nullable String user;

		private @Nullable String password;

		private @Nullable Connection adminConnection;

		private @Nullable DataSource adminDataSource;

		String slotName = "postlog";

		SlotLifecycle slotLifecycle = SlotLifecycle.CREATE_IF_MISSING;

		String publicationName = "postlog";

		PublicationMode publicationMode = PublicationMode.CREATE_IF_MISSING;

		List<TableId> tables = List.of();

		@Nullable ChangeHandler changeHandler;

		@Nullable TransactionHandler transactionHandler;

		@Nullable MessageHandler messageHandler;

		boolean binary = true;

		RetryPolicy retryPolicy = RetryPolicy.DEFAULT;

		Duration statusInterval = Duration.ofSeconds(10);

		int maxTransactionChanges = 100_000;

		int queueCapacity = 1024;

		ConsumerListener listener = new ConsumerListener() {
		};

		ValueDecoders valueDecoders = ValueDecoders.standard();

		Duration stopTimeout = Duration.ofSeconds(30);

		private Builder() {
		}

		/**
		 * Sets where fresh replication connections come from, one per (re)connect.
		 * @param factory the factory
		 * @return this builder
		 */
		public Builder connectionFactory(ReplicationConnectionFactory factory) {
			this.connectionFactory = factory;
			return this;
		}

		/**
		 * Connects to a database by URL, for replication and, unless another admin
		 * connection is set, for admin work on connections the consumer opens and closes.
		 * @param url the JDBC URL ({@code jdbc:postgresql://...})
		 * @param user the user, or {@code null}
		 * @param password the password, or {@code null}
		 * @return this builder
		 */
		public Builder jdbcUrl(String url, @Nullable String user, @Nullable String password) {
			this.jdbcUrl = url;
			this.user = user;
			this.password = password;
			return this;
		}

		/**
		 * Sets a connection for admin work, shared under a lock and never closed by the
		 * consumer.
		 * @param connection the connection, owned by the caller
		 * @return this builder
		 */
		public Builder adminConnection(Connection connection) {
			this.adminConnection = connection;
			return this;
		}

		/**
		 * Sets a data source for admin work; each connection is closed after one use.
		 * @param dataSource the data source
		 * @return this builder
		 */
		public Builder adminDataSource(DataSource dataSource) {
			this.adminDataSource = dataSource;
			return this;
		}

		/**
		 * Sets the slot name ({@code postlog} by default).
		 * @param slotName lower-case letters, digits and underscores, at most 63
		 * @return this builder
		 */
		public Builder slotName(String slotName) {
			this.slotName = slotName;
			return this;
		}

		/**
		 * Sets how the slot is managed ({@code CREATE_IF_MISSING} by default).
		 * @param lifecycle the lifecycle
		 * @return this builder
		 */
		public Builder slotLifecycle(SlotLifecycle lifecycle) {
			this.slotLifecycle = lifecycle;
			return this;
		}

		/**
		 * Sets the publication name ({@code postlog} by default).
		 * @param publicationName the name
		 * @return this builder
		 */
		public Builder publicationName(String publicationName) {
			this.publicationName = publicationName;
			return this;
		}

		/**
		 * Sets how the publication is managed ({@code CREATE_IF_MISSING} by default).
		 * @param mode the mode
		 * @return this builder
		 */
		public Builder publicationMode(PublicationMode mode) {
			this.publicationMode = mode;
			return this;
		}

		/**
		 * Sets the publication's tables.
		 * @param tables the tables
		 * @return this builder
		 */
		public Builder tables(List<TableId> tables) {
			this.tables = List.copyOf(tables);
			return this;
		}

		/**
		 * Sets the handler called for each change as it arrives.
		 * @param handler the handler
		 * @return this builder
		 */
		public Builder changeHandler(ChangeHandler handler) {
			this.changeHandler = handler;
			return this;
		}

		/**
		 * Sets the handler called once per transaction with at least one change.
		 * @param handler the handler
		 * @return this builder
		 */
		public Builder transactionHandler(TransactionHandler handler) {
			this.transactionHandler = handler;
			return this;
		}

		/**
		 * Sets the handler of logical decoding messages (PostgreSQL 14+).
		 * @param handler the handler
		 * @return this builder
		 */
		public Builder messageHandler(MessageHandler handler) {
			this.messageHandler = handler;
			return this;
		}

		/**
		 * Sets whether to stream values in binary (default {@code true}; servers before
		 * PostgreSQL 14 get text, said once at start).
		 * @param binary whether to ask for binary values
		 * @return this builder
		 */
		public Builder binary(boolean binary) {
			this.binary = binary;
			return this;
		}

		/**
		 * Sets the back-off for failed handlers and lost connections.
		 * @param retryPolicy the policy
		 * @return this builder
		 */
		public Builder retryPolicy(RetryPolicy retryPolicy) {
			this.retryPolicy = retryPolicy;
			return this;
		}

		/**
		 * Sets how often standby status is sent (10 s by default).
		 * @param statusInterval the interval
		 * @return this builder
		 */
		public Builder statusInterval(Duration statusInterval) {
			this.statusInterval = statusInterval;
			return this;
		}

		/**
		 * Sets the most changes a transaction handler may be given at once (100000 by
		 * default); a larger transaction fails the consumer.
		 * @param maxTransactionChanges the limit
		 * @return this builder
		 */
		public Builder maxTransactionChanges(int maxTransactionChanges) {
			this.maxTransactionChanges = maxTransactionChanges;
			return this;
		}

		/**
		 * Sets how many events the reader may read ahead of delivery (1024 by default).
		 * @param queueCapacity the capacity
		 * @return this builder
		 */
		public Builder queueCapacity(int queueCapacity) {
			this.queueCapacity = queueCapacity;
			return this;
		}

		/**
		 * Sets the listener.
		 * @param listener the listener
		 * @return this builder
		 */
		public Builder listener(ConsumerListener listener) {
			this.listener = listener;
			return this;
		}

		/**
		 * Sets the value decoders; with an admin connection the consumer adds a catalog
		 * look-up for enum and domain types.
		 * @param valueDecoders the decoders
		 * @return this builder
		 */
		public Builder valueDecoders(ValueDecoders valueDecoders) {
			this.valueDecoders = valueDecoders;
			return this;
		}

		/**
		 * Sets how long {@link ReplicationConsumer#stop()} waits for the transaction in
		 * delivery (30 s by default).
		 * @param stopTimeout the timeout
		 * @return this builder
		 */
		public Builder stopTimeout(Duration stopTimeout) {
			this.stopTimeout = stopTimeout;
			return this;
		}

		/**
		 * Opens streams with this factory instead of over pgjdbc; for tests.
		 * @param streamFactory the factory
		 * @return this builder
		 */
		public Builder streamFactory(LogicalStreamFactory streamFactory) {
			this.streamFactory = streamFactory;
			return this;
		}

		/**
		 * Checks the configuration and builds the consumer; nothing touches the server.
		 * @return the consumer, not started
		 * @throws ReplicationConsumerException if the configuration is invalid
		 */
		public ReplicationConsumer build() {
			new BuilderCheck(this).check();
			LogicalStreamFactory streams = this.streamFactory;
			ReplicationConnectionFactory connections = this.connectionFactory;
			if (connections == null && this.jdbcUrl != null) {
				connections = ReplicationConnectionFactory.of(this.jdbcUrl, this.user, this.password);
			}
			if (streams == null) {
				streams = new PgLogicalStreamFactory(Objects.requireNonNull(connections));
			}
			return new ReplicationConsumer(this, streams, adminConnections());
		}

		private @Nullable AdminConnections adminConnections() {
			if (this.adminConnection != null) {
				return AdminConnections.shared(this.adminConnection);
			}
			if (this.adminDataSource != null) {
				return AdminConnections.of(this.adminDataSource);
			}
			return (this.jdbcUrl != null && this.streamFactory == null)
					? AdminConnections.of(this.jdbcUrl, this.user, this.password) : null;
		}

		int connectionSources() {
			int sources = (this.streamFactory != null) ? 1 : 0;
			sources += (this.connectionFactory != null) ? 1 : 0;
			return sources + ((this.jdbcUrl != null) ? 1 : 0);
		}

		boolean willHaveAdmin() {
			return this.adminConnection != null || this.adminDataSource != null
					|| (this.jdbcUrl != null && this.streamFactory == null);
		}

	}

}
