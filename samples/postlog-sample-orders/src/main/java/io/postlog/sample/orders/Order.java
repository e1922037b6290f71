package io.postlog.sample.orders;

import java.math.BigDecimal;
import java.time.OffsetDateTime;

/**
 * A row of {@code orders}, bound by postlog from the change's row: {@code created_at}
 * becomes {@code createdAt}.
 *
 * @param id the order id
 * @param customer the customer
 * @param amount the amount
 * @param status the status
 * @param createdAt when the order was created
 */
public record Order(long id, String customer, BigDecimal amount, String status, OffsetDateTime createdAt) {

}
