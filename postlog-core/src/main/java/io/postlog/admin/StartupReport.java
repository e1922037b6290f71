package io.postlog.admin;

import java.util.List;

import io.postlog.PostlogException;
import org.slf4j.Logger;

/**
 * The findings of one run of {@link StartupChecks}, in the order the checks ran.
 * Immutable.
 *
 * @param findings every finding; empty when all is well
 */
public record StartupReport(List<StartupFinding> findings) {

	/**
	 * Creates a report.
	 * @param findings the findings
	 */
	public StartupReport {
		findings = List.copyOf(findings);
	}

	/**
	 * Returns the failures.
	 * @return the findings that must stop start-up
	 */
	public List<StartupFinding> failures() {
		return this.findings.stream()
			.filter((finding) -> finding.severity() == StartupFinding.Severity.FAILURE)
			.toList();
	}

	/**
	 * Returns the warnings.
	 * @return the findings to log
	 */
	public List<StartupFinding> warnings() {
		return this.findings.stream()
			.filter((finding) -> finding.severity() == StartupFinding.Severity.WARNING)
			.toList();
	}

	/**
	 * Returns the finding of one check.
	 * @param check the check
	 * @return its findings, usually none or one
	 */
	public List<StartupFinding> of(StartupFinding.Check check) {
		return this.findings.stream().filter((finding) -> finding.check() == check).toList();
	}

	/**
	 * Throws the first failure's exception, with the other failures' exceptions added as
	 * suppressed; does nothing without failures.
	 * @throws PostlogException the first failure
	 */
	public void throwIfFailed() {
		List<StartupFinding> failures = failures();
		if (failures.isEmpty()) {
			return;
		}
		PostlogException first = failures.get(0).failure();
		for (StartupFinding other : failures.subList(1, failures.size())) {
			first.addSuppressed(other.failure());
		}
		throw first;
	}

	/**
	 * Logs each warning at WARN, with its fix.
	 * @param logger the logger to use
	 */
	public void logWarnings(Logger logger) {
		for (StartupFinding warning : warnings()) {
			logger.warn("{}. {}", warning.message(), warning.fix());
		}
	}

}
