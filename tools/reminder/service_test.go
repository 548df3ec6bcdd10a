package reminder_test

import (
	"github.com/yorozu-bot/yorozu/scheduler"
	"github.com/yorozu-bot/yorozu/tools/reminder"
)

// cmd/yorozu hands Tools the scheduler's reminders. Only this test imports
// scheduler, a layer above: TestLayout checks the non-test files.
var _ reminder.Service = (*scheduler.Reminders)(nil)
