package io.postlog.spring.boot.health;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import io.postlog.heartbeat.HeartbeatTracker;
import io.postlog.spring.PostlogConsumerGroup;
import io.postlog.spring.PostlogListenerRegistry;
import io.postlog.spring.PostlogSlotMonitor;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.util.unit.DataSize;

/**
 * The {@code postlog} health component: one {@link PostlogHealthIndicator} per consumer
 * group, named after the group ({@code default} for the default group). Before the
 * registry starts, or without listeners, it holds {@code default}, reporting the default
 * slot with state {@code NOT_STARTED}. Heartbeats are the default group's. Thread-safe.
 */
public class PostlogHealthContributor implements CompositeHealthContributor {

	private final PostlogListenerRegistry registry;

	private final PostlogSlotMonitor defaultMonitor;

	private final @Nullable DataSize maxLag;

	private final @Nullable DataSize maxRetained;

	private final double maxRetainedRatio;

	private final @Nullable HeartbeatTracker heartbeats;

	private final Map<String, PostlogHealthIndicator> indicators = new ConcurrentHashMap<>();

	/**
	 * Creates the contributor with only a lag limit.
	 * @param registry the listener registry
	 * @param defaultMonitor reads the default group's slot, before the registry starts
	 * @param maxLag lag above which a group is DOWN, or {@code null} for no limit
	 */
	public PostlogHealthContributor(PostlogListenerRegistry registry, PostlogSlotMonitor defaultMonitor,
			@Nullable DataSize maxLag) {
		this(registry, defaultMonitor, maxLag, null, 0.5, null);
	}

	/**
	 * Creates the contributor.
	 * @param registry the listener registry
	 * @param defaultMonitor reads the default group's slot, before the registry starts
	 * @param maxLag lag above which a group is DOWN, or {@code null} for no limit
	 * @param maxRetained retained WAL above which a group is DOWN, or {@code null}
	 * @param maxRetainedRatio share of {@code max_slot_wal_keep_size} above which a group
	 * is DOWN
	 * @param heartbeats the default group's heartbeats, or {@code null} when they are off
	 */
	public PostlogHealthContributor(PostlogListenerRegistry registry, PostlogSlotMonitor defaultMonitor,
			@Nullable DataSize maxLag, @Nullable DataSize maxRetained, double maxRetainedRatio,
			@Nullable HeartbeatTracker heartbeats) {
		this.registry = registry;
		this.defaultMonitor = defaultMonitor;
		this.maxLag = maxLag;
		this.maxRetained = maxRetained;
		this.maxRetainedRatio = maxRetainedRatio;
		this.heartbeats = heartbeats;
	}

	@Override
	public @Nullable HealthContributor getContributor(String name) {
		return entries().stream()
			.filter((entry) -> entry.name().equals(name))
			.map(Entry::contributor)
			.findFirst()
			.orElse(null);
	}

	@Override
	public Stream<Entry> stream() {
		return entries().stream();
	}

	private List<Entry> entries() {
		List<PostlogConsumerGroup> groups = this.registry.groups();
		if (groups.isEmpty()) {
			return List.of(new Entry("default",
					this.indicators.computeIfAbsent("",
							(key) -> new PostlogHealthIndicator(() -> null, () -> null, () -> null, () -> null,
									this.defaultMonitor, this.maxLag, this.maxRetained, this.maxRetainedRatio,
									this.heartbeats))));
		}
		return groups.stream()
			.map((group) -> new Entry(group.displayName(),
					this.indicators.computeIfAbsent(group.displayName() + "/" + System.identityHashCode(group),
							(key) -> new PostlogHealthIndicator(group, this.maxLag, this.maxRetained,
									this.maxRetainedRatio, group.name().isEmpty() ? this.heartbeats : null))))
			.toList();
	}

}
