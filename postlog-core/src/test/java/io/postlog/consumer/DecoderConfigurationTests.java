package io.postlog.consumer;

import java.util.List;

import io.postlog.ReplicationConsumerException;
import io.postlog.TableId;
import io.postlog.decoder.PgLogicalDecoder;
import io.postlog.decoder.PgOutputLogicalDecoder;
import io.postlog.decoder.Wal2JsonDecoder;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What {@link ReplicationConsumer.Builder#build()} checks of a decoder before anything
 * touches the server.
 */
class DecoderConfigurationTests {

	private final FakeServer server = new FakeServer();

	@Test
	void pluginDecodersNeedAnAdminConnectionForTheCatalog() {
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().decoder(Wal2JsonDecoder.forTables(List.of(TableId.parse("t")))).build())
			.withMessageContaining("Decoder wal2json reads the catalog")
			.withMessageContaining("admin connection");
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().decoder(PgLogicalDecoder.forReplicationSets(List.of("default"))).build())
			.withMessageContaining("Decoder pglogical reads the catalog");
	}

	@Test
	void aPgoutputDecoderMustStreamTheConsumersPublication() {
		assertThatExceptionOfType(ReplicationConsumerException.class)
			.isThrownBy(() -> builder().publicationName("orders")
				.decoder(PgOutputLogicalDecoder.forPublications(List.of("other")))
				.build())
			.withMessageContaining("a pgoutput decoder streams the consumer's publication 'orders'")
			.withMessageContaining("publicationName");
		assertThat(builder().publicationName("orders")
			.decoder(PgOutputLogicalDecoder.forPublications(List.of("orders")))
			.build()
			.state()).isEqualTo(ConsumerState.STOPPED);
	}

	private ReplicationConsumer.Builder builder() {
		return ReplicationConsumer.builder().streamFactory(this.server).changeHandler((change) -> {
		});
	}

}
