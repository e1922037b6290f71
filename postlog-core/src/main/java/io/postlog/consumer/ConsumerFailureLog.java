package io.postlog.consumer;

import java.sql.SQLException;

import io.postlog.Lsn;
import io.postlog.admin.PgErrors;
import org.slf4j.Logger;

/**
 * The error line a consumer's failure is logged with, value-free (DESIGN.md, "Delivery
 * contract", value-free errors): the slot, the acknowledged position and the failure's
 * description; a handler's exception is not logged again (it was with each failed
 * attempt), and of a server's error only its SQLState and condition are, never its text,
 * which can quote row values (a DETAIL on a connection of the application's pool), nor
 * its stack trace. Logs under the category of the loop it is given, whose line it is.
 */
final class ConsumerFailureLog {

	private ConsumerFailureLog() {
	}

	/**
	 * Logs the failure the consumer ends with.
	 * @param logger the delivery loop's logger
	 * @param slotName the consumer's slot
	 * @param acked the acknowledged position, where the slot stays
	 * @param cause the failure
	 */
	static void failed(Logger logger, String slotName, Lsn acked, Throwable cause) {
		if (cause instanceof HandlerFailedException) {
			// Its handler's exception was logged with each failed attempt.
			logger.error("Consumer of slot {} failed; the acknowledged position stays at {}: {}", slotName, acked,
					Failures.describe(cause));
		}
		else {
			// A server's error can quote row values (a DETAIL on a connection of the
			// application's pool): its SQLState is logged, not its text.
			SQLException server = PgErrors.serverError(cause);
			String described = Failures.describe(cause);
			if (server != null && !described.contains("SQLState " + PgErrors.sqlState(server))) {
				described += " (" + PgErrors.describe(server) + ")";
			}
			logger.error("Consumer of slot {} failed; the acknowledged position stays at {}: {}", slotName, acked,
					described, (server != null) ? null : cause);
		}
	}

}
