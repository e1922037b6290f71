package io.postlog.integration.autoconfigure;

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
 * The unknown-property warning reads this module's configuration metadata:
 * {@code postlog.integration.*} names are known, and a misspelled one gets the nearest.
 */
@ExtendWith(OutputCaptureExtension.class)
class PostlogIntegrationPropertyNamesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PostlogPropertiesCheckAutoConfiguration.class));

	@Test
	void integrationPropertiesAreKnownAndAMisspelledOneIsNamed(CapturedOutput output) {
		this.runner
			.withPropertyValues("postlog.integration.inbound.channel=changes",
					"postlog.integration.inbound.error-channel=errors", "postlog.integration.inbound.tables=orders",
					"postlog.integration.inbound.chanel=typo")
			.run((context) -> assertThat(warnings(output)).singleElement()
				.satisfies((line) -> assertThat(line).contains("postlog.integration.inbound.chanel is not a postlog "
						+ "property; did you mean postlog.integration.inbound.channel?")));
	}

	private static List<String> warnings(CapturedOutput output) {
		return Arrays.stream(output.getAll().split("\\R"))
			.filter((line) -> line.contains("is not a postlog property"))
			.toList();
	}

}
