package web

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestRegenerateAndEditKeepVersions: 再生成 writes the answer again and
// keeps the first as version 1 of 2; switching shows it again, and the
// next request to the model reads the version shown. 編集 sends a user
// message again with new text, the later turns going with the old version.
func TestRegenerateAndEditKeepVersions(t *testing.T) {
	a := newAPI(t)
	a.ollama.Script(ollamatest.Text("一つ目の答え"), ollamatest.Text("次の答え"), ollamatest.Text("二つ目の答え"))
	evs := readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{Message: "質問"}))
	id := int64(evs[0].Value.(float64))
	readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{SessionID: id, Message: "続き"}))
	history := func() []messageJSON {
		t.Helper()
		var ms []messageJSON
		if code := a.c.call("GET", "/chat/sessions/"+itoa(id)+"/messages", nil, &ms); code != http.StatusOK {
			t.Fatalf("history = %d", code)
		}
		return ms
	}
	texts := func(ms []messageJSON) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Content)
		}
		return strings.Join(out, " / ")
	}
	ms := history()
	if got := texts(ms); got != "質問 / 一つ目の答え / 続き / 次の答え" {
		t.Fatalf("history = %s", got)
	}

	// Regenerate the first answer.
	if evs := readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{SessionID: id, Regenerate: ms[1].ID})); eventTypes(evs) != "chunk done" {
		t.Fatalf("regenerate = %s", eventTypes(evs))
	}
	ms = history()
	if got := texts(ms); got != "質問 / 二つ目の答え" {
		t.Fatalf("after regenerate = %s", got)
	}
	if b := ms[0].Branch; b == nil || b.Count != 2 || b.Shown != 2 || b.Kind != "regenerate" {
		t.Fatalf("versions after regenerate = %+v", ms[0].Branch)
	}
	// The model was asked the same question without the old answer.
	reqs := a.ollama.Requests()
	last := reqs[len(reqs)-1].Messages
	if lastUser := last[len(last)-1]; lastUser.Role != "user" || lastUser.Content != "質問" {
		t.Errorf("regenerate asked %+v, want the question again", lastUser)
	}
	for _, m := range last {
		if strings.Contains(m.Content, "一つ目の答え") {
			t.Errorf("regenerate's request still holds the old answer")
		}
	}

	// Back to version 1: its whole rest comes back, and the next request reads it.
	if code := a.c.call("POST", "/chat/sessions/"+itoa(id)+"/branches", switchRequest{AnchorID: ms[0].Branch.AnchorID, Position: 1}, nil); code != http.StatusNoContent {
		t.Fatalf("switch = %d", code)
	}
	ms = history()
	if got := texts(ms); got != "質問 / 一つ目の答え / 続き / 次の答え" {
		t.Fatalf("version 1 = %s", got)
	}
	if b := ms[0].Branch; b == nil || b.Shown != 1 || b.Count != 2 {
		t.Fatalf("versions after the switch = %+v", ms[0].Branch)
	}
	a.ollama.Script(ollamatest.Text("はい"))
	readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{SessionID: id, Message: "三つ目"}))
	reqs = a.ollama.Requests()
	var joined []string
	for _, m := range reqs[len(reqs)-1].Messages {
		joined = append(joined, m.Content)
	}
	if s := strings.Join(joined, "\n"); !strings.Contains(s, "一つ目の答え") || strings.Contains(s, "二つ目の答え") {
		t.Errorf("the next request does not read the version shown:\n%s", s)
	}

	// Edit 続き: a new version from there; the old one stays reachable.
	ms = history()
	a.ollama.Script(ollamatest.Text("編集への答え"))
	readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{SessionID: id, Edit: ms[2].ID, Message: "続きを短く"}))
	ms = history()
	if got := texts(ms); got != "質問 / 一つ目の答え / 続きを短く / 編集への答え" {
		t.Fatalf("after the edit = %s", got)
	}
	if b := ms[2].Branch; b == nil || b.Count != 2 || b.Shown != 2 || b.Kind != "edit" {
		t.Fatalf("versions after the edit = %+v", ms[2].Branch)
	}
	if code := a.c.call("POST", "/chat/sessions/"+itoa(id)+"/branches", switchRequest{AnchorID: ms[2].Branch.AnchorID, Position: 1}, nil); code != http.StatusNoContent {
		t.Fatalf("switch = %d", code)
	}
	if got := texts(history()); got != "質問 / 一つ目の答え / 続き / 次の答え / 三つ目 / はい" {
		t.Fatalf("the old version after the edit = %s", got)
	}
	// The outer versions still switch, the inner ones going with theirs.
	if code := a.c.call("POST", "/chat/sessions/"+itoa(id)+"/branches", switchRequest{AnchorID: ms[0].Branch.AnchorID, Position: 2}, nil); code != http.StatusNoContent {
		t.Fatalf("switch = %d", code)
	}
	if got := texts(history()); got != "質問 / 二つ目の答え" {
		t.Fatalf("version 2 = %s", got)
	}
	if code := a.c.call("POST", "/chat/sessions/"+itoa(id)+"/branches", switchRequest{AnchorID: ms[0].Branch.AnchorID, Position: 1}, nil); code != http.StatusNoContent {
		t.Fatalf("switch = %d", code)
	}
	if ms := history(); texts(ms) != "質問 / 一つ目の答え / 続き / 次の答え / 三つ目 / はい" || ms[2].Branch == nil || ms[2].Branch.Count != 2 {
		t.Fatalf("version 1 again = %s, %+v", texts(ms), ms[2].Branch)
	}
}

// TestRateLimitBeforeAnything: over USER_RATE_LIMIT a turn is refused
// before anything changes: no new conversation, no message, and a 再生成 or
// 編集 leaves the answer shown in place (on main it was put aside first,
// leaving nothing).
func TestRateLimitBeforeAnything(t *testing.T) {
	a := newAPI(t)
	a.ollama.Script(ollamatest.Text("一つ目の答え"))
	evs := readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{Message: "質問"}))
	id := int64(evs[0].Value.(float64))
	history := func() ([]messageJSON, string) {
		t.Helper()
		var ms []messageJSON
		if code := a.c.call("GET", "/chat/sessions/"+itoa(id)+"/messages", nil, &ms); code != http.StatusOK {
			t.Fatalf("history = %d", code)
		}
		var out []string
		for _, m := range ms {
			out = append(out, m.Content)
		}
		return ms, strings.Join(out, " / ")
	}
	ms, before := history()
	if before != "質問 / 一つ目の答え" {
		t.Fatalf("history = %s", before)
	}
	for _, tc := range []struct {
		name string
		req  streamRequest
	}{
		{"a new conversation", streamRequest{Message: "新しい話"}},
		{"the next message", streamRequest{SessionID: id, Message: "続き"}},
		{"再生成", streamRequest{SessionID: id, Regenerate: ms[1].ID}},
		{"編集", streamRequest{SessionID: id, Edit: ms[0].ID, Message: "別の質問"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One turn allowed, taken (by Discord, say): this one is over.
			a.opts.Deps.Limiter.Set(1, time.Hour)
			if ok, _ := a.opts.Deps.Limiter.Allow(webUserID, time.Now()); !ok {
				t.Fatal("the first turn was refused")
			}
			if code, e := a.c.callErr("POST", "/chat/stream", tc.req); code != http.StatusTooManyRequests || e.Error != rateLimitedText {
				t.Errorf("= %d %+v, want 429 with the notice", code, e)
			}
			after, got := history()
			if got != before || (len(after) > 0 && after[0].Branch != nil) {
				t.Errorf("history after the refusal = %q, want %q as it was", got, before)
			}
			var list []sessionJSON
			if a.c.call("GET", "/chat/sessions", nil, &list); len(list) != 1 {
				t.Errorf("%d conversations after the refusal, want 1", len(list))
			}
		})
	}

	// Under the limit again, 再生成 works from the answer left in place.
	a.opts.Deps.Limiter.Set(100, time.Hour)
	a.ollama.Script(ollamatest.Text("二つ目の答え"))
	if evs := readEvents(t, a.c.do("POST", "/chat/stream", streamRequest{SessionID: id, Regenerate: ms[1].ID})); eventTypes(evs) != "chunk done" {
		t.Fatalf("regenerate = %s", eventTypes(evs))
	}
	if after, got := history(); got != "質問 / 二つ目の答え" || after[0].Branch == nil || after[0].Branch.Count != 2 {
		t.Errorf("after the regenerate = %s (versions %+v), want 2 versions", got, after[0].Branch)
	}
}

// TestVersionsReadAsQuestionsAndAnswers: versions that start with the same
// question are that question's answers (再生成); a different question is
// the question's own version (編集), which leads to its newest answer.
func TestVersionsReadAsQuestionsAndAnswers(t *testing.T) {
	a, b := "質問A", "質問B"
	for _, tc := range []struct {
		name      string
		heads     []*string
		shown     int
		shownHead string
		question  versionStep
		answer    versionStep
	}{
		{"regenerated twice", []*string{&a, &a, nil}, 3, a,
			versionStep{1, 1, []int{3}}, versionStep{3, 3, []int{1, 2, 3}}},
		{"regenerated, then edited", []*string{&a, &a, nil}, 3, b,
			versionStep{2, 2, []int{2, 3}}, versionStep{1, 1, []int{3}}},
		{"back on the first answer", []*string{nil, &a, &b}, 1, a,
			versionStep{1, 2, []int{1, 3}}, versionStep{1, 2, []int{1, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := groupVersions(db.BranchSet{AnchorID: 7, Shown: tc.shown, Count: len(tc.heads)}, tc.heads, tc.shownHead)
			if fmt.Sprint(*v.Question) != fmt.Sprint(tc.question) || fmt.Sprint(*v.Answer) != fmt.Sprint(tc.answer) {
				t.Errorf("question %+v answer %+v, want %+v and %+v", *v.Question, *v.Answer, tc.question, tc.answer)
			}
		})
	}
}
