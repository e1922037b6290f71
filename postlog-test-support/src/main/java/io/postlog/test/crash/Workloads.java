package io.postlog.test.crash;

/**
 * The {@link SourceWriter.Transaction workloads} several crash proofs share. Each draws
 * only from the writer's random stream, so a seed replays it.
 */
public final class Workloads {

	private Workloads() {
	}

	/**
	 * Inserts 1 to 1,500 new rows {@code (k, 1)} with consecutive keys from
	 * {@link SourceWriter.Tally#nextKey()} (70% of transactions 1 to 5 rows, 25% 10 to
	 * 99, 5% 200 to 1,499); half of the transactions also add one to {@code v} of one of
	 * the first 50 keys, so that few keys get many versions to keep in order.
	 * @param table a table {@code (k bigint PRIMARY KEY, v int NOT NULL)}, its keys
	 * written only by this workload
	 * @return the workload
	 */
	public static SourceWriter.Transaction insertsWithUpdates(String table) {
		return (statement, tally) -> {
			int dice = tally.random().nextInt(100);
			int size = (dice < 70) ? 1 + tally.random().nextInt(5)
					: (dice < 95) ? 10 + tally.random().nextInt(90) : 200 + tally.random().nextInt(1300);
			long from = tally.nextKey();
			statement.execute("INSERT INTO " + table + " SELECT g, 1 FROM generate_series(" + from + ", "
					+ (from + size - 1) + ") g");
			tally.inserted(size);
			if (from > 1 && tally.random().nextBoolean()) {
				long key = 1 + tally.random().nextInt((int) Math.min(50, from - 1));
				tally.updated(statement.executeUpdate("UPDATE " + table + " SET v = v + 1 WHERE k = " + key));
			}
		};
	}

	/**
	 * Three changes per transaction, each an insert of a new row (4 in 10), an update of
	 * {@code a} and {@code b} (4 in 10) or a delete (2 in 10) of a random key below the
	 * next new one; new rows take consecutive keys from
	 * {@link SourceWriter.Tally#nextKey()} (set the writer's first key above the rows
	 * loaded before).
	 * @param table a table {@code (id bigint PRIMARY KEY, a int NOT NULL, b text)}
	 * @return the workload
	 */
	public static SourceWriter.Transaction churn(String table) {
		return (statement, tally) -> {
			for (int i = 0; i < 3; i++) {
				int choice = tally.random().nextInt(10);
				if (choice < 4) {
					statement.executeUpdate("INSERT INTO " + table + " VALUES (" + tally.nextKey() + ", "
							+ tally.random().nextInt(1000) + ", md5(random()::text))");
					tally.inserted(1);
				}
				else {
					long key = 1 + (long) (tally.random().nextDouble() * (tally.nextKey() - 1));
					if (choice < 8) {
						tally.updated(statement.executeUpdate(
								"UPDATE " + table + " SET a = a + 1, b = md5(random()::text) WHERE id = " + key));
					}
					else {
						statement.executeUpdate("DELETE FROM " + table + " WHERE id = " + key);
					}
				}
			}
		};
	}

}
