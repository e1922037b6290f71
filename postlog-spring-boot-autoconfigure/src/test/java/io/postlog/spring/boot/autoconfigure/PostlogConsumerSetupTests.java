package io.postlog.spring.boot.autoconfigure;

import java.util.List;

import io.postlog.TableId;
import io.postlog.decoder.TableSelection;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;
import io.postlog.snapshot.SnapshotConnections;
import io.postlog.stream.ReplicationConnectionFactory;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.PlatformTransactionManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The group's decoder from {@code postlog.decoder} and its properties, planned before any
 * connection is opened (the data source points at a closed port).
 */
class PostlogConsumerSetupTests {

	private static final String URL = "jdbc:postgresql://127.0.0.1:1/none";

	private final PostlogProperties properties = new PostlogProperties();

	@Test
	void pgoutputReadsTheGroupsPublication() {
		this.properties.getPublication().setName("orders_pub");
		assertThat(selection(PostlogConsumerGroup.DEFAULT, List.of()))
			.isEqualTo(new TableSelection.Publications(List.of("orders_pub")));
	}

	@Test
	void wal2jsonReadsPostlogTablesOrTheListenersTables() {
		this.properties.setDecoder(PostlogProperties.Decoder.WAL2JSON);
		assertThat(selection(PostlogConsumerGroup.DEFAULT, List.of(TableId.parse("orders"))))
			.isEqualTo(new TableSelection.Tables(List.of(TableId.parse("public.orders"))));
		this.properties.setTables(List.of("shop.items"));
		assertThat(selection(PostlogConsumerGroup.DEFAULT, List.of(TableId.parse("orders"))))
			.isEqualTo(new TableSelection.Tables(List.of(TableId.parse("shop.items"))));
	}

	@Test
	void wal2jsonRefusesAGroupReadingEveryTable() {
		this.properties.setDecoder(PostlogProperties.Decoder.WAL2JSON);
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> selection(PostlogConsumerGroup.DEFAULT, List.of()))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("postlog.tables"))
			.withMessageContaining("wal2json streams the tables it is given");
	}

	@Test
	void pglogicalReadsTheConfiguredReplicationSetsAndRefusesNone() {
		this.properties.setDecoder(PostlogProperties.Decoder.PGLOGICAL);
		assertThat(selection(PostlogConsumerGroup.DEFAULT, List.of()))
			.isEqualTo(new TableSelection.ReplicationSets(List.of("default")));
		this.properties.getPglogical().setReplicationSets(List.of("orders", "audit"));
		assertThat(selection(PostlogConsumerGroup.DEFAULT, List.of()))
			.isEqualTo(new TableSelection.ReplicationSets(List.of("orders", "audit")));
		this.properties.getPglogical().setReplicationSets(List.of());
		assertThatExceptionOfType(InvalidConfigurationPropertyValueException.class)
			.isThrownBy(() -> selection(PostlogConsumerGroup.DEFAULT, List.of()))
			.satisfies((ex) -> assertThat(ex.getName()).isEqualTo("postlog.pglogical.replication-sets"));
	}

	@Test
	void theGroupOfTheApplicationsSlotSharesItsMonitorAndOtherGroupsHaveTheirOwn() {
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.postgresql.Driver(), URL);
		PostlogSlotMonitor shared = new PostlogSlotMonitor(dataSource, this.properties.getSlot().getName(),
				this.properties.getPublication().getName());
		PostlogConsumerSetup setup = new PostlogConsumerSetup(this.properties, dataSource,
				ReplicationConnectionFactory.of(URL, "postgres", null), SnapshotConnections.of(dataSource), null,
				new StaticListableBeanFactory().getBeanProvider(PlatformTransactionManager.class), null, shared);
		assertThat(setup.prepare(PostlogConsumerGroup.DEFAULT, List.of()).monitor()).isSameAs(shared);
		PostlogSlotMonitor search = setup.prepare("search", List.of()).monitor();
		assertThat(search).isNotSameAs(shared);
		assertThat(search.slotName()).isEqualTo(this.properties.slotName("search"));
	}

	private TableSelection selection(String group, List<TableId> listenerTables) {
		SimpleDriverDataSource dataSource = new SimpleDriverDataSource(new org.postgresql.Driver(), URL);
		PostlogConsumerSetup setup = new PostlogConsumerSetup(this.properties, dataSource,
				ReplicationConnectionFactory.of(URL, "postgres", null), SnapshotConnections.of(dataSource), null,
				new StaticListableBeanFactory().getBeanProvider(PlatformTransactionManager.class));
		PostlogListenerRegistry.GroupPlan plan = setup.prepare(group, listenerTables);
		return plan.decoder().tableSelection();
	}

}
