package db_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestEnsureSettingKeepsTheFirstValue(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	if _, err := db.Setting(ctx, pool, "token_secret"); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("missing setting: err = %v, want ErrNotFound", err)
	}
	// Eight processes starting at once each propose their own secret; all
	// must end up with the same one.
	var wg sync.WaitGroup
	got := make([][]byte, 8)
	errs := make([]error, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = db.EnsureSetting(ctx, pool, "token_secret", []byte(fmt.Sprint("secret-", i)))
		}()
	}
	wg.Wait()
	for i := range got {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(got[i], got[0]) {
			t.Fatalf("process %d got %q, process 0 got %q", i, got[i], got[0])
		}
	}
	stored, err := db.Setting(ctx, pool, "token_secret")
	if err != nil || !bytes.Equal(stored, got[0]) {
		t.Errorf("stored %q, %v; want %q", stored, err, got[0])
	}
}
