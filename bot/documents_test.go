package bot

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// fakeDocs keeps documents in memory.
type fakeDocs struct {
	mu   sync.Mutex
	docs []memory.FetchedDoc
	keys []memory.SessionKey
}

func (f *fakeDocs) KeepFetched(_ context.Context, key memory.SessionKey, d memory.FetchedDoc) (db.FetchedFile, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.docs = append(f.docs, d)
	f.keys = append(f.keys, key)
	return db.FetchedFile{ID: int64(len(f.docs)), URL: d.URL, Title: d.Title}, nil
}

// withDocuments makes the bot's responder a router that reads documents
// into docs (as yorozu's is) in front of the test's fake.
func withDocuments(docs *fakeDocs) func(*Options) {
	return func(o *Options) {
		r := chat.NewRouter(chat.HandlerFunc(o.Responder.(*fakeResponder).Respond))
		r.Documents = docs
		o.Responder = r
	}
}

func (h *harness) mentionWith(channel, text string, atts ...*discordgo.MessageAttachment) *discordgo.Message {
	return h.srv.SendMessage(&discordgo.Message{
		ChannelID: channel, GuildID: guildID,
		Author:  &discordgo.User{ID: "7", Username: "user7"},
		Content: "<@" + h.srv.BotID() + "> " + text, Mentions: []*discordgo.User{{ID: h.srv.BotID()}},
		Attachments: atts,
	})
}

// A CSV attached to a mention is read, kept with the conversation and
// given to the model with its name, size and rows; files it cannot read
// get a line after the answer, which itself is not lost.
func TestDocumentsAttached(t *testing.T) {
	t.Parallel()
	docs := &fakeDocs{}
	h, _ := startFaulty(t, func(srv *discordtest.Server) { srv.AddChannel(chanID) }, withDocuments(docs))
	h.resp.script = echo
	csv := h.srv.AddAttachment("売上.csv", "text/csv; charset=utf-8", []byte("月,売上\n1月,120\n2月,95\n"))
	huge := h.srv.AddAttachment("huge.csv", "text/csv", []byte("a,b\n"))
	huge.Size = 30 << 20 // as Discord reports a 30 MB file
	liar := h.srv.AddAttachment("liar.txt", "text/plain", bytes.Repeat([]byte("x"), chat.MaxDocumentBytes+1))
	liar.Size = 100
	zip := h.srv.AddAttachment("a.zip", "application/zip", []byte("PK"))
	h.mentionWith(chanID, "2月の売上は？", csv, huge, liar, zip)
	ms := h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 && strings.Contains(ms[0].Content, "a.zip") })
	got := ms[0].Content
	req := h.resp.requests()[0]
	if want := (memory.Document{Name: "売上.csv", About: "28 B, csv", FileID: 1, Text: "月,売上\n1月,120\n2月,95\n"}); req.Text != "2月の売上は？" ||
		len(req.Documents) != 1 || req.Documents[0] != want {
		t.Errorf("the turn got %q with %+v, want the question alone and %+v", req.Text, req.Documents, want)
	}
	for _, want := range []string{
		"答え: 2月の売上は？",
		"\n\n※「huge.csv」は大きすぎるため読んでいません（30.0 MB、10 MB まで）。",
		"※「liar.txt」は大きすぎるため読んでいません（10 MB まで）。",
		"※「a.zip」は読めない種類のファイルです",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("answer lacks %q:\n%s", want, got)
		}
	}
	for _, d := range h.srv.Downloads() {
		if strings.Contains(d, "huge") || strings.Contains(d, "a.zip") {
			t.Errorf("downloaded %s, which was refused by its size or kind", d)
		}
	}
	if len(docs.docs) != 1 || docs.docs[0].Title != "売上.csv" || docs.docs[0].MediaType != "csv" ||
		docs.docs[0].Tool != "discord_attachment" || strings.Contains(docs.docs[0].URL, "?") || docs.keys[0] != memory.DiscordChannel(chanID) {
		t.Fatalf("kept %+v under %v", docs.docs, docs.keys)
	}
	// A later question does not download the file again: the model reads
	// the kept copy (read_fetched_file).
	n := len(h.srv.Downloads())
	h.mention(chanID, "7", "1月は？")
	h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 2 })
	if len(h.srv.Downloads()) != n || len(docs.docs) != 1 {
		t.Errorf("the later question downloaded or kept again: %v", h.srv.Downloads())
	}
}

// A long document is given to the turn in part, marked so (the model is
// told how to read on).
func TestDocumentPreview(t *testing.T) {
	t.Parallel()
	docs := &fakeDocs{}
	h, _ := startFaulty(t, func(srv *discordtest.Server) { srv.AddChannel(chanID) }, withDocuments(docs))
	h.resp.script = echo
	long := h.srv.AddAttachment("本.txt", "text/plain", []byte(strings.Repeat("あ", 3010)))
	h.mentionWith(chanID, "", long)
	h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) >= 1 })
	req := h.resp.requests()[0]
	if len(req.Documents) != 1 || !req.Documents[0].Part || req.Documents[0].Text != strings.Repeat("あ", 3000) {
		t.Errorf("got %d documents, want the first 3000 characters of 本.txt, marked as part", len(req.Documents))
	}
}
