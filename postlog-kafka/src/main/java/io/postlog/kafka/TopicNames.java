package io.postlog.kafka;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import io.postlog.TableId;

/**
 * Turns the topic pattern ({@code {schema}.{table}} by default) into each table's topic,
 * and checks topic names against Kafka's rule (letters, digits, {@code .}, {@code _} and
 * {@code -}, at most 249 characters) before anything is sent, and that no record goes to
 * the relay's own offsets topic. Thread-safe.
 */
final class TopicNames {

	private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

	private final String pattern;

	private final Set<String> reserved;

	private final Map<TableId, String> topics = new ConcurrentHashMap<>();

	/**
	 * Creates the names.
	 * @param pattern the topic pattern
	 * @param reserved the relay's own topics (its offsets topic), which no table's
	 * changes may go to
	 */
	TopicNames(String pattern, Set<String> reserved) {
		this.reserved = Set.copyOf(reserved);
		if (!pattern.contains("{table}") && !pattern.contains("{schema}")) {
			// One topic for every table is allowed; a literal name is checked at once.
			requireOwn(require(pattern, "postlog.kafka.topic"), this.reserved, "postlog.kafka.topic");
		}
		this.pattern = pattern;
	}

	/**
	 * Returns a table's topic.
	 * @param table the table
	 * @return the topic
	 * @throws KafkaRelayException if the name is not a legal topic name
	 */
	String topic(TableId table) {
		String topic = this.topics.get(table);
		if (topic == null) {
			topic = requireOwn(
					require(this.pattern.replace("{schema}", table.schema()).replace("{table}", table.name()),
							"table " + table),
					this.reserved, "table " + table);
			this.topics.put(table, topic);
		}
		return topic;
	}

	/**
	 * Checks that a topic is not one of the relay's own.
	 * @param topic the name
	 * @param reserved the relay's own topics
	 * @param source what the name came from, for the message
	 * @return the name
	 * @throws KafkaRelayException if it is the offsets topic
	 */
	static String requireOwn(String topic, Set<String> reserved, String source) {
		if (reserved.contains(topic)) {
			throw new KafkaRelayException("The topic for " + source + " is " + topic + ", the relay's own offsets "
					+ "topic (postlog.kafka.offsets-topic): nothing but the relay's commit positions may be written "
					+ "there, so it is not relayed", null);
		}
		return topic;
	}

	/**
	 * Checks a topic name.
	 * @param topic the name
	 * @param source what the name came from, for the message
	 * @return the name
	 * @throws KafkaRelayException if it is not a legal topic name
	 */
	static String require(String topic, String source) {
		if (!LEGAL.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
			throw new KafkaRelayException("The topic for " + source + " is not a legal Kafka topic name (letters, "
					+ "digits, '.', '_' and '-', at most 249); set postlog.kafka.topic to a pattern that gives one",
					null);
		}
		return topic;
	}

}
