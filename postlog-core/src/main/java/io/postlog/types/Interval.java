package io.postlog.types;

/**
 * A PostgreSQL {@code interval}: months, days and microseconds kept apart, as the server
 * keeps them (a month is not a fixed number of days, nor a day of seconds across DST).
 *
 * @param months the months part
 * @param days the days part
 * @param microseconds the time part in microseconds
 */
public record Interval(int months, int days, long microseconds) {

}
