package io.postlog.consumer.checkpoint;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ChunkMarkTests {

	@Test
	void toStringNamesThePartButNotTheKeyWhichIsARowValue() {
		ChunkMark mark = new ChunkMark("b-1", 2, List.of("secret@example.com", "42"), false);
		assertThat(mark.toString()).contains("b-1", "ordinal=2", "2 key columns", "done=false")
			.doesNotContain("secret@example.com")
			.doesNotContain("42]");
		assertThat(new ChunkMark("b-1", 0, null, true).toString()).contains("afterKey=null", "done=true");
	}

}
