package io.postlog.spring.boot.autoconfigure;

import io.postlog.spring.ListenerBindingException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a {@link ListenerBindingException}: a record listener cannot be bound strictly
 * from its table.
 */
class ListenerBindingFailureAnalyzer extends AbstractFailureAnalyzer<ListenerBindingException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, ListenerBindingException cause) {
		return new FailureAnalysis(cause.getMessage() + ".",
				"Record listeners are bound strictly: every component must match a column (snake_case columns match "
						+ "camelCase components), and a primitive component needs a column that is NOT NULL and "
						+ "present in every row the listener receives. Change the component as suggested, or take a "
						+ "Row, Map<String, Object> or Change parameter instead.",
				cause);
	}

}
