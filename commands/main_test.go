package commands

import (
	"io"
	"log/slog"
	"testing"

	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

// quiet is the logger of tests whose failures are the point.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
