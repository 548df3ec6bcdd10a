package web

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

func TestSessionFiles(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.quickSession(t)
	ctx := context.Background()
	a, err := db.UpsertSession(ctx, ts.pool, db.SessionParams{Key: "discord:channel:1", Source: "discord", Space: "guild:1"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.UpsertSession(ctx, ts.pool, db.SessionParams{Key: "web:2", Source: "web", Space: "web"})
	if err != nil {
		t.Fatal(err)
	}
	csv, err := db.UpsertFetchedFile(ctx, ts.pool, db.FetchedFileParams{
		SessionID: a.ID, URL: "https://example.org/p.csv", Title: "人口", MediaType: "csv", SizeBytes: 42,
		Content: "year,population\n2019,1\n", Tool: "search_and_fetch",
	})
	if err != nil {
		t.Fatal(err)
	}

	var list []fetchedFileJSON
	if code := c.call("GET", "/chat/sessions/"+itoa(a.ID)+"/files", nil, &list); code != http.StatusOK ||
		len(list) != 1 || list[0].Title != "人口" || list[0].Text != "" || list[0].Size != 42 {
		t.Fatalf("list = %d %+v", code, list)
	}
	var one fetchedFileJSON
	if code := c.call("GET", "/chat/sessions/"+itoa(a.ID)+"/files/"+itoa(csv.ID), nil, &one); code != http.StatusOK ||
		one.Text != "year,population\n2019,1\n" || one.URL != "https://example.org/p.csv" {
		t.Fatalf("get = %d %+v", code, one)
	}
	if code := c.call("GET", "/chat/sessions/"+itoa(b.ID)+"/files", nil, &list); code != http.StatusOK || len(list) != 0 {
		t.Errorf("another conversation's list = %d %+v", code, list)
	}
	for _, path := range []string{
		"/chat/sessions/" + itoa(b.ID) + "/files/" + itoa(csv.ID), // another conversation's document
		"/chat/sessions/" + itoa(a.ID) + "/files/999",
		"/chat/sessions/999/files",
		"/chat/sessions/x/files",
	} {
		if code := c.call("GET", path, nil, nil); code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, code)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
