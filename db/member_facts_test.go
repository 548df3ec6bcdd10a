package db_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestMemberFacts(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	add := func(space, user, text string) (db.MemberFact, error) {
		return db.AddMemberFact(ctx, pool, space, user, "名前"+user, text, 3)
	}
	contents := func(space, user string) []string {
		t.Helper()
		fs, err := db.MemberFacts(ctx, pool, space, user)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range fs {
			out = append(out, f.Content)
		}
		return out
	}

	first, err := add("guild:1", "u1", "エビアレルギー")
	if err != nil {
		t.Fatal(err)
	}
	if again, err := add("guild:1", "u1", "エビアレルギー"); err != nil || again.ID != first.ID {
		t.Errorf("the same fact again = %d, %v; want the kept one %d", again.ID, err, first.ID)
	}
	for _, text := range []string{"誕生日は3月3日", "猫を飼っている"} {
		if _, err := add("guild:1", "u1", text); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := add("guild:1", "u1", "4つ目"); !errors.Is(err, db.ErrTooManyFacts) {
		t.Errorf("a fact past the limit: err = %v, want ErrTooManyFacts", err)
	}
	if _, err := add("guild:2", "u1", "別のサーバー"); err != nil {
		t.Errorf("another space has its own limit: %v", err)
	}
	if _, err := add("guild:1", "u2", "他の人"); err != nil {
		t.Errorf("another member has their own limit: %v", err)
	}
	if got := fmt.Sprint(contents("guild:1", "u1")); got != "[エビアレルギー 誕生日は3月3日 猫を飼っている]" {
		t.Errorf("facts of u1 = %s", got)
	}
	if err := db.DeleteMemberFact(ctx, pool, "guild:1", "u2", first.ID); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("deleting someone else's fact: err = %v, want ErrNotFound", err)
	}
	if err := db.DeleteMemberFact(ctx, pool, "guild:1", "u1", first.ID); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(contents("guild:1", "u1")); got != "[誕生日は3月3日 猫を飼っている]" {
		t.Errorf("after deleting one: %s", got)
	}
	all, err := db.SpaceMemberFacts(ctx, pool, "guild:1")
	if err != nil || len(all) != 3 {
		t.Errorf("facts in the space = %d (%v), want 3", len(all), err)
	}
	if n, err := db.DeleteMemberFacts(ctx, pool, "guild:1", "u1"); err != nil || n != 2 {
		t.Errorf("delete all of u1 = %d, %v; want 2", n, err)
	}
	if got := contents("guild:2", "u1"); len(got) != 1 {
		t.Errorf("another space's fact went too: %v", got)
	}
	other := all[len(all)-1] // u2's, still kept
	if err := db.DeleteSpaceMemberFact(ctx, pool, "guild:2", other.ID); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("the admin deleting a fact of another space: err = %v, want ErrNotFound", err)
	}
	if err := db.DeleteSpaceMemberFact(ctx, pool, "guild:1", other.ID); err != nil {
		t.Errorf("the admin deleting a fact: %v", err)
	}
}

// Adds at once never pass the limit together.
func TestMemberFactsLimitUnderRace(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			_, err := db.AddMemberFact(ctx, pool, "guild:1", "u1", "", fmt.Sprintf("事実 %d", i), 3)
			if err != nil && !errors.Is(err, db.ErrTooManyFacts) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	fs, err := db.MemberFacts(ctx, pool, "guild:1", "u1")
	if err != nil || len(fs) != 3 {
		t.Errorf("%d facts kept (%v), want the limit, 3", len(fs), err)
	}
}
