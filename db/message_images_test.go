package db_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestMessageImagesRoundTrip(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	s := newSession(t, pool, "discord:channel:7")
	with, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: s.ID, Role: db.RoleUser, Content: "これ見て"})
	if err != nil {
		t.Fatal(err)
	}
	without, err := db.InsertMessage(ctx, pool, db.MessageParams{SessionID: s.ID, Role: db.RoleUser, Content: "文字だけ"})
	if err != nil {
		t.Fatal(err)
	}
	images := []db.MessageImage{
		{Name: "cat.png", ContentType: "image/png", Size: 123456, Width: 4000, Height: 3000, SentWidth: 1024, SentHeight: 768},
		{Name: "bomb.png", Size: 80, Width: 20000, Height: 20000, Skipped: "too_many_pixels", Replied: true},
	}
	if err := db.SetMessageImages(ctx, pool, with.ID, images); err != nil {
		t.Fatal(err)
	}
	if err := db.SetMessageImages(ctx, pool, without.ID, nil); err != nil {
		t.Fatal(err)
	}
	got, err := db.MessageImages(ctx, pool, []int64{with.ID, without.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !reflect.DeepEqual(got[with.ID], images) {
		t.Errorf("MessageImages = %+v, want %+v for message %d only", got, images, with.ID)
	}
	// No images is SQL NULL, not a JSON null.
	var null bool
	if err := pool.QueryRow(ctx, `SELECT images IS NULL FROM messages WHERE id = $1`, without.ID).Scan(&null); err != nil || !null {
		t.Errorf("images of a message without any: null=%v err=%v", null, err)
	}
	if err := db.SetMessageImages(ctx, pool, -1, images); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("unknown message: %v, want ErrNotFound", err)
	}
	if got, err := db.MessageImages(ctx, pool, nil); err != nil || len(got) != 0 {
		t.Errorf("no ids: %v, %v", got, err)
	}
}
