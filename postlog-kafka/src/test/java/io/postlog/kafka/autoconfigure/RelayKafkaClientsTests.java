package io.postlog.kafka.autoconfigure;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaConnectionDetails;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.kafka.autoconfigure.SslBundleSslEngineFactory;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The relay's Kafka clients are configured as Boot configures its own: the SSL bundle,
 * security protocol and servers of the connection details, for each client.
 */
class RelayKafkaClientsTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, KafkaAutoConfiguration.class));

	@Test
	void everyClientTakesTheSslBundleNamedBySpringKafkaSsl() {
		this.runner
			.withPropertyValues("spring.kafka.bootstrap-servers=kafka.example:9093",
					"spring.kafka.security.protocol=SSL", "spring.kafka.ssl.bundle=relay",
					"spring.ssl.bundle.pem.relay.truststore.certificate=classpath:ssl/relay-ca.crt",
					"spring.kafka.producer.properties.linger.ms=7")
			.run((context) -> {
				KafkaProperties properties = context.getBean(KafkaProperties.class);
				KafkaConnectionDetails connection = context.getBean(KafkaConnectionDetails.class);
				SslBundle bundle = context.getBean(SslBundles.class).getBundle("relay");
				for (Map<String, Object> client : List.of(RelayKafkaClients.producer(properties, connection),
						RelayKafkaClients.consumer(properties, connection),
						RelayKafkaClients.admin(properties, connection))) {
					assertThat(client).containsEntry("bootstrap.servers", List.of("kafka.example:9093"))
						.containsEntry("security.protocol", "SSL")
						.containsEntry("ssl.engine.factory.class", SslBundleSslEngineFactory.class)
						.containsEntry(SslBundle.class.getName(), bundle);
				}
				assertThat(RelayKafkaClients.producer(properties, connection)).containsEntry("linger.ms", "7");
			});
	}

	@Test
	void theProducerTakesItsOwnBundleWhenItHasOne() {
		this.runner
			.withPropertyValues("spring.kafka.ssl.bundle=relay", "spring.kafka.producer.ssl.bundle=producer",
					"spring.ssl.bundle.pem.relay.truststore.certificate=classpath:ssl/relay-ca.crt",
					"spring.ssl.bundle.pem.producer.truststore.certificate=classpath:ssl/relay-ca.crt")
			.run((context) -> {
				KafkaProperties properties = context.getBean(KafkaProperties.class);
				KafkaConnectionDetails connection = context.getBean(KafkaConnectionDetails.class);
				SslBundles bundles = context.getBean(SslBundles.class);
				assertThat(RelayKafkaClients.producer(properties, connection)).containsEntry(SslBundle.class.getName(),
						bundles.getBundle("producer"));
				assertThat(RelayKafkaClients.consumer(properties, connection)).containsEntry(SslBundle.class.getName(),
						bundles.getBundle("relay"));
			});
	}

	@Test
	void aServiceConnectionsServersWinOverSpringKafka() {
		KafkaConnectionDetails serviceConnection = () -> List.of("container:19092");
		this.runner.withPropertyValues("spring.kafka.bootstrap-servers=kafka.example:9093")
			.withBean(KafkaConnectionDetails.class, () -> serviceConnection)
			.run((context) -> {
				KafkaProperties properties = context.getBean(KafkaProperties.class);
				KafkaConnectionDetails connection = context.getBean(KafkaConnectionDetails.class);
				assertThat(connection).isSameAs(serviceConnection);
				Map<String, Object> producer = RelayKafkaClients.producer(properties, connection);
				assertThat(producer).containsEntry("bootstrap.servers", List.of("container:19092"))
					.doesNotContainKey("ssl.engine.factory.class");
			});
	}

}
