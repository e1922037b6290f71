package io.postlog.spring.boot.autoconfigure;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WARN for {@code postlog.*} properties postlog does not have, read from the module's
 * generated configuration metadata: each unknown name once, with the nearest valid one;
 * every relaxed form of a known name, group map keys and list indexes pass.
 */
@ExtendWith(OutputCaptureExtension.class)
class PostlogPropertiesCheckTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PostlogPropertiesCheckAutoConfiguration.class));

	@Test
	void aMisspelledPropertyIsNamedWithTheNearestValidOne(CapturedOutput output) {
		this.runner.withPropertyValues("postlog.slot.nmae=orders").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(warnings(output)).singleElement()
				.satisfies((line) -> assertThat(line).contains(
						"postlog.slot.nmae is not a postlog property; did you mean postlog.slot.name?",
						"\"postlog.slot.nmae\" from property source"));
		});
	}

	@Test
	void misspellingsInsideGroupsAndNestedSettingsAreNamed(CapturedOutput output) {
		this.runner
			.withPropertyValues("postlog.groups.search.slot.nmae=s", "postlog.snapshot.max-queued-backfils=4",
					"postlog.endpoint.show-exception-mesages=true")
			.run((context) -> assertThat(warnings(output)).hasSize(3)
				.anySatisfy((line) -> assertThat(line).contains("postlog.groups.search.slot.nmae is not a postlog "
						+ "property; did you mean postlog.groups.search.slot.name?"))
				.anySatisfy((line) -> assertThat(line).contains("did you mean postlog.snapshot.max-queued-backfills?"))
				.anySatisfy(
						(line) -> assertThat(line).contains("did you mean postlog.endpoint.show-exception-messages?")));
	}

	@Test
	void aNameNearNothingIsStillReported(CapturedOutput output) {
		this.runner.withPropertyValues("postlog.completely-unrelated=1")
			.run((context) -> assertThat(warnings(output)).singleElement()
				.satisfies((line) -> assertThat(line)
					.contains("postlog.completely-unrelated is not a postlog property; it is ignored")
					.doesNotContain("did you mean")));
	}

	@Test
	void everyFormOfAValidNameGroupKeysAndListIndexesPass(CapturedOutput output) {
		this.runner
			.withPropertyValues("postlog.slot.name=a", "postlog.snapshot.maxQueuedBackfills=3",
					"postlog.snapshot.max_queued_backfills=3", "postlog.endpoint.show-exception-messages=true",
					"postlog.groups.search.slot.name=b", "postlog.groups.search.publication.name=c",
					"postlog.tables[0]=public.orders", "postlog.tables=public.orders", "postlog.retry.max-attempts=3",
					"postlog.health.max-lag=10MB", "other.thing=1")
			.run((context) -> assertThat(warnings(output)).isEmpty());
	}

	@Test
	void environmentVariablesAreCheckedAsBootMapsThem(CapturedOutput output) {
		this.runner
			.withInitializer((context) -> context.getEnvironment()
				.getPropertySources()
				.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
						new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
								Map.of("POSTLOG_SLOT_NAME", "ok", "POSTLOG_PUBLICATION_NAEM", "typo"))))
			.run((context) -> assertThat(warnings(output)).singleElement()
				.satisfies((line) -> assertThat(line).contains(
						"postlog.publication.naem is not a postlog property; did you mean postlog.publication.name?",
						"POSTLOG_PUBLICATION_NAEM")));
	}

	@Test
	void systemPropertiesAreNotChecked(CapturedOutput output) {
		System.setProperty("postlog.some-test-harness-setting", "1");
		try {
			this.runner.run((context) -> assertThat(warnings(output)).isEmpty());
		}
		finally {
			System.clearProperty("postlog.some-test-harness-setting");
		}
	}

	private static List<String> warnings(CapturedOutput output) {
		return Arrays.stream(output.getAll().split("\\R"))
			.filter((line) -> line.contains("is not a postlog property"))
			.toList();
	}

}
