package bot

import (
	"testing"

	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// TestMain stops an embedded database dbtest may have started.
func TestMain(m *testing.M) { dbtest.Main(m) }
