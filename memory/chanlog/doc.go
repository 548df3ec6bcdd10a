// Package chanlog keeps the channel log (/channel log on): the messages
// members write in logged channels, taken from the gateway and written to
// channel_messages in batches.
//
// The gateway never waits on the database: Add, Edit, Delete and
// DropChannel put an entry on a bounded queue and return; when the queue
// is full the entry is dropped and counted (Dropped). One writer empties
// the queue every FlushEvery or BatchSize entries, whichever comes first,
// in one statement per run of entries of the same kind, in order, so an
// edit or deletion that follows a message applies to it. Before a batch it
// waits, a bounded while (Yield), for a moment when nothing else in the
// process is taking connections from the pool, so that its statements
// fall between a turn's queries rather than beside them; a flush someone
// waits on (/forget me) and the last writes at Stop do not wait. Which channels
// are logged is kept in memory (Logged) and read again every Refresh, so
// deciding costs no query.
package chanlog
