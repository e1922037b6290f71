package io.postlog.benchmarks;

import java.nio.ByteBuffer;

import io.postlog.pgoutput.PgOutputDecoder;
import io.postlog.pgoutput.PgOutputMessage;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PgOutputDecoderBenchmarkTests {

	@Test
	void benchmarkMessagesAreAnInsertAnUpdateAndADeleteInEachFormat() {
		for (String format : new String[] { "text", "binary" }) {
			ByteBuffer[] messages = PgOutputDecoderBenchmark.load(format);
			assertThat(PgOutputDecoder.decode(messages[0])).isInstanceOf(PgOutputMessage.Insert.class);
			assertThat(PgOutputDecoder.decode(messages[1])).isInstanceOf(PgOutputMessage.Update.class);
			assertThat(PgOutputDecoder.decode(messages[2])).isInstanceOf(PgOutputMessage.Delete.class);
		}
	}

}
