package io.postlog.integration.docs;

import java.util.Map;

import io.postlog.Lsn;

/**
 * The application's own search index that the flow of {@link OrderFlows} writes to.
 */
interface SearchIndex {

	/**
	 * Puts a document, unless the index holds a newer version of it.
	 * @param id the document's id
	 * @param document the document
	 * @param version its version
	 */
	void put(Object id, Map<String, Object> document, Lsn version);

}
