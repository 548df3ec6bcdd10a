// Package db owns yorozu's Postgres access: the connection pool, the embedded
// migrations, one file per table with plain pgx queries, and an embedded
// PostgreSQL server for installs without DATABASE_URL.
//
// Table functions take a Querier first after ctx, so callers choose whether a
// call runs on the pool or inside a transaction. Timestamps are stored and
// returned in UTC.
package db
