package db_test

import (
	"testing"

	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }
