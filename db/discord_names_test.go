package db_test

import (
	"context"
	"maps"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestDiscordNamesAreWrittenOnlyWhenChanged: names saved again unchanged
// leave their rows alone (no new row version); a rename replaces the name;
// one batch naming a thing twice keeps the last; a user's nickname in a
// server and their own name are two rows.
func TestDiscordNamesAreWrittenOnlyWhenChanged(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	first := []db.DiscordName{
		{Kind: db.NameGuild, ID: "1", Name: "ボドゲ部"},
		{Kind: db.NameChannel, ID: "2", GuildID: "1", Name: "雑談"},
		{Kind: db.NameChannel, ID: "3", GuildID: "1", ParentID: "2", Name: "土曜の卓"},
		{Kind: db.NameUser, ID: "4", GuildID: "1", Name: "アリス（GM）"},
		{Kind: db.NameUser, ID: "4", Name: "alice"},
	}
	if err := db.SaveDiscordNames(ctx, pool, first); err != nil {
		t.Fatal(err)
	}
	version := func() map[string]string {
		t.Helper()
		rows, err := pool.Query(ctx, `SELECT kind || ':' || id || ':' || guild_id, xmin::text FROM discord_names`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		v := map[string]string{}
		for rows.Next() {
			var k, x string
			if err := rows.Scan(&k, &x); err != nil {
				t.Fatal(err)
			}
			v[k] = x
		}
		return v
	}
	before := version()
	if err := db.SaveDiscordNames(ctx, pool, first); err != nil {
		t.Fatal(err)
	}
	if after := version(); len(after) != 5 || !maps.Equal(after, before) {
		t.Errorf("saving the same names again rewrote rows: %v -> %v", before, after)
	}
	if err := db.SaveDiscordNames(ctx, pool, []db.DiscordName{
		{Kind: db.NameChannel, ID: "2", GuildID: "1", Name: "雑談-old"},
		{Kind: db.NameChannel, ID: "2", GuildID: "1", Name: "よもやま"},
	}); err != nil {
		t.Fatal(err)
	}
	after := version()
	if after["channel:2:1"] == before["channel:2:1"] || after["guild:1:"] != before["guild:1:"] {
		t.Errorf("a rename rewrote %v, want only channel:2:1 (before %v)", after, before)
	}
	got, err := db.DiscordNamesOf(ctx, pool, []string{"2", "4", "9"})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]string{}
	for _, n := range got {
		names[n.Kind+":"+n.ID+":"+n.GuildID] = n.Name
	}
	want := map[string]string{"channel:2:1": "よもやま", "user:4:1": "アリス（GM）", "user:4:": "alice"}
	if !maps.Equal(names, want) {
		t.Errorf("names of 2, 4, 9 = %v, want %v", names, want)
	}
	all, err := db.DiscordNames(ctx, pool, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 || all[0].Kind == db.NameUser || all[2].Kind == db.NameUser {
		t.Errorf("the first three names are %+v, want servers and channels before users", all)
	}
}
