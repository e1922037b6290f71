package io.postlog.kafka.autoconfigure;

import java.util.Arrays;
import java.util.List;

import io.postlog.spring.boot.autoconfigure.PostlogPropertiesCheckAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The unknown-property warning reads this module's configuration metadata beside the
 * autoconfigure module's: {@code postlog.kafka.*} names are known, and a misspelled one
 * gets the nearest.
 */
@ExtendWith(OutputCaptureExtension.class)
class PostlogKafkaPropertyNamesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PostlogPropertiesCheckAutoConfiguration.class));

	@Test
	void kafkaPropertiesAreKnownAndAMisspelledOneIsNamed(CapturedOutput output) {
		this.runner
			.withPropertyValues("postlog.kafka.enabled=true", "postlog.kafka.offsets-topic=offsets",
					"postlog.kafka.batch-transactions=10", "postlog.slot.name=relay", "postlog.kafka.ofsets-topic=typo")
			.run((context) -> assertThat(warnings(output)).singleElement()
				.satisfies((line) -> assertThat(line).contains(
						"postlog.kafka.ofsets-topic is not a postlog property; did you mean postlog.kafka.offsets-topic?")));
	}

	private static List<String> warnings(CapturedOutput output) {
		return Arrays.stream(output.getAll().split("\\R"))
			.filter((line) -> line.contains("is not a postlog property"))
			.toList();
	}

}
