package io.postlog.kafka.autoconfigure;

import java.util.Map;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.kafka.autoconfigure.SslBundleSslEngineFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.util.StringUtils;

/**
 * The relay's Kafka client properties, made as Boot makes those of its own clients:
 * {@code spring.kafka.*} through {@link KafkaProperties}, then, from the
 * {@link KafkaConnectionDetails} (Boot's, from {@code spring.kafka.*} and its SSL
 * bundles, or a service connection's), each client's bootstrap servers, security protocol
 * and SSL bundle.
 */
final class RelayKafkaClients {

	private RelayKafkaClients() {
	}

	static Map<String, Object> producer(KafkaProperties properties, KafkaConnectionDetails connection) {
		return apply(properties.buildProducerProperties(), connection.getProducer());
	}

	static Map<String, Object> consumer(KafkaProperties properties, KafkaConnectionDetails connection) {
		return apply(properties.buildConsumerProperties(), connection.getConsumer());
	}

	static Map<String, Object> admin(KafkaProperties properties, KafkaConnectionDetails connection) {
		return apply(properties.buildAdminProperties(), connection.getAdmin());
	}

	private static Map<String, Object> apply(Map<String, Object> properties,
			KafkaConnectionDetails.Configuration connection) {
		properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, connection.getBootstrapServers());
		String protocol = connection.getSecurityProtocol();
		if (StringUtils.hasLength(protocol)) {
			properties.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, protocol);
		}
		@Nullable SslBundle bundle = connection.getSslBundle();
		if (bundle != null) {
			// Boot's engine factory reads the bundle from the client's configuration.
			properties.put(SslConfigs.SSL_ENGINE_FACTORY_CLASS_CONFIG, SslBundleSslEngineFactory.class);
			properties.put(SslBundle.class.getName(), bundle);
		}
		return properties;
	}

}
