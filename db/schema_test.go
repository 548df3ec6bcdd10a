package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestForeignKeysOfBigTablesAreIndexed: deleting a session, a summary or a
// message makes PostgreSQL look up the rows that refer to it, one lookup
// per deleted row. On a table that grows with the history, a reference no
// index leads with turns each lookup into a scan of the whole table (and
// deleting a conversation into minutes).
func TestForeignKeysOfBigTablesAreIndexed(t *testing.T) {
	pool := dbtest.New(t)
	rows, err := pool.Query(context.Background(), `
SELECT c.conrelid::regclass::text || '(' || a.attname || ')'
FROM pg_constraint c
JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
WHERE c.contype = 'f' AND cardinality(c.conkey) = 1
  AND c.conrelid::regclass::text = ANY($1)
  AND NOT EXISTS (
      SELECT 1 FROM pg_index i
      WHERE i.indrelid = c.conrelid AND i.indkey[0] = c.conkey[1]
        AND (i.indpred IS NULL OR pg_get_expr(i.indpred, i.indrelid) = '(' || quote_ident(a.attname) || ' IS NOT NULL)'))
ORDER BY 1`, []string{"messages", "memories", "message_tags", "memory_tags", "knowledge_entries", "knowledge_sources", "fetched_files"})
	if err != nil {
		t.Fatal(err)
	}
	missing, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Errorf("foreign key %s has no index leading with it", m)
	}
}
