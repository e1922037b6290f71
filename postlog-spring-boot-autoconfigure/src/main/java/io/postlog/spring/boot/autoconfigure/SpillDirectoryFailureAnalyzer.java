package io.postlog.spring.boot.autoconfigure;

import io.postlog.consumer.spill.SpillDirectoryException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link SpillDirectoryException}: the directory that streamed transactions
 * spill under is not a directory, cannot be created, or is not writable.
 */
class SpillDirectoryFailureAnalyzer extends AbstractFailureAnalyzer<SpillDirectoryException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, SpillDirectoryException cause) {
		return new FailureAnalysis(
				"postlog.streaming.enabled=true spills large in-progress transactions to disk, but spill directory "
						+ cause.directory() + " cannot be used: " + cause.reason() + ".",
				"Point postlog.streaming.spill-directory at a directory this process can create files in, on a disk "
						+ "with room for postlog.streaming.max-spill (a tmpfs holds spill files in memory), or set "
						+ "postlog.streaming.max-spill=0 to spill nothing.",
				cause);
	}

}
