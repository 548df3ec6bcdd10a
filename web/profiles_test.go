package web

import (
	"context"
	"net/http"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
)

// TestProfilesAPI: the admin page lists a space's member facts and deletes
// one; another space's stay, and a bad space or id is refused.
func TestProfilesAPI(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.login(t)
	ctx := context.Background()
	kept, err := db.AddMemberFact(ctx, ts.pool, "guild:1", "u1", "ゆき", "私はエビアレルギー", 30)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddMemberFact(ctx, ts.pool, "guild:2", "u1", "ゆき", "別のサーバー", 30); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Facts []factJSON `json:"facts"`
	}
	if code := c.call("GET", "/api/profiles?space=guild:1", nil, &got); code != http.StatusOK || len(got.Facts) != 1 ||
		got.Facts[0].Content != "私はエビアレルギー" || got.Facts[0].UserName != "ゆき" {
		t.Fatalf("profiles of guild:1 = %d %+v", code, got)
	}
	if code := c.call("GET", "/api/profiles?space=guild/1", nil, nil); code != http.StatusBadRequest {
		t.Errorf("a malformed space = %d, want 400", code)
	}
	if code := c.call("DELETE", "/api/profiles/"+itoa(kept.ID)+"?space=guild:2", nil, nil); code != http.StatusNotFound {
		t.Errorf("deleting a fact through another space = %d, want 404", code)
	}
	if code := c.call("DELETE", "/api/profiles/"+itoa(kept.ID)+"?space=guild:1", nil, nil); code != http.StatusNoContent {
		t.Errorf("delete = %d, want 204", code)
	}
	if code := c.call("GET", "/api/profiles?space=guild:1", nil, &got); code != http.StatusOK || len(got.Facts) != 0 {
		t.Errorf("after deleting: %d %+v", code, got)
	}
	if code := c.call("GET", "/api/profiles?space=guild:2", nil, &got); code != http.StatusOK || len(got.Facts) != 1 {
		t.Errorf("the other space's fact: %d %+v", code, got)
	}
}
