package io.postlog.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Details of postlog's replication connection: the database it streams from and the role
 * it logs in as (which needs the {@code REPLICATION} attribute). By default it is
 * {@code postlog.datasource.*} when {@code postlog.datasource.url} is set, else the
 * application's {@code JdbcConnectionDetails}, so Testcontainers'
 * {@code @ServiceConnection} and Docker Compose work unchanged; define a bean of this
 * type to supply another. Replication connections are opened fresh from these details,
 * never taken from a pool.
 */
public interface PostlogConnectionDetails extends ConnectionDetails {

	/**
	 * Returns the JDBC URL of the database to stream from.
	 * @return the URL ({@code jdbc:postgresql://...})
	 */
	String getJdbcUrl();

	/**
	 * Returns the login user.
	 * @return the user, or {@code null} for the driver's default
	 */
	@Nullable String getUsername();

	/**
	 * Returns the login password.
	 * @return the password, or {@code null} for none
	 */
	@Nullable String getPassword();

}
