package memory_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
)

func TestTagsOfATurnInOneCall(t *testing.T) {
	const (
		question = "東京の天気と東京の桜について教えて。東京タワーも。"
		answer   = "桜は四月に咲きます。"
	)
	nouns := func(text string) []string { return slices.Sorted(slices.Values(memory.NounTags(text))) }
	for _, tc := range []struct {
		name      string
		answer    string // the model's answer to the tag request
		down      bool   // Ollama is unreachable
		wantUser  []string
		wantReply []string
	}{
		{
			name:      "a list per message",
			answer:    `{"tags":[["天気","東京","桜"],["桜","四月","開花"]]}`,
			wantUser:  []string{"天気", "東京", "桜"},
			wantReply: []string{"四月", "桜", "開花"},
		},
		{
			name:      "tags trimmed and de-duplicated",
			answer:    `{"tags":[[" #天気 ","東京","東京"],["桜","四月","開花"]]}`,
			wantUser:  []string{"天気", "東京"},
			wantReply: []string{"四月", "桜", "開花"},
		},
		{
			name:      "one list for two messages",
			answer:    `{"tags":[["天気","東京","桜"]]}`,
			wantUser:  nouns(question),
			wantReply: nouns(answer),
		},
		{
			name:      "three lists for two messages",
			answer:    `{"tags":[["天気","東京","桜"],["桜","四月","開花"],["a","b","c"]]}`,
			wantUser:  nouns(question),
			wantReply: nouns(answer),
		},
		{
			name:      "two tags in a list",
			answer:    `{"tags":[["天気","東京"],["桜","四月","開花"]]}`,
			wantUser:  nouns(question),
			wantReply: nouns(answer),
		},
		{
			name:      "an empty tag",
			answer:    `{"tags":[["天気"," ","桜"],["桜","四月","開花"]]}`,
			wantUser:  nouns(question),
			wantReply: nouns(answer),
		},
		{
			name:      "the old flat shape",
			answer:    `{"tags":["天気","東京","桜"]}`,
			wantUser:  nouns(question),
			wantReply: nouns(answer),
		},
		{
			name:      "not JSON",
			answer:    `天気、東京、桜`,
			wantUser:  nouns(question),
			wantReply: nouns(answer),
		},
		{
			name:      "model down",
			down:      true,
			wantUser:  nouns(question),
			wantReply: nouns(answer),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.ollama.Handle(func(req api.ChatRequest) ollamatest.Reply {
				if isTagRequest(req) {
					return ollamatest.Text(tc.answer)
				}
				return f.model.handle(req)
			})
			if tc.down {
				f.ollama.Down()
			}
			m := f.memory(t, nil)
			ctx := context.Background()
			err := m.Record(ctx, memory.DiscordChannel("c1"), memory.Turn{
				User:  memory.MessageRecord{AuthorName: "たろう", Content: question},
				Reply: memory.MessageRecord{Content: answer},
			})
			if err != nil {
				t.Fatal(err)
			}
			eventually(t, "tags of both messages", func() bool {
				return count(t, f.pool, "SELECT count(DISTINCT message_id) FROM message_tags") == 2
			})
			m.Close() // let background work finish before counting calls

			slices.Sort(tc.wantUser)
			slices.Sort(tc.wantReply)
			if got := messageTags(t, f, question); !slices.Equal(got, tc.wantUser) {
				t.Errorf("tags of the user message = %q, want %q", got, tc.wantUser)
			}
			if got := messageTags(t, f, answer); !slices.Equal(got, tc.wantReply) {
				t.Errorf("tags of the reply = %q, want %q", got, tc.wantReply)
			}

			var asked []api.ChatRequest
			for _, r := range f.ollama.Requests() {
				if isTagRequest(r) {
					asked = append(asked, r)
				}
			}
			if tc.down {
				if len(asked) != 0 {
					t.Errorf("%d tag requests reached a down model", len(asked))
				}
				return
			}
			if len(asked) != 1 {
				t.Fatalf("%d tag requests for one turn, want 1", len(asked))
			}
			if n := tagRequestSize(asked[0]); n != 2 {
				t.Errorf("tag request format asks for %d lists, want 2", n)
			}
			user := asked[0].Messages[len(asked[0].Messages)-1].Content
			if want := "[1]\n" + question + "\n\n[2]\n" + answer; user != want {
				t.Errorf("tag request numbers the messages as\n%s\nwant\n%s", user, want)
			}
		})
	}
}

func isTagRequest(req api.ChatRequest) bool {
	return len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, "タグ")
}

// messageTags returns the stored tags of the message with content, sorted.
func messageTags(t *testing.T, f *fixture, content string) []string {
	t.Helper()
	rows, _ := f.pool.Query(context.Background(),
		`SELECT t.tag FROM message_tags t JOIN messages m ON m.id = t.message_id WHERE m.content = $1`, content)
	tags, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(tags)
	return tags
}
