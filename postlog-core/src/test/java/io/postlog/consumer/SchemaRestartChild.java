package io.postlog.consumer;

import java.time.Duration;
import java.util.List;

import io.postlog.TableId;
import io.postlog.admin.SlotLifecycle;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A consumer for {@link SchemaChangeRestartIntegrationTests} to run in a child JVM: with
 * {@link JdbcCheckpointStore} and a schema handler, it prints each change's key and
 * commit LSN and each schema change's kind, until the parent kills it.
 */
final class SchemaRestartChild {

	private SchemaRestartChild() {
	}

	/**
	 * Runs the consumer until killed.
	 * @param args JDBC URL, user, slot, table
	 * @throws Exception if the consumer cannot start
	 */
	public static void main(String[] args) throws Exception {
		PGSimpleDataSource dataSource = new PGSimpleDataSource();
		dataSource.setURL(args[0]);
		dataSource.setUser(args[1]);
		ReplicationConsumer consumer = ReplicationConsumer.builder()
			.jdbcUrl(args[0], args[1], null)
			.slotName(args[2])
			.slotLifecycle(SlotLifecycle.CREATE_IF_MISSING)
			.publicationName(args[2] + "_pub")
			.tables(List.of(new TableId("public", args[3])))
			.statusInterval(Duration.ofSeconds(1))
			.checkpointStore(JdbcCheckpointStore.of(dataSource, args[2]))
			.subscribe(Subscription.onChange("recorder", (ChangeHandler) (change) -> {
				System.out.println("change " + change.after().get("id") + " " + change.commitLsn());
				System.out.flush();
			}).withSchemaHandler((change) -> {
				System.out.println("schema " + change.kind());
				System.out.flush();
			}))
			.build();
		consumer.start();
		System.out.println("started");
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
