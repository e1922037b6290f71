package io.postlog.snapshot;

import java.time.Duration;

import io.postlog.admin.InvalidIdentifierException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class SnapshotOptionsTests {

	@Test
	void defaultsAreTwoReadersOfHundredThousandRowChunksInBinary() {
		assertThat(SnapshotOptions.defaults())
			.isEqualTo(new SnapshotOptions(2, 100_000, true, null, Duration.ofSeconds(5)));
	}

	@Test
	void withersChangeOneComponent() {
		SnapshotOptions options = SnapshotOptions.defaults()
			.withParallelism(4)
			.withChunkSize(10)
			.withBinary(false)
			.withPublication("pub")
			.withProgressInterval(Duration.ofSeconds(1));
		assertThat(options).isEqualTo(new SnapshotOptions(4, 10, false, "pub", Duration.ofSeconds(1)));
	}

	@Test
	void invalidValuesAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> SnapshotOptions.defaults().withParallelism(0));
		assertThatIllegalArgumentException().isThrownBy(() -> SnapshotOptions.defaults().withParallelism(65));
		assertThatIllegalArgumentException().isThrownBy(() -> SnapshotOptions.defaults().withChunkSize(0));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> SnapshotOptions.defaults().withProgressInterval(Duration.ZERO));
		assertThatExceptionOfType(InvalidIdentifierException.class)
			.isThrownBy(() -> SnapshotOptions.defaults().withPublication(""));
	}

}
