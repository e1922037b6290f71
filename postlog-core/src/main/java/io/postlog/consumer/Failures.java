package io.postlog.consumer;

import java.sql.SQLException;

import io.postlog.PostlogException;
import io.postlog.ReplicationConsumerException;
import io.postlog.admin.ConnectionLostException;
import io.postlog.admin.InsufficientPrivilegeException;
import io.postlog.admin.InvalidIdentifierException;
import io.postlog.admin.PgErrors;
import io.postlog.admin.PublicationNotFoundException;
import io.postlog.admin.SlotConflictException;
import io.postlog.admin.SlotInUseException;
import io.postlog.admin.SlotLostException;
import io.postlog.admin.SlotNotFoundException;
import io.postlog.admin.SlotPluginMismatchException;
import io.postlog.admin.WalLevelException;
import io.postlog.decoder.DecoderRefusedException;
import io.postlog.decoder.PluginDecodingException;
import io.postlog.pgoutput.PgOutputDecodingException;
import io.postlog.pgoutput.RowDecodingException;
import io.postlog.snapshot.InvalidSnapshotNameException;
import io.postlog.snapshot.SnapshotReadException;
import io.postlog.snapshot.SnapshotRefusedException;
import io.postlog.types.ValueDecodingException;

/**
 * What the consumer does about a failure ({@link #classify}) and how it is told without a
 * handler's own message ({@link #describe}). Pure functions, used by the delivery loop
 * and every part that logs a failure.
 */
final class Failures {

	private Failures() {
	}

	/**
	 * Sorts a failure by what the consumer does about it.
	 */
	static Outcome classify(Throwable failure) {
		if (failure instanceof HandlerFailedException) {
			// A handler's exception is its own failure whatever its SQLState: only
			// postlog's own connections fail as connection loss.
			return Outcome.FATAL;
		}
		if (failure instanceof SlotInUseException) {
			return Outcome.STANDBY;
		}
		if (failure instanceof ConnectionLostException || connectionFailed(failure)) {
			return Outcome.CONNECTION;
		}
		if (failure instanceof SnapshotRefusedException || failure instanceof InvalidSnapshotNameException
				|| failure instanceof SlotConflictException || failure instanceof SlotPluginMismatchException
				|| (failure instanceof SnapshotReadException && failure.getCause() instanceof ValueDecodingException)) {
			return Outcome.FATAL;
		}
		if (failure instanceof SlotNotFoundException || failure instanceof PublicationNotFoundException
				|| failure instanceof InsufficientPrivilegeException || failure instanceof InvalidIdentifierException
				|| failure instanceof WalLevelException || failure instanceof SlotLostException
				|| failure instanceof ReplicationConsumerException || failure instanceof HandlerFailedException
				|| failure instanceof PgOutputDecodingException || failure instanceof PluginDecodingException
				|| failure instanceof DecoderRefusedException || failure instanceof RowDecodingException
				|| failure instanceof ValueDecodingException || failure instanceof Error) {
			return Outcome.FATAL;
		}
		return Outcome.OTHER;
	}

	/**
	 * Returns whether a failure on an ordinary connection (a snapshot reader's, an admin
	 * connection's) was the connection's: its cause keeps the server's SQLState.
	 */
	private static boolean connectionFailed(Throwable failure) {
		return failure instanceof PostlogException && failure.getCause() instanceof SQLException sql
				&& PgErrors.isConnectionFailure(sql);
	}

	/**
	 * Describes a failure without a handler's own message, which may quote row values.
	 */
	static String describe(Throwable failure) {
		if (failure instanceof HandlerFailedException && failure.getCause() != null) {
			return failure.getMessage() + " (" + failure.getCause().getClass().getName() + ")";
		}
		if (failure instanceof PostlogException) {
			return failure.getClass().getSimpleName() + ": " + failure.getMessage();
		}
		return failure.getClass().getName();
	}

	/**
	 * What a failure leads to.
	 */
	enum Outcome {

		/** Another process holds the slot: wait, using no attempts. */
		STANDBY,

		/** The connection is gone: reconnect, without a limit. */
		CONNECTION,

		/** Retrying cannot help: {@code FAILED}. */
		FATAL,

		/** Unexpected: retried within the retry policy's attempts. */
		OTHER

	}

}
