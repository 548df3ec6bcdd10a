package memory_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/memory"
)

// docs makes n documents of size characters each (Japanese text, so about
// a token a character), named 資料1.txt, 資料2.txt, ….
func docs(n, size int) []memory.Document {
	out := make([]memory.Document, n)
	for i := range out {
		name := fmt.Sprintf("資料%d.txt", i+1)
		text := []rune(strings.Repeat(fmt.Sprintf("資料%dの本文です。", i+1), size))[:size]
		out[i] = memory.Document{Name: name, About: "9.0 KB, text", FileID: int64(i + 1), Text: string(text), Part: size >= 3000}
	}
	return out
}

// omittedRe is the line that counts the documents left out.
var omittedRe = regexp.MustCompile(`\n\n\[ほかに添付ファイルが (\d+) 件あります（予算を超えたため省略。list_fetched_files で見られます）\]$`)

// Documents attached to a message are counted in the user's share of the
// budget: cut (each to an equal part, with a visible mark) or, when not
// even their names fit, left out and counted; the user's own words stay
// whole.
func TestContextDocuments(t *testing.T) {
	f := newFixture(t)
	const question = "この資料を比べて、違いを教えて。"
	const cutMark = "…（以下省略：予算を超えたため）"
	tests := []struct {
		name     string
		budget   int
		text     string
		docs     []memory.Document
		whole    []int // documents given in full (indexes)
		cut      []int // documents cut to fit, with the mark
		omits    bool  // the last documents are left out, counted in a line
		noneSeen bool  // not even the count fits
	}{
		{name: "all fit", budget: 6000, text: question, docs: docs(2, 200), whole: []int{0, 1}},
		{name: "ten of 3,000 characters at the default budget", budget: 6000, text: question, docs: docs(10, 3000),
			cut: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{name: "ten of 3,000 characters at a small budget", budget: 1500, text: question, docs: docs(10, 3000),
			cut: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{name: "a short one keeps all of it", budget: 1500, text: question,
			docs:  append(docs(1, 3000), memory.Document{Name: "短い.txt", About: "30 B, text", FileID: 9, Text: "短い資料です。"}),
			whole: []int{1}, cut: []int{0}},
		{name: "names do not all fit", budget: 500, text: question, docs: docs(30, 3000), omits: true},
		{name: "question alone fills the share", budget: 1000, text: strings.Repeat("長い質問です。", 80), docs: docs(3, 3000),
			noneSeen: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := f.memory(t, func(o *memory.Options) { o.TokenBudget = tc.budget })
			key := memory.DiscordChannel("docs-" + tc.name)
			msgs, err := m.Context(context.Background(), key, g1, tc.text, memory.WithDocuments(tc.docs))
			if err != nil {
				t.Fatal(err)
			}
			if n := promptTokens(msgs); n > tc.budget && !tc.noneSeen {
				t.Errorf("prompt is %d tokens; budget %d", n, tc.budget)
			}
			user := msgs[len(msgs)-1].Content
			if !strings.HasPrefix(user, tc.text+"\n\n") && user != tc.text {
				t.Fatalf("the user's words were not kept whole:\n%.200s", user)
			}
			n := promptTokens(msgs[len(msgs)-1:])
			t.Logf("prompt %d tokens, the user's message %d, of a budget of %d", promptTokens(msgs), n, tc.budget)
			if n > int(memory.UserShare*float64(tc.budget)) && !tc.noneSeen {
				t.Errorf("the message with its documents is %d tokens, over the user's share of %d", n, tc.budget)
			}
			for _, i := range tc.whole {
				if !strings.Contains(user, "「"+tc.docs[i].Name+"」") || !strings.Contains(user, tc.docs[i].Text) {
					t.Errorf("%s is not given whole", tc.docs[i].Name)
				}
			}
			for _, i := range tc.cut {
				d := tc.docs[i]
				head := fmt.Sprintf("[添付ファイル「%s」(%s, file_id=%d)。全文は read_fetched_file(file_id=%d) で読めます。冒頭:\n", d.Name, d.About, d.FileID, d.FileID)
				at := strings.Index(user, head)
				if at < 0 {
					t.Errorf("%s is not named with the way to read on", d.Name)
					continue
				}
				body := user[at+len(head):]
				body = body[:strings.Index(body, "\n]")]
				if !strings.HasSuffix(body, cutMark) || !strings.HasPrefix(d.Text, strings.TrimSuffix(body, "\n"+cutMark)) {
					t.Errorf("%s is not its beginning with the mark:\n%.100s…%s", d.Name, body, body[max(0, len(body)-60):])
				}
			}
			if tc.cut != nil {
				// Cut to equal parts: no document got far more than another.
				lens := map[int]int{}
				for _, i := range tc.cut {
					lens[i] = strings.Count(user, fmt.Sprintf("資料%dの本文", i+1))
				}
				lo, hi := lens[tc.cut[0]], lens[tc.cut[0]]
				for _, n := range lens {
					lo, hi = min(lo, n), max(hi, n)
				}
				if hi > lo+2 {
					t.Errorf("documents cut unevenly: %v", lens)
				}
			}
			if tc.omits {
				sm := omittedRe.FindStringSubmatch(user)
				if sm == nil {
					t.Fatalf("the documents left out are not counted:\n…%s", user[max(0, len(user)-300):])
				}
				named := strings.Count(user, "[添付ファイル「")
				if n, _ := strconv.Atoi(sm[1]); named == 0 || named+n != len(tc.docs) ||
					!strings.Contains(user, "「"+tc.docs[named-1].Name+"」") {
					t.Errorf("%d documents named and %s counted, of %d: want the first ones named, the rest counted", named, sm[1], len(tc.docs))
				}
			}
			if tc.noneSeen && user != tc.text {
				t.Errorf("a question over its share has documents:\n…%s", user[max(0, len(user)-300):])
			}
		})
	}
}
