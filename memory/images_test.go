package memory_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory"
)

// A turn with pictures keeps their names, sizes and dimensions with the
// user's message, never the bytes.
func TestRecordKeepsWhatImagesWere(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	m := memory.New(pool, memory.Options{})
	key := memory.DiscordChannel("c1")
	images := []db.MessageImage{{Name: "cat.png", ContentType: "image/png", Size: 55156, Width: 4000, Height: 3000, SentWidth: 1024, SentHeight: 768}}
	if err := m.Record(ctx, key, memory.Turn{
		Source: "discord", ChannelID: "c1",
		User:  memory.MessageRecord{AuthorID: "u1", AuthorName: "たろう", Content: "この猫は？", Images: images},
		Reply: memory.MessageRecord{Content: "三毛猫です。"},
	}); err != nil {
		t.Fatal(err)
	}
	msgs := dbtest.RecentMessages(t, pool, string(key), 10)
	if len(msgs) != 2 {
		t.Fatalf("messages %v", msgs)
	}
	got, err := db.MessageImages(ctx, pool, []int64{msgs[0].ID, msgs[1].ID})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, map[int64][]db.MessageImage{msgs[0].ID: images}) {
		t.Errorf("kept images %+v, want %+v on the user's message", got, images)
	}
}
