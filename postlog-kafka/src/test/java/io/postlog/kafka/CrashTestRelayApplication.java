package io.postlog.kafka;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application whose only work is the Kafka relay, configured by its
 * command-line arguments, for {@link KafkaRelayCrashIntegrationTests} to run in a child
 * JVM and kill. Prints {@code started} once the relay runs; stops cleanly when its
 * standard input closes.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class CrashTestRelayApplication {

	public static void main(String[] args) throws Exception {
		try (ConfigurableApplicationContext context = SpringApplication.run(CrashTestRelayApplication.class, args)) {
			System.out.println("started");
			System.out.flush();
			while (System.in.read() != -1) {
				// Wait for the parent to close standard input.
			}
		}
	}

}
