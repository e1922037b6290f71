package io.postlog.kafka;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConfigsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out, with an admin client, why a transactional producer found no transaction
 * coordinator: the producer itself only times out ("while awaiting InitProducerId"),
 * whatever the reason. The cluster's broker count ({@code describeCluster}), the brokers'
 * {@code transaction.state.log.replication.factor} and
 * {@code transaction.state.log.min.isr} ({@code describeConfigs}) and the transaction
 * state log's partitions ({@code describeTopics} on {@code __transaction_state}) tell the
 * usual causes apart. Every call together is bounded by the diagnosis timeout; a
 * diagnosis that fails says so and never throws. Called on the relay's delivery thread,
 * never by health. Thread-safe.
 */
final class CoordinatorDiagnosis {

	private static final Logger logger = LoggerFactory.getLogger(CoordinatorDiagnosis.class);

	/** The longest a diagnosis takes, unless the init timeout is shorter. */
	static final Duration MAX_TIME = Duration.ofSeconds(5);

	static final String TRANSACTION_STATE_LOG = "__transaction_state";

	static final String REPLICATION_FACTOR = "transaction.state.log.replication.factor";

	static final String MIN_ISR = "transaction.state.log.min.isr";

	private final Map<String, Object> adminProperties;

	private final Duration timeout;

	CoordinatorDiagnosis(Map<String, Object> adminProperties, Duration initTimeout) {
		this.timeout = (initTimeout.compareTo(MAX_TIME) < 0) ? initTimeout : MAX_TIME;
		Map<String, Object> properties = new HashMap<>(adminProperties);
		int millis = (int) this.timeout.toMillis();
		properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, millis);
		properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, millis);
		this.adminProperties = Map.copyOf(properties);
	}

	/**
	 * Asks the cluster why no coordinator answered.
	 * @return a sentence giving the cause and the fix, or saying that it could not be
	 * found out
	 */
	String diagnose() {
		long deadline = System.nanoTime() + this.timeout.toNanos();
		@Nullable Admin admin = null;
		try {
			admin = Admin.create(this.adminProperties);
			return explain(findings(admin, deadline));
		}
		catch (ExecutionException ex) {
			Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
			logger.debug("Diagnosing the Kafka transaction coordinator failed", cause);
			return "the cluster could not be asked why (" + cause.getClass().getSimpleName() + ")";
		}
		catch (java.util.concurrent.TimeoutException ex) {
			logger.debug("Diagnosing the Kafka transaction coordinator timed out", ex);
			return "the cluster did not say why within " + this.timeout.toMillis() + " ms";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "the diagnosis was interrupted";
		}
		catch (KafkaException ex) {
			logger.debug("Diagnosing the Kafka transaction coordinator failed", ex);
			return "the cluster could not be asked why (" + ex.getClass().getSimpleName() + ")";
		}
		finally {
			if (admin != null) {
				// Every call has timed out or completed by now: nothing to wait for.
				admin.close(Duration.ZERO);
			}
		}
	}

	private Findings findings(Admin admin, long deadline)
			throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
		Collection<Node> nodes = await(
				admin.describeCluster(new DescribeClusterOptions().timeoutMs(remaining(deadline))).nodes(), deadline);
		if (nodes.isEmpty()) {
			return new Findings(0, null, null, false, 0, 0);
		}
		ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, nodes.iterator().next().idString());
		Map<ConfigResource, Config> configs = await(
				admin.describeConfigs(List.of(broker), new DescribeConfigsOptions().timeoutMs(remaining(deadline)))
					.all(),
				deadline);
		Config config = configs.get(broker);
		Integer replicationFactor = (config != null) ? intValue(config.get(REPLICATION_FACTOR)) : null;
		Integer minIsr = (config != null) ? intValue(config.get(MIN_ISR)) : null;
		boolean exists = await(
				admin.listTopics(new ListTopicsOptions().listInternal(true).timeoutMs(remaining(deadline))).names(),
				deadline)
			.contains(TRANSACTION_STATE_LOG);
		if (!exists) {
			return new Findings(nodes.size(), replicationFactor, minIsr, false, 0, 0);
		}
		TopicDescription log = await(admin
			.describeTopics(List.of(TRANSACTION_STATE_LOG), new DescribeTopicsOptions().timeoutMs(remaining(deadline)))
			.allTopicNames(), deadline).get(TRANSACTION_STATE_LOG);
		int partitions = 0;
		int unavailable = 0;
		if (log != null) {
			int required = (minIsr != null) ? minIsr : 1;
			for (TopicPartitionInfo partition : log.partitions()) {
				partitions++;
				Node leader = partition.leader();
				if (leader == null || leader.isEmpty() || partition.isr().size() < required) {
					unavailable++;
				}
			}
		}
		return new Findings(nodes.size(), replicationFactor, minIsr, true, partitions, unavailable);
	}

	/**
	 * Explains what was found, with the fix.
	 * @param findings what the cluster said
	 * @return the explanation
	 */
	static String explain(Findings findings) {
		int brokers = findings.brokers();
		String count = brokers + ((brokers == 1) ? " broker" : " brokers");
		Integer factor = findings.replicationFactor();
		Integer minIsr = findings.minIsr();
		String fix = "set " + REPLICATION_FACTOR + " and " + MIN_ISR + " to at most " + brokers
				+ " on the brokers and restart them, or add brokers";
		if (brokers == 0) {
			return "the cluster reports no brokers";
		}
		if (!findings.logExists() && factor != null && factor > brokers) {
			return "the brokers create the transaction state log (" + TRANSACTION_STATE_LOG + ") with "
					+ REPLICATION_FACTOR + "=" + factor + " replicas, but the cluster has " + count
					+ ", so the log cannot be created and no transaction coordinator is available: " + fix;
		}
		if (minIsr != null && minIsr > brokers) {
			return "the brokers need " + MIN_ISR + "=" + minIsr + " in-sync replicas of the transaction state log ("
					+ TRANSACTION_STATE_LOG + "), but the cluster has " + count
					+ ", so no transaction coordinator can write it: " + fix;
		}
		if (findings.logExists() && findings.unavailablePartitions() > 0) {
			return findings.unavailablePartitions() + " of the " + findings.partitions()
					+ " partitions of the transaction state log (" + TRANSACTION_STATE_LOG
					+ ") have no leader or fewer in-sync replicas than " + MIN_ISR + "="
					+ ((minIsr != null) ? minIsr : 1) + ": bring their brokers back";
		}
		return "the cluster has " + count + " and its transaction state log (" + TRANSACTION_STATE_LOG + ") "
				+ (findings.logExists() ? "has a leader and enough in-sync replicas for every partition"
						: "does not exist yet")
				+ "; check that the relay reaches every broker at its advertised address (advertised.listeners) "
				+ "and that the brokers are not still loading the log";
	}

	private static @Nullable Integer intValue(@Nullable ConfigEntry entry) {
		if (entry == null || entry.value() == null) {
			return null;
		}
		try {
			return Integer.valueOf(entry.value().trim());
		}
		catch (NumberFormatException ex) {
			logger.debug("Broker setting {} is not a number", entry.name());
			return null;
		}
	}

	private static int remaining(long deadline) {
		return (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
	}

	private static <T> T await(KafkaFuture<T> future, long deadline)
			throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
		return future.get(remaining(deadline), TimeUnit.MILLISECONDS);
	}

	/**
	 * What the cluster said.
	 *
	 * @param brokers the brokers {@code describeCluster} returned
	 * @param replicationFactor a broker's
	 * {@code transaction.state.log.replication.factor}, or {@code null} when unknown
	 * @param minIsr a broker's {@code transaction.state.log.min.isr}, or {@code null}
	 * when unknown
	 * @param logExists whether {@code __transaction_state} exists
	 * @param partitions its partitions
	 * @param unavailablePartitions those without a leader or with too few in-sync
	 * replicas
	 */
	record Findings(int brokers, @Nullable Integer replicationFactor, @Nullable Integer minIsr, boolean logExists,
			int partitions, int unavailablePartitions) {
	}

}
