package io.postlog.snapshot;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ChunkTests {

	private static final Pattern BLOCKS = Pattern
		.compile("ctid >= '\\((\\d+),0\\)'::tid(?: AND ctid < '\\((\\d+),0\\)'::tid)?");

	private static final Pattern KEYS = Pattern.compile("(?:\"id\" >= (-?\\d+))?(?: AND )?(?:\"id\" < (-?\\d+))?");

	@Test
	void blockRangesCoverEveryBlockContiguouslyAndTheLastIsOpenEnded() {
		List<Chunk> chunks = Chunk.blockRanges(1000, 50, 5_000);
		assertThat(chunks).hasSize(10);
		long expectedFrom = 0;
		for (Chunk chunk : chunks) {
			Matcher matcher = BLOCKS.matcher(chunk.where());
			assertThat(matcher.matches()).as(chunk.where()).isTrue();
			assertThat(Long.parseLong(matcher.group(1))).isEqualTo(expectedFrom);
			if (chunk.index() == chunks.size() - 1) {
				assertThat(matcher.group(2)).isNull();
			}
			else {
				expectedFrom = Long.parseLong(matcher.group(2));
				assertThat(expectedFrom).isEqualTo((chunk.index() + 1) * 100L);
			}
		}
	}

	@Test
	void blockRangesOfAnEmptyTableAreOneOpenChunk() {
		assertThat(Chunk.blockRanges(0, 0, 100)).containsExactly(new Chunk(0, "ctid >= '(0,0)'::tid", "blocks from 0",
				new Chunk.Bounds(ChunkRange.Kind.BLOCKS, null, null, null)));
	}

	@Test
	void blockRangesWithoutDensityAssumeADefault() {
		assertThat(Chunk.blockRanges(1000, 0, 10_000)).hasSize(10);
	}

	@Test
	void blockRangesAreCappedInNumber() {
		assertThat(Chunk.blockRanges(4_000_000_000L, 100, 1)).hasSize(Chunk.MAX_CHUNKS);
	}

	@Test
	void keyRangesCoverTheWholeLongRangeWithoutOverflow() {
		List<Chunk> chunks = Chunk.keyRanges("\"id\"", "id", Long.MIN_VALUE, Long.MAX_VALUE, 10, 3);
		assertThat(chunks).hasSize(4);
		assertThat(chunks.get(0).where()).startsWith("\"id\" < ");
		assertThat(chunks.get(3).where()).startsWith("\"id\" >= ").doesNotContain("<");
		String previousUpper = null;
		for (Chunk chunk : chunks) {
			Matcher matcher = KEYS.matcher(chunk.where());
			assertThat(matcher.matches()).as(chunk.where()).isTrue();
			if (previousUpper != null) {
				assertThat(matcher.group(1)).isEqualTo(previousUpper);
			}
			previousUpper = matcher.group(2);
		}
	}

	@Test
	void keyRangesUseTheSpanWhenTheEstimateIsUnknown() {
		List<Chunk> chunks = Chunk.keyRanges("\"id\"", "id", 1, 1000, -1, 100);
		assertThat(chunks).hasSize(10);
		assertThat(chunks.get(1).where()).isEqualTo("\"id\" >= 101 AND \"id\" < 201");
	}

	@Test
	void keyRangesOfOneKeyOrFewRowsAreTheWholeTable() {
		assertThat(Chunk.keyRanges("\"id\"", "id", 5, 5, 1, 100)).singleElement()
			.satisfies((chunk) -> assertThat(chunk.where()).isNull());
		assertThat(Chunk.keyRanges("\"id\"", "id", 1, 1_000_000, 50, 100)).hasSize(1);
	}

	@Test
	void descriptionsHoldNoKeyValues() {
		assertThat(Chunk.keyRanges("\"id\"", "id", 123456789, 987654321, 1000, 100))
			.allSatisfy((chunk) -> assertThat(chunk.description()).doesNotContain("123456789").contains("column id"));
	}

}
