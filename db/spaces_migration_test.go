package db_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

// migrateBefore applies the migrations numbered below version, as an older
// yorozu did.
func migrateBefore(t *testing.T, pool *pgxpool.Pool, version int) {
	t.Helper()
	ctx := context.Background()
	ms, err := db.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Version >= version {
			continue
		}
		if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name)
			return err
		}); err != nil {
			t.Fatalf("migration %d: %v", m.Version, err)
		}
	}
}

func TestSpacesMigrationMovesOldRowsToTheirSpace(t *testing.T) {
	tests := []struct {
		name        string
		guilds      []string // servers with sessions
		wantDefault string   // where rows with no origin go
	}{
		{"one server", []string{"111"}, "guild:111"},
		{"two servers", []string{"111", "222"}, "web"},
		{"no server", nil, "web"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			_, open := openEmpty(t)
			pool := open()
			migrateBefore(t, pool, 8)
			exec := func(sql string, args ...any) {
				t.Helper()
				if _, err := pool.Exec(ctx, sql, args...); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
			}
			// Filled the old way: sessions per server, a DM, a web chat;
			// notes linked from one server, from two, from none; knowledge
			// from a server's search and from an unknown session.
			for i, g := range tc.guilds {
				exec(`INSERT INTO sessions (key, source, guild_id, channel_id) VALUES ($1, 'discord', $2, $3)`,
					"discord:channel:c"+g, g, "c"+g)
				exec(`INSERT INTO note_pages (title, content, position) VALUES ($1, 'x', $2)`, "server note "+g, i)
				exec(`INSERT INTO session_note_pages (session_id, page_id)
SELECT s.id, p.id FROM sessions s, note_pages p WHERE s.guild_id = $1 AND p.title = $2`, g, "server note "+g)
				exec(`INSERT INTO knowledge_entries (title, body, session_key, file_path) VALUES ($1, 'b', $2, $3)`,
					"finding "+g, "discord:channel:c"+g, "web_search/1-finding.md")
			}
			exec(`INSERT INTO sessions (key, source, channel_id) VALUES ('discord:dm:d1', 'discord', 'd1')`)
			exec(`INSERT INTO messages (session_id, role, author_id, content)
SELECT id, 'user', 'u42', 'こんにちは' FROM sessions WHERE key = 'discord:dm:d1'`)
			exec(`INSERT INTO sessions (key, source) VALUES ('web:admin', 'web')`)
			exec(`INSERT INTO note_pages (title, content, position) VALUES ('orphan', 'x', 10)`)
			exec(`INSERT INTO note_pages (title, content, position) VALUES ('dm note', 'x', 11)`)
			exec(`INSERT INTO session_note_pages (session_id, page_id)
SELECT s.id, p.id FROM sessions s, note_pages p WHERE s.key = 'discord:dm:d1' AND p.title = 'dm note'`)
			exec(`INSERT INTO knowledge_entries (title, body, session_key) VALUES ('old finding', 'b', 'gone')`)
			exec(`INSERT INTO tips (content, normalized) VALUES ('tip', 'tip')`)
			exec(`INSERT INTO api_logs (model) VALUES ('qwen3:4b')`)

			if err := db.Migrate(ctx, pool); err != nil {
				t.Fatal(err)
			}

			one := func(sql string, args ...any) string {
				t.Helper()
				var s string
				if err := pool.QueryRow(ctx, sql, args...).Scan(&s); err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				return s
			}
			for _, g := range tc.guilds {
				if got := one(`SELECT space FROM sessions WHERE guild_id = $1`, g); got != "guild:"+g {
					t.Errorf("session of server %s in %q", g, got)
				}
				if got := one(`SELECT space FROM note_pages WHERE title = $1`, "server note "+g); got != "guild:"+g {
					t.Errorf("note linked from server %s in %q", g, got)
				}
				if got := one(`SELECT space FROM knowledge_entries WHERE title = $1`, "finding "+g); got != "guild:"+g {
					t.Errorf("finding of server %s in %q", g, got)
				}
			}
			checks := []struct{ what, sql, want string }{
				{"DM session", `SELECT space FROM sessions WHERE key = 'discord:dm:d1'`, "dm:u42"},
				{"note linked from the DM", `SELECT space FROM note_pages WHERE title = 'dm note'`, "dm:u42"},
				{"web session", `SELECT space FROM sessions WHERE key = 'web:admin'`, tc.wantDefault},
				{"unlinked note", `SELECT space FROM note_pages WHERE title = 'orphan'`, tc.wantDefault},
				{"finding of an unknown session", `SELECT space FROM knowledge_entries WHERE title = 'old finding'`, tc.wantDefault},
				{"tip", `SELECT space FROM tips`, tc.wantDefault},
				{"model call", `SELECT space FROM api_logs`, tc.wantDefault},
				{"spaces listed", `SELECT string_agg(key, ',' ORDER BY key) FROM spaces WHERE key IN ('dm:u42', 'web')`, "dm:u42,web"},
			}
			for _, c := range checks {
				if got := one(c.sql); got != c.want {
					t.Errorf("%s in %q; want %q", c.what, got, c.want)
				}
			}
			// Positions run 0… within each space, so new pages go on the end.
			if got := one(`SELECT string_agg(space || '=' || n, ',' ORDER BY space) FROM (
SELECT space, count(*) AS n FROM note_pages GROUP BY space HAVING max(position) = count(*) - 1) s`); got == "" {
				t.Error("positions not renumbered per space")
			}
			for _, s := range []string{tc.wantDefault, "dm:u42"} {
				if _, err := db.CreateNotePage(ctx, pool, s, "new", "", ""); err != nil {
					t.Errorf("create a page in %s after the migration: %v", s, err)
				}
			}
		})
	}
}
