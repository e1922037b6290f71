package io.postlog.spring;

import java.util.Objects;

import io.postlog.admin.LostSlotAction;
import io.postlog.admin.SlotLostException;

import org.springframework.context.ApplicationEvent;

/**
 * Published when postlog finds its replication slot lost (invalidated by the server at
 * start-up or on a reconnect, or missing on a reconnect although it existed), before it
 * acts on {@code postlog.slot.on-lost}: with {@link LostSlotAction#FAIL} start-up fails
 * (or the running consumer is {@code FAILED}) right after; with
 * {@link LostSlotAction#RECREATE} a new slot is made and the changes between the lost
 * slot's last confirmed position and the new slot's start are never delivered, so a
 * listener of this event is the place to rebuild what depends on them. Published with the
 * {@link PostlogConsumerGroup} whose slot it is as its source, on the thread that found
 * the loss: the one starting the application, or the group consumer's delivery thread on
 * a reconnect. Immutable.
 */
public class PostlogSlotLostEvent extends ApplicationEvent {

	private static final long serialVersionUID = 1L;

	private final transient SlotLostException loss;

	private final LostSlotAction action;

	/**
	 * Creates an event.
	 * @param source the component that found the loss
	 * @param loss what was found
	 * @param action what postlog does about it
	 */
	public PostlogSlotLostEvent(Object source, SlotLostException loss, LostSlotAction action) {
		super(source);
		this.loss = Objects.requireNonNull(loss, "loss");
		this.action = Objects.requireNonNull(action, "action");
	}

	/**
	 * Returns the lost slot's name.
	 * @return the slot name
	 */
	public String slotName() {
		return this.loss.slotName();
	}

	/**
	 * Returns what was found: how the slot was lost and its last confirmed position.
	 * @return the loss
	 */
	public SlotLostException loss() {
		return this.loss;
	}

	/**
	 * Returns what postlog does about it.
	 * @return {@code FAIL} or {@code RECREATE}
	 */
	public LostSlotAction action() {
		return this.action;
	}

}
