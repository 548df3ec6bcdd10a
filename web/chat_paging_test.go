package web

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
)

// TestMessagesPaged: a long conversation's history comes a page at a time,
// newest page first, each page oldest first; the last page has no next.
func TestMessagesPaged(t *testing.T) {
	a := newAPI(t)
	sess := a.recordDiscordTurn(t, "556", "質問1", "答え1")
	for i := 2; i <= 3; i++ {
		a.recordDiscordTurn(t, "556", "質問"+strconv.Itoa(i), "答え"+strconv.Itoa(i))
	}
	path := "/chat/sessions/" + itoa(sess.ID) + "/messages?limit=4"
	var got [][]string
	for path != "" {
		resp := a.c.do("GET", path, nil)
		var msgs []messageJSON
		err := json.NewDecoder(resp.Body).Decode(&msgs)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d, %v", path, resp.StatusCode, err)
		}
		var page []string
		for _, m := range msgs {
			page = append(page, m.Content)
		}
		got = append(got, page)
		path = ""
		if next := resp.Header.Get("X-Next-Before"); next != "" {
			path = "/chat/sessions/" + itoa(sess.ID) + "/messages?limit=4&before=" + next
		}
	}
	want := [][]string{{"質問2", "答え2", "質問3", "答え3"}, {"質問1", "答え1"}}
	if len(got) != len(want) || len(got[0]) != 4 || got[0][0] != want[0][0] || got[0][3] != want[0][3] || len(got[1]) != 2 || got[1][0] != want[1][0] {
		t.Errorf("pages = %v, want %v", got, want)
	}
}
